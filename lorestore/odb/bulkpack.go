// Bulk packs: one pack of any number of objects in bounded memory. Unlike
// a Batch, a BulkPack keeps nothing per object in memory: each object's
// name, offset and CRC go to an external sort on disk as the spool writes
// the object, and the index is written from the sorted stream at the end.
// Nothing is deduplicated on the way in (that would need every name in
// memory); a repeated object is found in the sorted stream and, only then,
// the pack is copied once without the repeats.

package odb

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/deloreis/deloreis/lorestore/internal/extsort"
	"github.com/go-git/go-git/v5/plumbing"
)

// BulkPack writes objects into one pack streamed to disk. It is not safe
// for concurrent use. Finish publishes the pack; Abort removes what was
// written.
type BulkPack struct {
	db   *DB
	cur  chunk
	sp   *spool
	recs *extsort.Sorter[packRec]
	n    int // objects added
	last published
	done bool
}

// packRec is what the index needs of one pack entry, and its length for
// the copy that drops repeats.
type packRec struct {
	off  uint64
	hash plumbing.Hash
	crc  uint32
	size uint32
}

const packRecLen = 8 + 20 + 4 + 4

// bulkRunRecords bounds the names held in memory: 4 MiB of them.
var bulkRunRecords = 4 << 20 / 40 // a variable for tests

var packRecCodec = extsort.Codec[packRec]{
	Encode: func(dst []byte, r *packRec) []byte {
		dst = binary.BigEndian.AppendUint64(dst, r.off)
		dst = append(dst, r.hash[:]...)
		dst = binary.BigEndian.AppendUint32(dst, r.crc)
		return binary.BigEndian.AppendUint32(dst, r.size)
	},
	Decode: func(br *bufio.Reader, r *packRec) error {
		var b [packRecLen]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return err
		}
		r.off = binary.BigEndian.Uint64(b[:])
		copy(r.hash[:], b[8:28])
		r.crc = binary.BigEndian.Uint32(b[28:])
		r.size = binary.BigEndian.Uint32(b[32:])
		return nil
	},
}

// comparePackRec orders by name, then by offset: of repeats, the first
// written comes first and is the one kept.
func comparePackRec(a, b packRec) int {
	// The first eight bytes almost always decide.
	if c := cmp.Compare(binary.BigEndian.Uint64(a.hash[:8]), binary.BigEndian.Uint64(b.hash[:8])); c != 0 {
		return c
	}
	if c := bytes.Compare(a.hash[8:], b.hash[8:]); c != 0 {
		return c
	}
	return cmp.Compare(a.off, b.off)
}

// NewBulkPack starts a bulk pack: its temporary file exists from now on.
func (db *DB) NewBulkPack() (*BulkPack, error) {
	if db.closed.Load() {
		return nil, ErrClosed
	}
	sp, err := db.startSpool()
	if err != nil {
		return nil, err
	}
	b := &BulkPack{db: db, sp: sp, cur: sp.freshChunk()}
	b.recs = extsort.New(bulkRunRecords, comparePackRec, packRecCodec, func() (*os.File, error) {
		return db.createTemp(db.objDir, tmpRunPrefix)
	})
	sp.sink = func(e idxEntry, n int) error {
		return b.recs.Add(packRec{off: e.offset, hash: e.hash, crc: e.crc, size: uint32(n)})
	}
	return b, nil
}

// Add appends an object and returns its name. Adding an object twice
// stores it once (the repeat is dropped by Finish). data is not retained.
func (b *BulkPack) Add(t plumbing.ObjectType, data []byte) plumbing.Hash {
	return b.add(t, data, nil)
}

// AddNamed is Add of an object whose git name the caller made with a
// Namer (it is not checked: a wrong name would name the wrong bytes), so
// that naming many objects can be shared between goroutines while one
// adds them.
func (b *BulkPack) AddNamed(t plumbing.ObjectType, data []byte, name plumbing.Hash) {
	b.add(t, data, &name)
}

// add is Add, naming the object unless name is given.
func (b *BulkPack) add(t plumbing.ObjectType, data []byte, name *plumbing.Hash) plumbing.Hash {
	if !isBaseType(t) {
		panic(fmt.Sprintf("odb: BulkPack.Add of object type %v", t))
	}
	if b.done {
		panic("odb: BulkPack.Add after Finish or Abort")
	}
	c := &b.cur
	mark := len(c.arena)
	c.arena = appendHeader(c.arena, t, len(data))
	start := len(c.arena)
	c.arena = append(c.arena, data...)
	var h plumbing.Hash
	if name != nil {
		h = *name
	} else {
		h = sha1.Sum(c.arena[mark:])
	}
	c.objs = append(c.objs, batchObj{hash: h, typ: t, start: start, end: len(c.arena)})
	b.n++
	if len(c.arena) >= chunkBytes {
		b.sp.submit(b.cur)
		b.cur = b.sp.freshChunk()
	}
	return h
}

