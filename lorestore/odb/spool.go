// The spool: a temporary pack a big batch streams into. Chunks are
// compressed on GOMAXPROCS workers and appended in order by one writer
// goroutine; at most a few chunks are in flight, so memory stays bounded
// whatever the batch's size. The object count in the pack header is not
// known until the end: finish patches it and then hashes the file for the
// trailer, as git's fast-import does.

package odb

import (
	"bufio"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/deloreis/deloreis/lorestore/fsys"
)

type spool struct {
	f       *os.File
	fs      fsys.FS
	bw      *bufio.Writer
	off     uint64 // bytes of pack written (by the writer goroutine)
	entries []idxEntry
	count   int                           // entries written
	sink    func(e idxEntry, n int) error // when set, gets each entry (and its length) instead of entries
	jobs    chan *spoolJob                // to the compressors
	order   chan *spoolJob                // to the writer, in submission order
	free    chan chunk                    // chunks the writer is done with, for reuse
	outs    chan chunkOut                 // compressed buffers the writer is done with
	workers sync.WaitGroup
	done    chan struct{} // closed when the writer has written every job
	err     error         // the writer's first error; read after done
	stopped bool
}

type spoolJob struct {
	in  chunk
	out chan chunkOut
}

// startSpool opens a temporary pack and starts its goroutines.
func (db *DB) startSpool() (*spool, error) {
	f, err := db.takeTemp(tmpPackPrefix)
	if err != nil {
		return nil, err
	}
	n := runtime.GOMAXPROCS(0)
	sp := &spool{
		f:     f,
		fs:    db.fs,
		bw:    bufio.NewWriterSize(f, 1<<20),
		jobs:  make(chan *spoolJob, n),
		order: make(chan *spoolJob, 2*n),
		free:  make(chan chunk, 2*n+2),
		outs:  make(chan chunkOut, 2*n+2),
		done:  make(chan struct{}),
	}
	var hdr [packHeaderLen]byte // the count is patched by finish
	copy(hdr[:], "PACK")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	sp.bw.Write(hdr[:])
	sp.off = packHeaderLen
	for range n {
		sp.workers.Add(1)
		go sp.compress()
	}
	go sp.write()
	return sp, nil
}

func (sp *spool) compress() {
	defer sp.workers.Done()
	d := deflaters.Get().(*deflater)
	defer deflaters.Put(d)
	for j := range sp.jobs {
		var buf chunkOut
		select {
		case buf = <-sp.outs:
		default:
		}
		j.out <- compressChunk(j.in, d, buf)
	}
}

// write appends each job's entries in submission order and records them
// for the index.
func (sp *spool) write() {
	defer close(sp.done)
	for j := range sp.order {
		c := <-j.out
		p := 0
		for k, n := range c.lens {
			e := idxEntry{hash: j.in.objs[k].hash, offset: sp.off, crc: c.crcs[k]}
			if sp.sink == nil {
				sp.entries = append(sp.entries, e)
			} else if sp.err == nil {
				sp.err = sp.sink(e, int(n))
			}
			sp.count++
			if sp.err == nil {
				if _, err := sp.bw.Write(c.raw[p : p+int(n)]); err != nil {
					sp.err = fmt.Errorf("odb: write pack: %w", err)
				}
			}
			sp.off += uint64(n)
			p += int(n)
		}
		select {
		case sp.free <- chunk{arena: j.in.arena[:0], objs: j.in.objs[:0]}:
		default:
		}
		select {
		case sp.outs <- c:
		default:
		}
	}
}

// submit queues a chunk; it blocks while too many are in flight.
func (sp *spool) submit(c chunk) {
	j := &spoolJob{in: c, out: make(chan chunkOut, 1)}
	sp.order <- j
	sp.jobs <- j
}

// freshChunk returns an empty chunk, reusing a written one when it can.
func (sp *spool) freshChunk() chunk {
	select {
	case c := <-sp.free:
		return c
	default:
		return chunk{arena: make([]byte, 0, chunkBytes+chunkBytes/4)}
	}
}

// stop waits until every submitted chunk is written.
func (sp *spool) stop() {
	if sp.stopped {
		return
	}
	sp.stopped = true
	close(sp.jobs)
	close(sp.order)
	sp.workers.Wait()
	<-sp.done
}

// finish writes the last chunk, patches the object count into the header,
// appends the trailer, and returns the index entries and the trailer.
func (sp *spool) finish(last chunk, count int) ([]idxEntry, []byte, error) {
	if err := sp.complete(last, count); err != nil {
		return nil, nil, err
	}
	trailer, err := sp.seal(count)
	if err != nil {
		return nil, nil, err
	}
	return sp.entries, trailer, nil
}

// complete writes the last chunk and waits until every entry is on disk;
// count is the number of entries the caller passed on.
func (sp *spool) complete(last chunk, count int) error {
	if len(last.objs) > 0 {
		sp.submit(last)
	}
	sp.stop()
	if sp.err != nil {
		return sp.err
	}
	if err := sp.bw.Flush(); err != nil {
		return fmt.Errorf("odb: write pack: %w", err)
	}
	if sp.count != count {
		return fmt.Errorf("odb: internal error: batch of %d objects spooled %d", count, sp.count)
	}
	return nil
}

// seal patches the object count into the header of the complete pack,
// hashes it and appends the trailer, which it returns.
func (sp *spool) seal(count int) ([]byte, error) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(count))
	if _, err := sp.f.WriteAt(n[:], 8); err != nil {
		return nil, fmt.Errorf("odb: write pack: %w", err)
	}
	sum := sha1.New()
	if _, err := io.Copy(sum, io.NewSectionReader(sp.f, 0, int64(sp.off))); err != nil {
		return nil, fmt.Errorf("odb: read back pack: %w", err)
	}
	trailer := sum.Sum(nil)
	if _, err := sp.f.WriteAt(trailer, int64(sp.off)); err != nil {
		return nil, fmt.Errorf("odb: write pack: %w", err)
	}
	return trailer, nil
}

// abort stops the goroutines and removes the temporary pack.
func (sp *spool) abort() {
	sp.stop()
	sp.f.Close()
	sp.fs.Remove(sp.f.Name())
}
