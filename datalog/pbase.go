// This file holds the stored supports a snapshot gave a relation
// (DL-0402): three columns, read in place when the snapshot is aliased,
// whose supports are decoded a chunk at a time when first read. A
// restored model of millions of rows with supports of their own then
// holds none of them on the heap until it reads them; supports stored
// after the load go to the relation's pstore, above the base's handles.

package datalog

import (
	"slices"
	"sync/atomic"
)

// polyBase is the stored supports of a relation as a snapshot held them,
// never written: support k's monomials are monos[k] to monos[k+1], and
// monomial j's literals are lit[litAt[j]:litAt[j+1]].
type polyBase struct {
	monos  []uint32
	litAt  []uint32
	lit    []uint32
	chunks []atomic.Pointer[[]ipoly]
}

// polyChunkBits sets the supports decoded at once.
const polyChunkBits = 8

// len is the number of supports; zero for nil.
func (b *polyBase) len() int {
	if b == nil {
		return 0
	}
	return len(b.monos) - 1
}

// get returns support k; the caller must not write it.
func (b *polyBase) get(k uint32) ipoly {
	c := k >> polyChunkBits
	ch := b.chunks[c].Load()
	if ch == nil {
		ch = b.decode(c)
	}
	return (*ch)[k&(1<<polyChunkBits-1)]
}

// decode decodes chunk c. Two readers may decode it at once; the first
// to store it wins, and both return that one. Monomials are views of the
// literal column, capped so that an append copies.
func (b *polyBase) decode(c uint32) *[]ipoly {
	lo := int(c) << polyChunkBits
	hi := min(lo+1<<polyChunkBits, b.len())
	ms := make([]mono, b.monos[hi]-b.monos[lo])
	polys := make([]ipoly, hi-lo)
	base := b.monos[lo]
	for k := lo; k < hi; k++ {
		m0, m1 := b.monos[k]-base, b.monos[k+1]-base
		if m0 == m1 {
			continue // zero: nil
		}
		q := ms[m0:m1:m1]
		for i := range q {
			j := b.monos[k] + uint32(i)
			lits := b.lit[b.litAt[j]:b.litAt[j+1]:b.litAt[j+1]]
			q[i] = mono{sig: sigOf(lits), lits: lits}
		}
		polys[k-lo] = q
	}
	if b.chunks[c].CompareAndSwap(nil, &polys) {
		return &polys
	}
	return b.chunks[c].Load()
}

// readPolyBase reads the columns writeProvenance writes and checks them:
// offsets that start at zero, never fall and end at their column's end,
// literals below nlits, each monomial's in order. It returns nil for no
// supports.
func readPolyBase(r *snapReader, nlits int) *polyBase {
	b := &polyBase{monos: r.u32s(r.n(4)), litAt: r.u32s(r.n(4)), lit: r.u32s(r.n(4))}
	if r.err != nil {
		return nil
	}
	if !offsetsOver(b.monos, len(b.litAt)-1) || !offsetsOver(b.litAt, len(b.lit)) {
		r.fail("stored supports out of place")
		return nil
	}
	for _, l := range b.lit {
		if int(l) >= nlits {
			r.fail("literal %d of %d in a stored support", l, nlits)
			return nil
		}
	}
	for j := range len(b.litAt) - 1 {
		if !slices.IsSorted(b.lit[b.litAt[j]:b.litAt[j+1]]) {
			r.fail("monomial out of order")
			return nil
		}
	}
	if b.len() == 0 {
		return nil
	}
	b.chunks = make([]atomic.Pointer[[]ipoly], (b.len()+1<<polyChunkBits-1)>>polyChunkBits)
	return b
}

// offsetsOver reports whether offs are the bounds of consecutive spans
// covering 0..end: at least one, from zero, never falling, to end.
func offsetsOver(offs []uint32, end int) bool {
	if len(offs) == 0 || offs[0] != 0 || end < 0 || int(offs[len(offs)-1]) != end {
		return false
	}
	for i := 1; i < len(offs); i++ {
		if offs[i] < offs[i-1] {
			return false
		}
	}
	return true
}

// writePolyColumns writes the supports of r's handles polyStored and up,
// in handle order, as the columns readPolyBase reads: three passes over
// them, nothing buffered.
func writePolyColumns(s *snapWriter, r *relation) {
	n := r.storedLen()
	column := func(count int, each func(put func(uint32))) {
		s.n(count)
		s.align(4)
		each(func(x uint32) { s.u32(x) })
	}
	var nmonos, nlits int
	for k := range n {
		q := r.stored(uint32(k))
		nmonos += len(q)
		for _, m := range q {
			nlits += len(m.lits)
		}
	}
	column(n+1, func(put func(uint32)) {
		at := uint32(0)
		put(0)
		for k := range n {
			at += uint32(len(r.stored(uint32(k))))
			put(at)
		}
	})
	column(nmonos+1, func(put func(uint32)) {
		at := uint32(0)
		put(0)
		for k := range n {
			for _, m := range r.stored(uint32(k)) {
				at += uint32(len(m.lits))
				put(at)
			}
		}
	})
	column(nlits, func(put func(uint32)) {
		for k := range n {
			for _, m := range r.stored(uint32(k)) {
				for _, l := range m.lits {
					put(l)
				}
			}
		}
	})
}