// Len is the number of objects added, repeats counted.
func (b *BulkPack) Len() int { return b.n }

// Abort removes the temporary files. It is a no-op after Finish (Discard
// takes a finished pack back) and after Abort.
func (b *BulkPack) Abort() {
	if b.done {
		return
	}
	b.done = true
	b.sp.abort()
	b.recs.Close()
}

// Discard takes back the pack Finish published (see Batch.Discard).
func (b *BulkPack) Discard() error {
	pub := b.last
	b.last = published{}
	return b.db.discard(pub)
}

// Finish completes the pack and its index, publishes them and makes the
// objects readable through the DB; the index and the pack are read back
// and checked (checksums, count, order of names) before Finish returns.
// Whatever the outcome, no temporary file is left behind.
func (b *BulkPack) Finish() error {
	if b.done {
		return errors.New("odb: BulkPack finished or aborted already")
	}
	if b.n == 0 {
		b.Abort()
		return errors.New("odb: empty bulk pack")
	}
	defer b.Abort()
	sp := b.sp
	if err := sp.complete(b.cur, b.n); err != nil {
		return err
	}
	b.cur = chunk{}
	xf, err := b.db.createTemp(b.db.objDir, tmpIdxPrefix)
	if err != nil {
		return err
	}
	defer func() { xf.Close(); b.db.fs.Remove(xf.Name()) }()
	// Optimistically index every object; the pass also finds repeats,
	// after which the pack is copied without them and indexed again.
	pf := sp.f
	dups, end, err := b.writeIndex(xf, b.n, nil)
	if err != nil {
		return err
	}
	var trailer []byte
	if len(dups) == 0 {
		trailer, err = sp.seal(b.n)
	} else {
		pf, trailer, err = b.rewrite(dups)
		if err == nil {
			defer func() { pf.Close(); b.db.fs.Remove(pf.Name()) }()
			_, end, err = b.writeIndex(xf, b.n-len(dups), dups)
		}
	}
	if err != nil {
		return err
	}
	if err := sealIndex(xf, end, trailer); err != nil {
		return err
	}
	pub, err := b.db.publishFiles(pf, xf, trailer)
	if err != nil {
		return err
	}
	if err := b.db.addPack(pub); err != nil {
		b.db.discard(pub)
		return err
	}
	b.last = pub
	return nil
}

// span is a pack entry: its offset and length.
type span struct {
	off  uint64
	size uint32
}

