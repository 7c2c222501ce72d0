// The index section of a world file (format v5, DL-0400): where each
// entry of the entries section starts and what it is, each part's
// interned strings, each type's entries, and the entities sorted by
// ident. A world read in place (worldfile_lazy.go) uses these columns
// where they are mapped instead of building them on the heap at every
// open, so that its resident memory grows with what a session reads.
//
// The writer builds the section by scanning the entries it has just
// written (the scan an open runs, with no index), so the scan alone
// decides what an index says; it streams each part's columns out as the
// part's scan ends. An open scans the entries again, as before, and holds
// every column to what the scan finds; a column that disagrees refuses
// the file. The entities are checked without reading any record out of
// order: their column holds the idents themselves, which must be sorted,
// and its (ident, position) pairs must sum, under a hash seeded afresh by
// each process, to what the records' pairs sum to.
//
// Layout (little-endian, every column padded to 8 bytes):
//
//	count u64 | parts u64 | type codes u64
//	per part: n u64, offsets u32[n], m u64, where its interned strings'
//	  fields start u32[m]
//	types u8[count]
//	per type code: n u64, positions u32[n]
//	entities u64 | ident bytes u64 | positions u32[entities] |
//	  ident ends u64[entities] | idents

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

	"github.com/deloreis/deloreis/world"
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
	size := 0
	for _, r := range refs {
		size += len(r.name)
	}
	blob := make([]byte, 0, size)
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

// writeIndexOf writes the index of the entries section p as a section's
// payload and returns the bytes written. It scans p as an open does, with
// no index (so the scan alone decides what the index says), streaming
// each part's offsets and interned strings out as its scan ends: what it
// holds is a byte per entry and the entities (DL-0400). It returns too
// what an open of the section with this index takes from a scan
// (openWrittenBase).
func writeIndexOf(p []byte, w io.Writer, release func([]byte)) (int64, scanNotes, error) {
	notes := newScanNotes()
	b, err := newFileBase(p, false)
	if err != nil {
		return 0, notes, err
	}
	iw := &indexWriter{bw: bufio.NewWriterSize(w, 1<<20), raw: make([]byte, 0, 4096)}
	for _, v := range []int{b.count, len(b.starts) - 1, len(typeCodes)} {
		iw.u64(uint64(v))
	}
	var refs []entityRef
	err = b.scanAll(release, func(k int, r *partResult) error {
		iw.u64(uint64(len(r.offs)))
		iw.u32s(r.offs)
		n := 0
		for _, c := range r.intern {
			n += len(c)
		}
		iw.u64(uint64(n))
		for _, c := range r.intern {
			iw.u32sRaw(c)
		}
		iw.pad()
		refs = append(refs, r.refs...)
		notes.note(r)
		return nil
	})
	if err != nil {
		return 0, notes, err
	}
	iw.put(b.types)
	iw.pad()
	iw.typeLists(b.types)
	ents := sortedIdents(refs)
	iw.u64(uint64(len(ents.pos)))
	iw.u64(uint64(len(ents.blob)))
	iw.u32s(ents.pos)
	for _, e := range ents.ends {
		iw.u64(e)
	}
	iw.put(ents.blob)
	iw.pad()
	return iw.n, notes, iw.bw.Flush()
}

// scanNotes is what a scan of an entries section finds beside its index:
// the facts under each key of world.KeysFiled, and the entities' count
// and sum (checkIndex).
type scanNotes struct {
	keyed map[string][]int
	sum   uint64
	nents int
}

func newScanNotes() scanNotes { return scanNotes{keyed: make(map[string][]int, len(world.KeysFiled))} }

// note adds what the scan of a part found, parts in order.
func (n *scanNotes) note(r *partResult) {
	for j, key := range world.KeysFiled {
		n.keyed[key] = append(n.keyed[key], r.keyed[j]...)
	}
	n.sum, n.nents = n.sum+r.sum, n.nents+r.nents
}

// indexWriter writes an index section's columns, each padded to 8 bytes.
type indexWriter struct {
	bw  *bufio.Writer
	n   int64
	raw []byte
}

func (iw *indexWriter) put(p []byte) {
	iw.bw.Write(p)
	iw.n += int64(len(p))
}

func (iw *indexWriter) u64(v uint64) { iw.put(binary.LittleEndian.AppendUint64(iw.raw[:0], v)) }

func (iw *indexWriter) pad() { iw.put(make([]byte, pad8(int(iw.n%8)))) }

// u32sRaw writes a part of a column, unpadded.
func (iw *indexWriter) u32sRaw(vs []uint32) {
	for len(vs) > 0 {
		k := min(len(vs), 1024)
		raw := iw.raw[:0]
		for _, v := range vs[:k] {
			raw = binary.LittleEndian.AppendUint32(raw, v)
		}
		iw.put(raw)
		iw.raw, vs = raw, vs[k:]
	}
}

func (iw *indexWriter) u32s(vs []uint32) {
	iw.u32sRaw(vs)
	iw.pad()
}

// typeLists writes each type's entries, streamed from the types: the
// lists of 10M entries are 40 MB a writer need not hold.
func (iw *indexWriter) typeLists(types []uint8) {
	var counts [256]int
	for _, code := range types {
		counts[code]++
	}
	buf := make([]uint32, 0, 1<<12)
	for code := range typeCodes {
		iw.u64(uint64(counts[code]))
		if counts[code] == 0 {
			continue // most types: no pass over the types for them
		}
		for i, c := range types {
			if int(c) == code {
				if buf = append(buf, uint32(i)); len(buf) == cap(buf) {
					iw.u32sRaw(buf)
					buf = buf[:0]
				}
			}
		}
		iw.u32s(buf)
		buf = buf[:0]
	}
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
func (b *fileBase) readIndex(p []byte) error {
	r := &colReader{p: p}
	nparts := len(b.starts) - 1
	n, parts, types := r.u64(), r.u64(), r.u64()
	if r.err == nil && (n != uint64(b.count) || parts != uint64(nparts) || types != uint64(len(typeCodes))) {
		return wfErr("index of %d entries in %d parts, %d types: the section has %d in %d", n, parts, types, b.count, nparts)
	}
	b.offs, b.intern = make([][]uint32, nparts), make([][]uint32, nparts)
	for k := range nparts {
		if m := r.u64(); r.err == nil && m != uint64(min(b.count-k*b.size, b.size)) {
			return wfErr("index: part %d of %d entries", k, m)
		}
		b.offs[k] = r.u32s(uint64(min(b.count-k*b.size, b.size)))
		b.intern[k] = r.u32s(r.u64())
	}
	b.types = r.u8s(n)
	b.ofType = make([][]uint32, types)
	for t := range b.ofType {
		b.ofType[t] = r.u32s(r.u64())
	}
	ents, blob := r.u64(), r.u64()
	b.ents.pos, b.ents.ends, b.ents.blob = r.u32s(ents), r.u64s(ents), r.take(blob, 1)
	if r.err != nil {
		return r.err
	}
	if r.at != len(p) || uint64(len(b.types)) != n {
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
