// This file holds the persistent chunked vector that relations and fact
// sets keep their rows in (phash.go holds the hash they are found
// through), copy-on-write. Every container version belongs to a generation
// (a number from versionClock); a write under generation g copies the
// chunk, page or trie path it touches unless that part already belongs to g. A
// model or program version writes under its own generation only while it
// is being built, so a new version shares every chunk and page the change
// did not touch with the version it came from, which stays valid and
// unchanged.

package datalog

import (
	"sync/atomic"
	"unsafe"

	"github.com/deloreis/deloreis/base/hugemem"
)

// chunkShift sets the rows per chunk of a pvec (512); wideShift those of
// vectors of wide elements (supports, facts: 128); either is lowered
// until a chunk holds at most chunkBytes (not below minShift). segShift
// sets the rows per segment of a flat vector (65,536).
const (
	chunkShift = 9
	wideShift  = 7
	segShift   = 16
	segMask    = 1<<segShift - 1
	chunkBytes = 1024
	minShift   = 4
)

// pvec is a persistent vector of rows of stride elements, in chunks of
// 1<<shift rows (chunkShift, or less for wide elements, so that copying a
// chunk stays cheap). The last chunk grows by appending, so a small vector
// stays small. The chunks lie in a persistent trie (trie.go), each with
// the generation that owns it, so a write under a new generation copies a
// chunk and one path of the trie, not a spine as long as the vector.
//
// A vector that one generation builds from empty stays flat: its rows lie
// end to end in segments of 1<<segShift rows, read with one lookup in a
// spine small enough to stay in cache, until the first write under another
// generation cuts it into chunks (views of the segments, so nothing is
// copied; their capacity ends where they do, so appending to one copies
// it). The trie it is cut into is kept beside the segments (cache), so
// the many versions staged from one flat base cut it once. Segments, not
// one array, so that growing a large vector never copies it nor leaves the
// old copy as garbage: the peak memory of a big evaluation is its data,
// not twice its data.
type pvec[T any] struct {
	tr     ptrie[*pchunk[T]]
	own    uint64 // the generation that owns segs (flat form)
	stride int
	shift  uint8
	mask   uint32
	isFlat bool
	segs   [][]T // flat form: every segment but the last holds 1<<segShift rows
	spare  []T   // flat form: the rest of the block the last segment came from (nextSeg)
	cache  *trieCache[*pchunk[T]]
	// claim counts the elements claimed in the last chunk's array, shared
	// by every version whose last chunk is that array: a version appends
	// in place when it claims the slots after its own last element, and
	// copies the chunk when another version claimed them first. Slots are
	// written once, by their claimant, so no version sees another's rows.
	claim *atomic.Int64
}

// pchunk is a chunk of a pvec: its rows and the generation that made it,
// which alone may change it (its length, or its rows unless borrowed).
// borrowed says its array is another generation's, appended to in slots
// this one claimed: its rows below are copied before any is rewritten.
type pchunk[T any] struct {
	rows     []T
	gen      uint64
	borrowed bool
}

// chunk returns chunk c; the caller must not write it.
func (p *pvec[T]) chunk(c int) *pchunk[T] { return *p.tr.at(c) }

func newPvec[T any](stride int, gen uint64) pvec[T] {
	return newPvecShift[T](stride, chunkShift, gen)
}

// newPvecShift returns an empty vector of chunks of at most 1<<shift
// rows, fewer where a row is wide, so that a chunk (what a write under a
// new generation copies) stays within chunkBytes.
func newPvecShift[T any](stride int, shift uint8, gen uint64) pvec[T] {
	var x T
	row := int(unsafe.Sizeof(x)) * max(stride, 1)
	for shift > minShift && row<<shift > chunkBytes {
		shift--
	}
	return pvec[T]{stride: stride, own: gen, shift: shift, mask: 1<<shift - 1, isFlat: stride > 0}
}

// unflat cuts a flat vector into chunks for writing under gen.
func (p *pvec[T]) unflat(gen uint64) {
	p.tr = p.cache.get([3]int{p.rows(), len(p.segs)}, p.cut)
	p.own, p.isFlat, p.segs, p.cache, p.spare = gen, false, nil, nil, nil
}

// cut returns the trie of a flat vector's chunks, views of its segments.
func (p *pvec[T]) cut() ptrie[*pchunk[T]] {
	size := (1 << p.shift) * p.stride
	var cs []*pchunk[T]
	for _, s := range p.segs {
		for lo := 0; lo < len(s); lo += size {
			hi := min(lo+size, len(s))
			cs = append(cs, &pchunk[T]{rows: s[lo:hi:hi], gen: p.own})
		}
	}
	return buildTrie(cs, p.own)
}

