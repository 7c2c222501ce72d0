// Batches: objects collected in memory, then compressed in parallel and
// written as one pack with its index.

package odb

import (
	"crypto/sha1"
	"fmt"
	"hash/crc32"
	"runtime"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// Batch collects objects to be written together as one pack. A Batch is
// not safe for concurrent use; distinct batches may be written
// concurrently.
type Batch struct {
	db    *DB
	arena []byte // headers and contents of all objects, back to back
	objs  []batchObj
	seen  map[plumbing.Hash]struct{}
	last  published // the pack of the last Write, for Discard
}

type batchObj struct {
	hash       plumbing.Hash
	typ        plumbing.ObjectType
	start, end int // content in arena
}

// NewBatch returns an empty batch writing into db.
func (db *DB) NewBatch() *Batch {
	return &Batch{db: db, seen: make(map[plumbing.Hash]struct{})}
}

// Add copies an object into the batch and returns its name. Adding the
// same object twice stores it once. t must be a commit, tree, blob or tag;
// anything else is a programming error and panics.
func (b *Batch) Add(t plumbing.ObjectType, data []byte) plumbing.Hash {
	if !isBaseType(t) {
		panic(fmt.Sprintf("odb: Batch.Add of object type %v", t))
	}
	mark := len(b.arena)
	b.arena = appendHeader(b.arena, t, len(data))
	start := len(b.arena)
	b.arena = append(b.arena, data...)
	h := plumbing.Hash(sha1.Sum(b.arena[mark:]))
	if _, dup := b.seen[h]; dup {
		b.arena = b.arena[:mark]
		return h
	}
	b.seen[h] = struct{}{}
	b.objs = append(b.objs, batchObj{hash: h, typ: t, start: start, end: len(b.arena)})
	return h
}

// Len returns the number of distinct objects in the batch.
func (b *Batch) Len() int { return len(b.objs) }

// Write stores the batch as one pack and index, visible atomically (to
// this DB at once, to other processes at the rename of the .idx). An empty
// batch is a no-op. After a successful Write the batch is empty and may be
// reused (and Discard can take the pack back); after a failed one it keeps
// its objects.
//
// When there are more packs than Options.AutoPackLimit, Write first rolls
// small packs up (see MaybeConsolidate) — before its own pack exists, so
// the new pack stays separate until a later roll-up and Discard can still
// remove it. A failure of that roll-up does not fail the Write; it goes to
// Options.OnAutoConsolidateError.
func (b *Batch) Write() error {
	if len(b.objs) == 0 {
		return nil
	}
	db := b.db
	if db.closed.Load() {
		return ErrClosed
	}
	if !db.opts.ConsolidateByCaller {
		db.autoConsolidate()
	}
	w, err := db.newPackWriter(len(b.objs))
	if err != nil {
		return err
	}
	b.compressInto(w)
	pub, err := w.finish()
	if err != nil {
		return err
	}
	if err := db.addPack(pub); err != nil {
		return err
	}
	b.last = pub
	db.refillSpares()
	b.arena, b.objs = b.arena[:0], b.objs[:0]
	clear(b.seen)
	return nil
}

// chunkOut is the compressed form of a run of batch objects.
type chunkOut struct {
	raw  []byte   // pack entries back to back
	lens []uint32 // entry lengths
	crcs []uint32
}

const chunkBytes = 256 << 10

// chunks splits the objects into runs of about chunkBytes of content.
func (b *Batch) chunks() [][2]int {
	var out [][2]int
	start, size := 0, 0
	for i, o := range b.objs {
		size += o.end - o.start + 32
		if size >= chunkBytes {
			out = append(out, [2]int{start, i + 1})
			start, size = i+1, 0
		}
	}
	if start < len(b.objs) {
		out = append(out, [2]int{start, len(b.objs)})
	}
	return out
}

func (b *Batch) compressChunk(r [2]int, d *deflater) chunkOut {
	var c chunkOut
	n := r[1] - r[0]
	c.lens = make([]uint32, 0, n)
	c.crcs = make([]uint32, 0, n)
	for _, o := range b.objs[r[0]:r[1]] {
		mark := len(c.raw)
		c.raw = appendEntryHeader(c.raw, o.typ, uint64(o.end-o.start))
		c.raw = appendDeflate(c.raw, d, o.typ, b.arena[o.start:o.end])
		c.lens = append(c.lens, uint32(len(c.raw)-mark))
		c.crcs = append(c.crcs, crc32.ChecksumIEEE(c.raw[mark:]))
	}
	return c
}

// compressInto compresses the chunks on GOMAXPROCS workers and writes them
// to w in order, keeping at most a few chunks in flight.
func (b *Batch) compressInto(w *packWriter) {
	chunks := b.chunks()
	workers := min(runtime.GOMAXPROCS(0), len(chunks))
	results := make([]chan chunkOut, len(chunks))
	for i := range results {
		results[i] = make(chan chunkOut, 1)
	}
	jobs := make(chan int)
	window := make(chan struct{}, 2*workers)
	go func() {
		for i := range chunks {
			window <- struct{}{}
			jobs <- i
		}
		close(jobs)
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := deflaters.Get().(*deflater)
			defer deflaters.Put(d)
			for i := range jobs {
				results[i] <- b.compressChunk(chunks[i], d)
			}
		}()
	}
	k := 0
	for i := range chunks {
		c := <-results[i]
		<-window
		p := 0
		for j, n := range c.lens {
			w.add(b.objs[k].hash, c.raw[p:p+int(n)], c.crcs[j])
			p += int(n)
			k++
		}
	}
	wg.Wait()
}
