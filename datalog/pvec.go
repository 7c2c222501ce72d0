// This file holds the persistent chunked vector that relations and fact
// sets keep their rows in (phash.go holds the hash they are found
// through), copy-on-write. Every container version belongs to a generation
// (a number from versionClock); a write under generation g copies the
// chunk, page or spine it touches unless that part already belongs to g. A
// model or program version writes under its own generation only while it
// is being built, so a new version shares every chunk and page the change
// did not touch with the version it came from, which stays valid and
// unchanged.

package datalog

import "slices"

// chunkShift sets the rows per chunk of a pvec (512); wideShift those of
// vectors of wide elements (supports, facts: 128). segShift sets the rows
// per segment of a flat vector (65,536).
const (
	chunkShift = 9
	wideShift  = 7
	segShift   = 16
	segMask    = 1<<segShift - 1
)

// pvec is a persistent vector of rows of stride elements, in chunks of
// 1<<shift rows (chunkShift, or less for wide elements, so that copying a
// chunk stays cheap). The last chunk grows by appending, so a small vector
// stays small. gens[c] is the generation that owns chunk c.
//
// A vector that one generation builds from empty stays flat: its rows lie
// end to end in segments of 1<<segShift rows, read with one lookup in a
// spine small enough to stay in cache, until the first write under another
// generation cuts it into chunks (views of the segments, so nothing is
// copied; their capacity ends where they do, so appending to one copies
// it). Segments, not one array, so that growing a large vector never
// copies it nor leaves the old copy as garbage: the peak memory of a big
// evaluation is its data, not twice its data.
type pvec[T any] struct {
	chunks [][]T
	gens   []uint64
	own    uint64 // the generation that owns the chunks and gens slices (and segs)
	stride int
	shift  uint8
	mask   uint32
	isFlat bool
	segs   [][]T // flat form: every segment but the last holds 1<<segShift rows
}

func newPvec[T any](stride int, gen uint64) pvec[T] {
	return newPvecShift[T](stride, chunkShift, gen)
}

func newPvecShift[T any](stride int, shift uint8, gen uint64) pvec[T] {
	return pvec[T]{stride: stride, own: gen, shift: shift, mask: 1<<shift - 1, isFlat: stride > 0}
}

// unflat cuts a flat vector into chunks for writing under gen.
func (p *pvec[T]) unflat(gen uint64) {
	size := (1 << p.shift) * p.stride
	n := 0
	for _, s := range p.segs {
		n += (len(s) + size - 1) / size
	}
	p.chunks, p.gens = make([][]T, 0, n), make([]uint64, 0, n)
	for _, s := range p.segs {
		for lo := 0; lo < len(s); lo += size {
			hi := min(lo+size, len(s))
			p.chunks, p.gens = append(p.chunks, s[lo:hi:hi]), append(p.gens, p.own)
		}
	}
	p.own, p.isFlat, p.segs = gen, false, nil
}

// flatRoom returns the last segment of a flat vector with room for more
// elements, starting a segment when the last is full. The first segment
// grows by doubling from small; later ones are allocated whole.
func (p *pvec[T]) flatRoom() []T {
	full := (1 << segShift) * p.stride
	n := len(p.segs)
	if n == 0 || len(p.segs[n-1]) == full {
		c := full
		if n == 0 {
			c = 8 * p.stride
		}
		p.segs = append(p.segs, make([]T, 0, c))
		return p.segs[n]
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

// pushFlat appends whole rows to a flat vector.
func (p *pvec[T]) pushFlat(rows []T) {
	for len(rows) > 0 {
		last := p.flatRoom()
		k := min(len(rows), cap(last)-len(last))
		p.segs[len(p.segs)-1] = append(last, rows[:k]...)
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
	if len(p.chunks) == 0 {
		return 0
	}
	last := len(p.chunks[len(p.chunks)-1])
	if p.stride > 1 {
		last /= p.stride
	}
	return (len(p.chunks)-1)<<p.shift + last
}

// get returns element i of a stride-1 vector.
func (p *pvec[T]) get(i uint32) T {
	if p.isFlat {
		return p.segs[i>>segShift][i&segMask]
	}
	return p.chunks[i>>p.shift][i&p.mask]
}

// at returns element i of a stride-1 vector by reference; the caller must
// not write through it.
func (p *pvec[T]) at(i uint32) *T {
	if p.isFlat {
		return &p.segs[i>>segShift][i&segMask]
	}
	return &p.chunks[i>>p.shift][i&p.mask]
}

// slice returns row i (stride elements); the caller must not write it.
func (p *pvec[T]) slice(i uint32) []T {
	if p.isFlat {
		o := int(i&segMask) * p.stride
		return p.segs[i>>segShift][o : o+p.stride : o+p.stride]
	}
	o := int(i&p.mask) * p.stride
	return p.chunks[i>>p.shift][o : o+p.stride : o+p.stride]
}

// ownSpine makes the chunks and gens slices gen's.
func (p *pvec[T]) ownSpine(gen uint64) {
	if p.own != gen {
		p.chunks, p.gens, p.own = slices.Clone(p.chunks), slices.Clone(p.gens), gen
	}
}

// owned returns chunk c, copied first unless it belongs to gen.
func (p *pvec[T]) owned(c int, gen uint64) []T {
	if p.gens[c] == gen && p.own == gen {
		return p.chunks[c]
	}
	p.ownSpine(gen)
	if p.gens[c] != gen {
		ch := p.chunks[c]
		v := make([]T, len(ch), max(cap(ch), len(ch)+p.stride))
		copy(v, ch)
		p.chunks[c], p.gens[c] = v, gen
	}
	return p.chunks[c]
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
	p.owned(int(i>>p.shift), gen)[i&p.mask] = x
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
	c := int(i >> p.shift)
	if c == len(p.chunks) {
		p.ownSpine(gen)
		p.chunks = append(p.chunks, make([]T, 0, p.chunkCap(c)))
		p.gens = append(p.gens, gen)
	}
	p.chunks[c] = append(p.owned(c, gen), row...)
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
	c := int(i >> p.shift)
	if c == len(p.chunks) {
		p.ownSpine(gen)
		p.chunks = append(p.chunks, make([]T, 0, p.chunkCap(c)))
		p.gens = append(p.gens, gen)
	}
	p.chunks[c] = append(p.owned(c, gen), x)
}