// flatRoom returns the last segment of a flat vector with room for more
// elements, starting a segment when the last is full. The first segment
// grows by doubling from small; later ones are allocated whole.
func (p *pvec[T]) flatRoom() []T {
	full := (1 << segShift) * p.stride
	n := len(p.segs)
	if n == 0 || len(p.segs[n-1]) == full {
		var seg []T
		if n == 0 {
			seg = make([]T, 0, 8*p.stride)
			p.cache = new(trieCache[*pchunk[T]])
		} else {
			seg = p.nextSeg(n)
		}
		p.segs = append(p.segs, seg)
		return seg
	}
	last := p.segs[n-1]
	if len(last) == cap(last) {
		ns := make([]T, len(last), min(2*cap(last), full))
		copy(ns, last)
		p.segs[n-1] = ns
		return ns
	}
	return last
}

// pvecBlockBytes is the size of the blocks a large flat vector takes its
// segments from.
const pvecBlockBytes = 8 << 20

// nextSeg returns an empty segment to follow the n full ones. Once the
// vector holds four blocks' worth, segments come from blocks of about
// pvecBlockBytes, advised for huge pages (hugemem): each 4 KiB page of a
// fresh segment faulted in on its first write cost more than the rows
// written to it (DL-0493). The block is backed where it is first written,
// a huge page at a time: by the workers of a parallel insert, each its
// own rows, where backing it as it was made left the other core idle. A
// block of a quarter of the vector at most is reserved ahead.
func (p *pvec[T]) nextSeg(n int) []T {
	full := (1 << segShift) * p.stride
	if len(p.spare) == 0 {
		var x T
		segBytes := full * int(unsafe.Sizeof(x))
		if segBytes == 0 || n*segBytes < 4*pvecBlockBytes {
			return make([]T, 0, full)
		}
		p.spare = hugemem.MakeUnbacked[T](max(1, pvecBlockBytes/segBytes) * full)
	}
	seg := p.spare[:0:full]
	p.spare = p.spare[full:]
	return seg
}

// pushFlat appends whole rows to a flat vector.
func (p *pvec[T]) pushFlat(rows []T) {
	for len(rows) > 0 {
		last := p.flatRoom()
		k := min(len(rows), cap(last)-len(last))
		p.segs[len(p.segs)-1] = append(last, rows[:k]...)
		rows = rows[k:]
	}
}

// extendFlat appends m rows to a flat vector, their elements to be
// written through slice: the rows a batch inserts in parallel
// (parinsert.go).
func (p *pvec[T]) extendFlat(m int) {
	for n := m * p.stride; n > 0; {
		last := p.flatRoom()
		k := min(n, cap(last)-len(last))
		p.segs[len(p.segs)-1] = last[:len(last)+k]
		n -= k
	}
}

// adoptFlat makes an empty flat vector hold rows, whole rows end to end,
// as views of their array: nothing is copied. Each segment's capacity
// ends where it does, so appending past one copies it.
func (p *pvec[T]) adoptFlat(rows []T) {
	full := (1 << segShift) * p.stride
	if len(rows) > 0 && p.cache == nil {
		p.cache = new(trieCache[*pchunk[T]])
	}
	for len(rows) > 0 {
		k := min(len(rows), full)
		p.segs = append(p.segs, rows[:k:k])
		rows = rows[k:]
	}
}

// rows returns the number of rows.
func (p *pvec[T]) rows() int {
	if p.isFlat {
		if len(p.segs) == 0 {
			return 0
		}
		return (len(p.segs)-1)<<segShift + len(p.segs[len(p.segs)-1])/p.stride
	}
	if p.tr.n == 0 {
		return 0
	}
	last := len(p.chunk(p.tr.n - 1).rows)
	if p.stride > 1 {
		last /= p.stride
	}
	return (p.tr.n-1)<<p.shift + last
}

// get returns element i of a stride-1 vector.
func (p *pvec[T]) get(i uint32) T {
	if p.isFlat {
		return p.segs[i>>segShift][i&segMask]
	}
	return p.chunk(int(i >> p.shift)).rows[i&p.mask]
}

