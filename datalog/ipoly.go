// This file holds the internal polynomial: monomials are sorted sets of
// literal ids with a 64-bit signature (bit id%64 set for each literal), a
// sparse bitset that rejects most subset tests with one AND. Monomials are
// carved from append-only arenas and never written after creation.

package datalog

import (
	"slices"
)

// mono is one monomial: sorted literal ids and their signature.
type mono struct {
	sig  uint64
	lits []uint32
}

// ipoly is an absorbed set of monomials; nil is zero. Order is internal.
type ipoly []mono

// ipolyOne is the unconditional polynomial.
var ipolyOne = ipoly{{}}

func (p ipoly) isOne() bool { return len(p) == 1 && len(p[0].lits) == 0 }

func sigOf(lits []uint32) uint64 {
	var s uint64
	for _, l := range lits {
		s |= 1 << (l & 63)
	}
	return s
}

// subset reports whether a ⊆ b.
func (a mono) subset(b mono) bool {
	if len(a.lits) > len(b.lits) || a.sig&^b.sig != 0 {
		return false
	}
	j := 0
	for _, x := range a.lits {
		for j < len(b.lits) && b.lits[j] < x {
			j++
		}
		if j == len(b.lits) || b.lits[j] != x {
			return false
		}
		j++
	}
	return true
}

// cmpMonoIDs orders by length, then by literal ids (an internal order).
func cmpMonoIDs(a, b mono) int {
	if len(a.lits) != len(b.lits) {
		return cmpInt(len(a.lits), len(b.lits))
	}
	return slices.Compare(a.lits, b.lits)
}

// unionInto appends the sorted union of a and b to dst.
func unionInto(dst, a, b []uint32) []uint32 {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			dst = append(dst, a[i])
			i++
		case a[i] > b[j]:
			dst = append(dst, b[j])
			j++
		default:
			dst = append(dst, a[i])
			i++
			j++
		}
	}
	dst = append(dst, a[i:]...)
	return append(dst, b[j:]...)
}

// absorbList sorts ms and drops every monomial that is a superset of (or
// equal to) an earlier one. It reuses ms.
func absorbList(ms []mono) ipoly {
	if len(ms) == 0 {
		return nil
	}
	slices.SortFunc(ms, cmpMonoIDs)
	kept := ms[:0]
	for _, m := range ms {
		absorbed := false
		for _, k := range kept {
			if k.subset(m) {
				absorbed = true
				break
			}
		}
		if !absorbed {
			kept = append(kept, m)
		}
	}
	return ipoly(kept)
}

// arena hands out immutable literal slices from large chunks.
type arena struct {
	lits []uint32
}

const arenaChunk = 1 << 14

func (a *arena) copyLits(src []uint32) []uint32 {
	if len(src) == 0 {
		return nil
	}
	if len(a.lits)+len(src) > cap(a.lits) {
		// Chunks double from small up to arenaChunk, so that a model
		// built incrementally, which copies few monomials, stays small.
		a.lits = make([]uint32, 0, max(min(2*cap(a.lits), arenaChunk), 64, len(src)))
	}
	n := len(a.lits)
	a.lits = append(a.lits, src...)
	return a.lits[n : n+len(src) : n+len(src)]
}

// canonKey renders a monomial's literals sorted by name, for the canonical
// order that decides which monomials a cut keeps.
func canonKey(m mono, info litList) []string {
	s := make([]string, len(m.lits))
	for i, l := range m.lits {
		s[i] = info.name(l)
	}
	slices.Sort(s)
	return s
}

// tmono is a monomial tagged with whether it is new this round.
type tmono struct {
	mono
	fresh bool
}

// cutPoly keeps the n smallest monomials of an absorbed list: fewest
// literals first, ties broken by the canonical (rendered) order. It reports
// whether anything was dropped. ms is reordered.
func cutPoly(ms []tmono, n int, info litList) ([]tmono, bool) {
	if len(ms) <= n {
		return ms, false
	}
	slices.SortStableFunc(ms, func(a, b tmono) int { return cmpInt(len(a.lits), len(b.lits)) })
	bl := len(ms[n-1].lits)
	lo := n - 1
	for lo > 0 && len(ms[lo-1].lits) == bl {
		lo--
	}
	hi := n
	for hi < len(ms) && len(ms[hi].lits) == bl {
		hi++
	}
	if hi > n {
		class := ms[lo:hi]
		keys := make([][]string, len(class))
		for i, m := range class {
			keys[i] = canonKey(m.mono, info)
		}
		idx := make([]int, len(class))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return slices.Compare(keys[a], keys[b]) })
		sorted := make([]tmono, len(class))
		for i, j := range idx {
			sorted[i] = class[j]
		}
		copy(class, sorted)
	}
	return ms[:n], true
}
