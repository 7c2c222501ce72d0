// Writing a pack: a temporary file in objects/pack (flocked while we own
// it), the trailer, the .idx, and the renames that publish them the way
// git does — .pack first, .idx last, since the .idx is what makes a pack
// visible to git and to us.

package odb

import (
	"bufio"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/deloreis/deloreis/lorestore/fsys"
	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sys/unix"
)

// appendEntryHeader appends a pack entry header (type and inflated size).
func appendEntryHeader(dst []byte, t plumbing.ObjectType, size uint64) []byte {
	c := byte(t&7)<<4 | byte(size&0x0f)
	size >>= 4
	for size != 0 {
		dst = append(dst, c|0x80)
		c = byte(size & 0x7f)
		size >>= 7
	}
	return append(dst, c)
}

// createTemp creates and flocks a temporary file in dir; the lock tells
// removeStale that a live writer owns it.
func (db *DB) createTemp(dir, prefix string) (*os.File, error) {
	f, err := db.openTemp(dir, prefix)
	if errors.Is(err, os.ErrNotExist) {
		// objects/pack went missing (git creates it on demand too).
		if fsys.MkdirAll(db.fs, dir, 0o755, db.durable()) == nil {
			f, err = db.openTemp(dir, prefix)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("odb: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		db.fs.Remove(f.Name())
		return nil, fmt.Errorf("odb: lock %s: %w", f.Name(), err)
	}
	return f, nil
}

// openTemp creates a new file named prefix + a random suffix, read-only
// from birth (packs are read-only, as git makes them) though the returned
// descriptor writes: one system call fewer than a chmod after the fact.
func (db *DB) openTemp(dir, prefix string) (*os.File, error) {
	for range 16 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := db.fs.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o444)
		if !errors.Is(err, os.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("odb: no unused temporary name in %s", dir)
}

// packWriter streams entries into a temporary pack.
type packWriter struct {
	db      *DB
	f       *os.File
	bw      *bufio.Writer
	sum     hash.Hash
	off     uint64
	entries []idxEntry
	mem     []byte // the pack's bytes while it stays under memPackLimit
	memOK   bool
}

// memPackLimit is the largest pack kept in memory after writing, to be
// installed without reopening and mapping its files.
const memPackLimit = 4 << 20

// newPackWriter starts a pack that will hold exactly count entries.
func (db *DB) newPackWriter(count int) (*packWriter, error) {
	f, err := db.takeTemp(tmpPackPrefix)
	if err != nil {
		return nil, err
	}
	w := &packWriter{db: db, f: f, sum: sha1.New(), entries: make([]idxEntry, 0, count), memOK: true}
	// A buffer sized to the batch: a one-object commit should not clear a
	// megabyte.
	w.bw = bufio.NewWriterSize(f, min(1<<20, max(4096, count*256)))
	var hdr [packHeaderLen]byte
	copy(hdr[:], "PACK")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	binary.BigEndian.PutUint32(hdr[8:], uint32(count))
	w.write(hdr[:])
	return w, nil
}

func (w *packWriter) write(b []byte) {
	w.sum.Write(b)
	w.bw.Write(b)
	w.off += uint64(len(b))
	if w.memOK {
		if len(w.mem)+len(b) > memPackLimit {
			w.mem, w.memOK = nil, false
		} else {
			w.mem = append(w.mem, b...)
		}
	}
}

// add appends one raw entry (header and zlib data) named h.
func (w *packWriter) add(h plumbing.Hash, raw []byte, crc uint32) {
	w.entries = append(w.entries, idxEntry{hash: h, offset: w.off, crc: crc})
	w.write(raw)
}

// addObject compresses and appends a full object.
func (w *packWriter) addObject(d *deflater, scratch []byte, h plumbing.Hash, t plumbing.ObjectType, data []byte) []byte {
	raw := appendEntryHeader(scratch[:0], t, uint64(len(data)))
	raw = appendDeflate(raw, d, t, data)
	w.add(h, raw, crc32.ChecksumIEEE(raw))
	return raw
}

// abort removes the temporary file.
func (w *packWriter) abort() {
	w.f.Close()
	w.db.fs.Remove(w.f.Name())
}

// finish writes the trailer and the index and publishes the pair.
func (w *packWriter) finish() (published, error) {
	if len(w.entries) != cap(w.entries) {
		w.abort()
		return published{}, fmt.Errorf("odb: internal error: pack announced %d objects, has %d", cap(w.entries), len(w.entries))
	}
	trailer := w.sum.Sum(nil)
	w.bw.Write(trailer)
	if w.memOK {
		w.mem = append(w.mem, trailer...)
	}
	if err := w.bw.Flush(); err != nil {
		w.abort()
		return published{}, fmt.Errorf("odb: write pack: %w", err)
	}
	pub, err := w.db.publish(w.f, trailer, w.entries, w.memOK)
	if err != nil {
		w.abort()
		return published{}, err
	}
	w.f.Close()
	if w.memOK {
		pub.data = w.mem
	}
	return pub, nil
}

// syncDir fsyncs a directory so the renames in it are durable.
func (db *DB) syncDir(dir string) error {
	if err := db.fs.SyncDir(dir); err != nil {
		return fmt.Errorf("odb: fsync %s: %w", dir, err)
	}
	return nil
}
