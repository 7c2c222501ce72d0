// The index section of a world file (format v5, DL-0400): where each
// entry of the entries section starts and what it is, each part's
// interned strings, each type's entries, and the entities sorted by
// ident. A world read in place (worldfile_lazy.go) uses these columns
// where they are mapped instead of building them on the heap at every
// open, so that its resident memory grows with what a session reads.
//
// The writer builds the section by scanning the entries it has just
// written (openFileBase with no index), so the scan alone decides what
// an index says. An open scans the entries again, as before, and holds
// every column to what the scan finds; a column that disagrees refuses
// the file. The entities are checked without reading any record out of
// order: their column holds the idents themselves, which must be sorted,
// and its (ident, position) pairs must sum, under a hash seeded afresh by
// each process, to what the records' pairs sum to.
//
// Layout (little-endian, every column padded to 8 bytes):
//
//	count u64 | parts u64 | types u64 | entities u64 | ident bytes u64
//	offsets u32[count] | types u8[count]
//	per type code: n u64, positions u32[n]
//	per part: n u64, where its interned strings' fields start u32[n]
//	entities: positions u32[entities], ident ends u64[entities], idents

package author

import (
	"bufio"
	"encoding/binary"
	"hash/maphash"
	"io"
	"iter"
	"slices"
	"strings"
	"unsafe"
)

// wfSectionIndex is the index of the entries section.
const wfSectionIndex = 3

// identCol is the entities sorted by ident, then position: for each ident,
// its first entity is the one of least position, so of least id.
type identCol struct {
	pos  []uint32
	ends []uint64 // where each ident ends in blob
	blob []byte
	n    int // distinct idents
}

func (c *identCol) name(j int) string {
	lo := uint64(0)
	if j > 0 {
		lo = c.ends[j-1]
	}
	if lo == c.ends[j] {
		return ""
	}
	return unsafe.String(&c.blob[lo], int(c.ends[j]-lo))
}

// Len, Find and All are world.EntityIdents'.

func (c *identCol) Len() int { return c.n }