// slice returns row i (stride elements); the caller must not write it.
func (p *pvec[T]) slice(i uint32) []T {
	if p.isFlat {
		o := int(i&segMask) * p.stride
		return p.segs[i>>segShift][o : o+p.stride : o+p.stride]
	}
	o := int(i&p.mask) * p.stride
	return p.chunk(int(i >> p.shift)).rows[o : o+p.stride : o+p.stride]
}

// owned returns chunk c for writing under gen, its rows copied first
// unless they belong to gen.
func (p *pvec[T]) owned(c int, gen uint64) *pchunk[T] {
	ref := p.tr.ref(c, gen)
	pc := *ref
	if pc.gen != gen || pc.borrowed {
		v := make([]T, len(pc.rows), max(cap(pc.rows), len(pc.rows)+p.stride))
		copy(v, pc.rows)
		pc = &pchunk[T]{rows: v, gen: gen}
		*ref = pc
		if c == p.tr.n-1 {
			p.claim = new(atomic.Int64)
			p.claim.Store(int64(len(v)))
		}
	}
	return pc
}

// set writes element i of a stride-1 vector.
func (p *pvec[T]) set(i uint32, x T, gen uint64) {
	if p.isFlat {
		if p.own == gen {
			p.segs[i>>segShift][i&segMask] = x
			return
		}
		p.unflat(gen)
	}
	p.owned(int(i>>p.shift), gen).rows[i&p.mask] = x
}

// chunkCap is the initial capacity of chunk c: the first grows from small,
// the others are allocated whole.
func (p *pvec[T]) chunkCap(c int) int {
	if c == 0 {
		return 8 * max(p.stride, 1)
	}
	return (1 << p.shift) * max(p.stride, 1)
}

// push appends row i, which must be the row after the last one.
func (p *pvec[T]) push(i uint32, row []T, gen uint64) {
	if p.isFlat {
		if p.own == gen {
			p.pushFlat(row)
			return
		}
		p.unflat(gen)
	}
	pc := p.tailRoom(int(i>>p.shift), len(row), gen)
	pc.rows = append(pc.rows, row...)
}

// tailRoom returns chunk c, the last or the one after it, with room for k
// more elements that this version has claimed: in place when the slots
// after its last element are free in the chunk's array (whatever
// generation made it), else in a copy of the chunk.
func (p *pvec[T]) tailRoom(c, k int, gen uint64) *pchunk[T] {
	if c == p.tr.n {
		p.tr.push(&pchunk[T]{rows: make([]T, 0, p.chunkCap(c)), gen: gen}, gen)
		p.claim = new(atomic.Int64)
	}
	ref := p.tr.ref(c, gen)
	pc := *ref
	l := len(pc.rows)
	if l+k <= cap(pc.rows) && p.claim != nil && p.claim.CompareAndSwap(int64(l), int64(l+k)) {
		if pc.gen != gen {
			pc = &pchunk[T]{rows: pc.rows, gen: gen, borrowed: true}
			*ref = pc
		}
		return pc
	}
	// Room for a quarter more, so that a chain of versions each adding a
	// row copies a chunk once in a while, not each time.
	full := (1 << p.shift) * max(p.stride, 1)
	v := make([]T, l, max(l+k, min(l+k+max(l/4, 4*p.stride), full)))
	copy(v, pc.rows)
	pc = &pchunk[T]{rows: v, gen: gen}
	*ref = pc
	p.claim = new(atomic.Int64)
	p.claim.Store(int64(l + k))
	return pc
}

// pushFill appends elements from to to-1 of a stride-1 vector, each x, a
// chunk (or, flat, up to a segment) at a time.
func (p *pvec[T]) pushFill(from, to int, x T, gen uint64) {
	var buf []T
	for from < to {
		n := min(to-from, 1<<segShift)
		if !p.isFlat || p.own != gen {
			n = min(n, 1<<p.shift-from&int(p.mask))
		}
		if len(buf) < n {
			buf = make([]T, n)
			for k := range buf {
				buf[k] = x
			}
		}
		p.push(uint32(from), buf[:n], gen)
		from += n
	}
}

// push1 appends element i of a stride-1 vector.
func (p *pvec[T]) push1(i uint32, x T, gen uint64) {
	if p.isFlat {
		if p.own == gen {
			last := p.flatRoom()
			p.segs[len(p.segs)-1] = append(last, x)
			return
		}
		p.unflat(gen)
	}
	pc := p.tailRoom(int(i>>p.shift), 1, gen)
	pc.rows = append(pc.rows, x)
}
