// Batches: objects collected into one pack with its index. A small batch
// stays in memory until Write. A big one streams: each run of about
// chunkBytes of objects is compressed on worker goroutines and appended to
// a temporary pack as soon as the run is complete, so the batch holds only
// the name, offset and CRC of each object it has passed on (issue 8 item 7:
// a commit of 900,000 objects).

package odb

import (
	"crypto/sha1"
	"fmt"
	"hash/crc32"

	"github.com/go-git/go-git/v5/plumbing"
)

// Batch collects objects to be written together as one pack. A Batch is
// not safe for concurrent use; distinct batches may be written
// concurrently. A batch that will not be written should be given back
// with Abort, which removes what it has spooled to disk.
type Batch struct {
	db   *DB
	seen map[plumbing.Hash]struct{}
	n    int    // distinct objects added since the last Write or Abort
	cur  chunk  // objects not yet passed to the spool
	sp   *spool // the temporary pack, once the first chunk is full
	err  error  // the spool's first failure, reported by Write
	last published
}

// chunk is a run of objects: their headers and contents back to back.
type chunk struct {
	arena []byte
	objs  []batchObj
}

type batchObj struct {
	hash       plumbing.Hash
	typ        plumbing.ObjectType
	start, end int // content in arena
}

// chunkBytes is the size of a run compressed as one job; it is also the
// most a batch keeps in memory before it starts streaming to disk.
const chunkBytes = 256 << 10

// NewBatch returns an empty batch writing into db.
func (db *DB) NewBatch() *Batch {
	return &Batch{db: db, seen: make(map[plumbing.Hash]struct{})}
}

// Add adds an object to the batch and returns its name. Adding the same
// object twice stores it once. data is not retained. t must be a commit,
// tree, blob or tag; anything else is a programming error and panics.
func (b *Batch) Add(t plumbing.ObjectType, data []byte) plumbing.Hash {
	if !isBaseType(t) {
		panic(fmt.Sprintf("odb: Batch.Add of object type %v", t))
	}
	c := &b.cur
	mark := len(c.arena)
	c.arena = appendHeader(c.arena, t, len(data))
	start := len(c.arena)
	c.arena = append(c.arena, data...)
	h := plumbing.Hash(sha1.Sum(c.arena[mark:]))
	if _, dup := b.seen[h]; dup {
		c.arena = c.arena[:mark]
		return h
	}
	b.seen[h] = struct{}{}
	c.objs = append(c.objs, batchObj{hash: h, typ: t, start: start, end: len(c.arena)})
	b.n++
	if len(c.arena) >= chunkBytes {
		b.spill()
	}
	return h
}

// spill passes the current chunk to the spool, starting it if need be.
// A failure is kept for Write; the chunk is dropped then, since the batch
// can no longer be written.
func (b *Batch) spill() {
	if b.sp == nil && b.err == nil {
		b.sp, b.err = b.db.startSpool()
	}
	if b.err != nil {
		b.cur = chunk{arena: b.cur.arena[:0], objs: b.cur.objs[:0]}
		return
	}
	b.sp.submit(b.cur)
	b.cur = b.sp.freshChunk()
}

// Len returns the number of distinct objects in the batch.
func (b *Batch) Len() int { return b.n }

// Abort drops every object added since the last Write and removes the
// temporary pack they were streamed to. The batch is empty afterwards and
// may be reused; Abort of an empty batch is a no-op. Discard, not Abort,
// takes back a pack already written.
func (b *Batch) Abort() {
	if b.sp != nil {
		b.sp.abort()
	}
	b.reset()
}

func (b *Batch) reset() {
	b.sp, b.err, b.n = nil, nil, 0
	b.cur = chunk{}
	clear(b.seen)
}

// Write stores the batch as one pack and index, visible atomically (to
// this DB at once, to other processes at the rename of the .idx). An empty
// batch is a no-op. Afterwards the batch is empty, whether Write succeeded
// or not, and may be reused; after a successful Write, Discard can take
// the pack back.
//
// When there are more packs than Options.AutoPackLimit, Write first rolls
// small packs up (see MaybeConsolidate) — before its own pack exists, so
// the new pack stays separate until a later roll-up and Discard can still
// remove it. A failure of that roll-up does not fail the Write; it goes to
// Options.OnAutoConsolidateError.
func (b *Batch) Write() error {
	if b.n == 0 {
		b.Abort()
		return nil
	}
	db := b.db
	if db.closed.Load() {
		b.Abort()
		return ErrClosed
	}
	if !db.opts.ConsolidateByCaller {
		db.autoConsolidate()
	}
	var pub published
	var err error
	if b.sp == nil && b.err == nil {
		pub, err = b.writeSmall()
	} else {
		pub, err = b.writeSpooled()
	}
	b.reset()
	if err != nil {
		return err
	}
	if err := db.addPack(pub); err != nil {
		return err
	}
	b.last = pub
	db.refillSpares()
	return nil
}

// writeSmall writes a batch that never left memory, with the object count
// known up front and the pack kept in memory when small.
func (b *Batch) writeSmall() (published, error) {
	w, err := b.db.newPackWriter(len(b.cur.objs))
	if err != nil {
		return published{}, err
	}
	d := deflaters.Get().(*deflater)
	c := compressChunk(b.cur, d, chunkOut{})
	deflaters.Put(d)
	p := 0
	for j, n := range c.lens {
		w.add(b.cur.objs[j].hash, c.raw[p:p+int(n)], c.crcs[j])
		p += int(n)
	}
	return w.finish()
}

// writeSpooled completes the temporary pack and publishes it.
func (b *Batch) writeSpooled() (published, error) {
	sp := b.sp
	if b.err != nil {
		if sp != nil {
			sp.abort()
		}
		return published{}, b.err
	}
	entries, trailer, err := sp.finish(b.cur, b.n)
	if err != nil {
		sp.abort()
		return published{}, err
	}
	pub, err := b.db.publish(sp.f, trailer, entries, false)
	if err != nil {
		sp.abort()
		return published{}, err
	}
	sp.f.Close()
	return pub, nil
}

// chunkOut is the compressed form of a chunk.
type chunkOut struct {
	raw  []byte   // pack entries back to back
	lens []uint32 // entry lengths
	crcs []uint32
}

// compressChunk deflates every object of c into pack entries, appending to
// the emptied buffers of out (which may be zero).
func compressChunk(c chunk, d *deflater, out chunkOut) chunkOut {
	if out.raw == nil {
		out.raw = make([]byte, 0, len(c.arena)/2+64)
	}
	out.raw, out.lens, out.crcs = out.raw[:0], out.lens[:0], out.crcs[:0]
	for _, o := range c.objs {
		mark := len(out.raw)
		out.raw = appendEntryHeader(out.raw, o.typ, uint64(o.end-o.start))
		out.raw = appendDeflate(out.raw, d, o.typ, c.arena[o.start:o.end])
		out.lens = append(out.lens, uint32(len(out.raw)-mark))
		out.crcs = append(out.crcs, crc32.ChecksumIEEE(out.raw[mark:]))
	}
	return out
}