func (c *identCol) Find(ident string) (int, bool) {
	lo, hi := 0, len(c.pos)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c.name(m) < ident {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(c.pos) && c.name(lo) == ident {
		return int(c.pos[lo]), true
	}
	return 0, false
}

func (c *identCol) All() iter.Seq2[string, int] {
	return func(yield func(string, int) bool) {
		prev := ""
		for j := range c.pos {
			name := c.name(j)
			if j > 0 && name == prev {
				continue
			}
			prev = name
			if !yield(name, int(c.pos[j])) {
				return
			}
		}
	}
}

// entityRef is an entity as a scan finds it: its position and ident, a
// view of the section.
type entityRef struct {
	pos  uint32
	name string
}

// sortedIdents makes the column of refs, which it sorts.
func sortedIdents(refs []entityRef) identCol {
	slices.SortFunc(refs, func(x, y entityRef) int {
		if c := strings.Compare(x.name, y.name); c != 0 {
			return c
		}
		return int(x.pos) - int(y.pos)
	})
	c := identCol{pos: make([]uint32, len(refs)), ends: make([]uint64, len(refs))}
	var blob []byte
	for j, r := range refs {
		c.pos[j] = r.pos
		blob = append(blob, r.name...)
		c.ends[j] = uint64(len(blob))
		if j == 0 || r.name != refs[j-1].name {
			c.n++
		}
	}
	c.blob = blob
	return c
}

// identSeed keys the sums that hold an ident column to its records: a
// file cannot be made to agree with another process's seed.
var identSeed = maphash.MakeSeed()

// identMix is what an entity adds to its sum.
func identMix(name string, pos uint32) uint64 {
	h := maphash.String(identSeed, name) ^ uint64(pos)*0x9E3779B97F4A7C15
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	return h ^ h>>33
}

// writeIndex writes the index of b, a base openFileBase built (given no
// index), as a section's payload; it returns the bytes written.
func (b *fileBase) writeIndex(w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	var n int64
	put := func(p []byte) {
		bw.Write(p)
		n += int64(len(p))
	}
	u64 := func(v uint64) { put(binary.LittleEndian.AppendUint64(nil, v)) }
	pad := func() { put(make([]byte, pad8(int(n%8)))) }
	raw := make([]byte, 0, 4096)
	u32sRaw := func(vs []uint32) { // a part of a column, not padded
		for _, v := range vs {
			if raw = binary.LittleEndian.AppendUint32(raw, v); len(raw) == cap(raw) {
				put(raw)
				raw = raw[:0]
			}
		}
		put(raw)
		raw = raw[:0]
	}
	u32s := func(vs []uint32) {
		u32sRaw(vs)
		pad()
	}
	for _, v := range []uint64{uint64(len(b.offs)), uint64(len(b.intern)), uint64(len(typeCodes)), uint64(len(b.ents.pos)), uint64(len(b.ents.blob))} {
		u64(v)
	}
	u32s(b.offs)
	put(b.types)
	pad()
	// Each type's entries, streamed from the types: a writer's base never
	// makes the lists (10M entries, 40 MB).
	var counts [256]int
	for _, code := range b.types {
		counts[code]++
	}
	buf := make([]uint32, 0, 1<<12)
	for code := range typeCodes {
		u64(uint64(counts[code]))
		if counts[code] == 0 {
			continue // most types: no pass over the types for them
		}
		for i, c := range b.types {
			if int(c) == code {
				if buf = append(buf, uint32(i)); len(buf) == cap(buf) {
					u32sRaw(buf)
					buf = buf[:0]
				}
			}
		}
		u32s(buf)
		buf = buf[:0]
	}
	for _, ps := range b.intern {
		u64(uint64(len(ps)))
		u32s(ps)
	}
	u32s(b.ents.pos)
	ends := make([]byte, 0, 8*len(b.ents.ends))
	for _, e := range b.ents.ends {
		ends = binary.LittleEndian.AppendUint64(ends, e)
	}
	put(ends)
	put(b.ents.blob)
	pad()
	return n, bw.Flush()
}

// colReader reads an index section's columns, each padded to 8 bytes.
// Columns are views of the section where it lies aligned on a
// little-endian machine, copies otherwise; a count past what the bytes
// left can hold fails before anything is made of it.
type colReader struct {
	p   []byte
	at  int
	err error
}

func (r *colReader) take(n uint64, size int) []byte {
	if r.err != nil || n > uint64(len(r.p)-r.at)/uint64(size) {
		if r.err == nil {
			r.err = wfErr("index: a column of %d past the end", n)
		}
		return nil
	}
	b := r.p[r.at : r.at+int(n)*size]
	r.at += int(n) * size
	r.at = min(len(r.p), r.at+pad8(r.at%8))
	return b
}

func (r *colReader) u64() uint64 {
	b := r.take(1, 8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

func (r *colReader) u8s(n uint64) []uint8 { return r.take(n, 1) }

func (r *colReader) u32s(n uint64) []uint32 {
	b := r.take(n, 4)
	if len(b) == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

func (r *colReader) u64s(n uint64) []uint64 {
	b := r.take(n, 8)
	if len(b) == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%8 == 0 {
		return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return out
}

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// readIndex reads the columns of an index section into b, which has its
// count and parts: their shapes are checked here, their values by the
// scan (verify) and checkIndex.
func (b *fileBase) readIndex(p []byte, count uint64, nparts int) error {
	r := &colReader{p: p}
	n, parts, types, ents, blob := r.u64(), r.u64(), r.u64(), r.u64(), r.u64()
	if r.err == nil && (n != count || parts != uint64(nparts) || types != uint64(len(typeCodes)) || ents > count) {
		return wfErr("index of %d entries in %d parts, %d types, %d entities: the section has %d in %d", n, parts, types, ents, count, nparts)
	}
	b.offs, b.types = r.u32s(n), r.u8s(n)
	b.ofType = make([][]uint32, types)
	for t := range b.ofType {
		b.ofType[t] = r.u32s(r.u64())
	}
	b.intern = make([][]uint32, parts)
	for k := range b.intern {
		b.intern[k] = r.u32s(r.u64())
	}
	b.ents.pos, b.ents.ends, b.ents.blob = r.u32s(ents), r.u64s(ents), r.take(blob, 1)
	if r.err != nil {
		return r.err
	}
	if r.at != len(p) || uint64(len(b.offs)) != n || uint64(len(b.types)) != n {
		return wfErr("index: %d bytes after its columns", len(p)-r.at)
	}
	return nil
}

// checkIndex holds what the scan did not check to the entries: each
// type's positions, and the entity column, whose pairs sum to sum.
func (b *fileBase) checkIndex(sum uint64, nents int) error {
	total := 0
	for code, ps := range b.ofType {
		for k, p := range ps {
			if int(p) >= len(b.types) || int(b.types[p]) != code || k > 0 && p <= ps[k-1] {
				return wfErr("index: entry %d listed under type %d", p, code)
			}
		}
		total += len(ps)
	}
	if total != len(b.types) {
		return wfErr("index: %d entries listed by type, of %d", total, len(b.types))
	}
	c := &b.ents
	if len(c.pos) != nents {
		return wfErr("index: %d entities, the entries hold %d", len(c.pos), nents)
	}
	var got uint64
	prev, lo := "", uint64(0)
	for j, pos := range c.pos {
		end := c.ends[j]
		if end < lo || end > uint64(len(c.blob)) {
			return wfErr("index: ident %d ends at %d", j, end)
		}
		name := ""
		if end > lo {
			name = unsafe.String(&c.blob[lo], int(end-lo))
		}
		if int(pos) >= len(b.types) || b.types[pos] != codeEntity {
			return wfErr("index: entity %d at %d, which is none", j, pos)
		}
		if j > 0 {
			if cmp := strings.Compare(name, prev); cmp < 0 || cmp == 0 && pos <= c.pos[j-1] {
				return wfErr("index: entities out of order at %d", j)
			}
		}
		if j == 0 || name != prev {
			c.n++
		}
		got += identMix(name, pos)
		prev, lo = name, end
	}
	if lo != uint64(len(c.blob)) {
		return wfErr("index: %d ident bytes after the last", uint64(len(c.blob))-lo)
	}
	if got != sum {
		return wfErr("index: the entities are not the entries'")
	}
	return nil
}