// writeIndex writes into xf the version-2 index of count entries, up to
// the pack checksum, and returns where that goes: every record but
// repeats, with offsets moved down past the dropped spans (sorted by
// offset). Without dropped spans, repeats are collected, and when there
// are any they are returned in place of an index.
func (b *BulkPack) writeIndex(xf *os.File, count int, dropped []span) ([]span, int64, error) {
	if err := xf.Truncate(0); err != nil {
		return nil, 0, fmt.Errorf("odb: write index: %w", err)
	}
	base := int64(idxHeaderLen + fanoutLen)
	n := int64(count)
	names := bufio.NewWriterSize(io.NewOffsetWriter(xf, base), 1<<16)
	crcs := bufio.NewWriterSize(io.NewOffsetWriter(xf, base+20*n), 1<<16)
	offs := bufio.NewWriterSize(io.NewOffsetWriter(xf, base+24*n), 1<<16)
	large := bufio.NewWriterSize(io.NewOffsetWriter(xf, base+28*n), 1<<16)
	shift := newShifter(dropped)
	var fan [256]uint32
	var prev plumbing.Hash
	var repeats []span
	written, nLarge := 0, uint32(0)
	var buf [8]byte
	err := b.recs.Each(func(r *packRec) error {
		if written > 0 && r.hash == prev {
			if dropped == nil {
				repeats = append(repeats, span{r.off, r.size})
			}
			return nil
		}
		prev = r.hash
		written++
		if written > count {
			return fmt.Errorf("odb: internal error: more than %d objects to index", count)
		}
		fan[r.hash[0]]++
		names.Write(r.hash[:])
		binary.BigEndian.PutUint32(buf[:4], r.crc)
		crcs.Write(buf[:4])
		off := shift.apply(r.off)
		o := uint32(off)
		if off >= 0x80000000 {
			o = 0x80000000 | nLarge
			nLarge++
			binary.BigEndian.PutUint64(buf[:], off)
			large.Write(buf[:])
		}
		binary.BigEndian.PutUint32(buf[:4], o)
		_, err := offs.Write(buf[:4])
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	if len(repeats) > 0 {
		sort.Slice(repeats, func(i, j int) bool { return repeats[i].off < repeats[j].off })
		return repeats, 0, nil
	}
	if written != count {
		return nil, 0, fmt.Errorf("odb: internal error: indexed %d objects of %d", written, count)
	}
	for _, w := range []*bufio.Writer{names, crcs, offs, large} {
		if err := w.Flush(); err != nil {
			return nil, 0, fmt.Errorf("odb: write index: %w", err)
		}
	}
	head := append([]byte(nil), idxMagic...)
	head = binary.BigEndian.AppendUint32(head, 2)
	sum := uint32(0)
	for _, c := range fan {
		sum += c
		head = binary.BigEndian.AppendUint32(head, sum)
	}
	if _, err := xf.WriteAt(head, 0); err != nil {
		return nil, 0, fmt.Errorf("odb: write index: %w", err)
	}
	return nil, base + 28*n + 8*int64(nLarge), nil
}

// sealIndex writes the pack checksum at end and the index's own checksum
// after it.
func sealIndex(xf *os.File, end int64, trailer []byte) error {
	if _, err := xf.WriteAt(trailer, end); err != nil {
		return fmt.Errorf("odb: write index: %w", err)
	}
	end += hashLen
	h := sha1.New()
	if _, err := io.Copy(h, io.NewSectionReader(xf, 0, end)); err != nil {
		return fmt.Errorf("odb: read back index: %w", err)
	}
	if _, err := xf.WriteAt(h.Sum(nil), end); err != nil {
		return fmt.Errorf("odb: write index: %w", err)
	}
	return nil
}

// shifter maps an offset of the spooled pack to its offset in the copy
// without the dropped spans.
type shifter struct {
	offs   []uint64
	before []uint64 // bytes dropped before offs[i]
}

func newShifter(dropped []span) shifter {
	s := shifter{offs: make([]uint64, len(dropped)), before: make([]uint64, len(dropped)+1)}
	for i, d := range dropped {
		s.offs[i] = d.off
		s.before[i+1] = s.before[i] + uint64(d.size)
	}
	return s
}

func (s shifter) apply(off uint64) uint64 {
	i := sort.Search(len(s.offs), func(i int) bool { return s.offs[i] >= off })
	return off - s.before[i]
}

// rewrite copies the spooled pack into a new temporary pack without the
// dropped spans (sorted by offset) and returns it with its trailer.
func (b *BulkPack) rewrite(dropped []span) (*os.File, []byte, error) {
	sp := b.sp
	f, err := b.db.createTemp(b.db.objDir, tmpPackPrefix)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*os.File, []byte, error) {
		f.Close()
		b.db.fs.Remove(f.Name())
		return nil, nil, err
	}
	sum := sha1.New()
	bw := bufio.NewWriterSize(io.MultiWriter(f, sum), 1<<20)
	var hdr [packHeaderLen]byte
	copy(hdr[:], "PACK")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	binary.BigEndian.PutUint32(hdr[8:], uint32(b.n-len(dropped)))
	bw.Write(hdr[:])
	from := uint64(packHeaderLen)
	for _, d := range append(dropped, span{off: sp.off}) {
		if _, err := io.Copy(bw, io.NewSectionReader(sp.f, int64(from), int64(d.off-from))); err != nil {
			return fail(fmt.Errorf("odb: copy pack: %w", err))
		}
		from = d.off + uint64(d.size)
	}
	if err := bw.Flush(); err != nil {
		return fail(fmt.Errorf("odb: write pack: %w", err))
	}
	trailer := sum.Sum(nil)
	if _, err := f.Write(trailer); err != nil {
		return fail(fmt.Errorf("odb: write pack: %w", err))
	}
	return f, trailer, nil
}

// tmpRunPrefix names a bulk writer's sorted runs: under tmpPackPrefix, so
// that the first writer's clean-up of our stale temporary files takes them
// too.
const tmpRunPrefix = tmpPackPrefix + "run_"

// TempFile creates a temporary file for a bulk writer's own spill data,
// beside the pack being written: flocked while open, removed by the
// caller, and by a later Open if its writer died.
func (db *DB) TempFile() (*os.File, error) {
	return db.createTemp(db.objDir, tmpRunPrefix)
}
