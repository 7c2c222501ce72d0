// This file tests what a write under a new generation costs a pvec and a
// phash of a large table: one chunk or page and one trie path, so about
// the same bytes at 20 thousand elements as at 2 million, and that the
// versions it leaves (the one written from, and siblings written from the
// same one) each keep exactly their own elements.

package datalog

import (
	"math"
	"runtime"
	"testing"
)

// allocated returns the least bytes f allocated over five runs (other
// goroutines' allocations then do not count).
func allocated(f func()) uint64 {
	best := uint64(math.MaxUint64)
	for range 5 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		best = min(best, after.TotalAlloc-before.TotalAlloc)
	}
	return best
}

// flatVec returns a flat vector of n elements (element i is i) built
// under a generation of its own.
func flatVec(n int) pvec[uint32] {
	g := versionClock.Add(1)
	v := newPvec[uint32](1, g)
	for i := range n {
		v.push1(uint32(i), uint32(i), g)
	}
	return v
}

func TestPvecWriteCost(t *testing.T) {
	const branchBound, chainBound, deeper = 3 << 10, 2 << 10, 512
	// The same remainder modulo a chunk of 256, so that the last chunk a
	// write from the base copies holds as many elements at both sizes.
	sizes := []int{20_000, 1_999_904}
	var branch, chain [2]uint64
	for k, n := range sizes {
		base := flatVec(n)
		warm := base
		warm.push1(uint32(n), 0, versionClock.Add(1)) // cuts base once
		// From the base: a copy of the (clipped) last chunk and a path.
		branch[k] = allocated(func() {
			v := base
			v.push1(uint32(n), 1, versionClock.Add(1))
		})
		// Chained: each version appends in place after the last and
		// copies one path.
		v := base
		const steps = 200
		var total uint64
		for i := range steps {
			total += allocated(func() {
				w := v
				w.push1(uint32(n+i), uint32(n+i), versionClock.Add(1))
			})
			v.push1(uint32(n+i), uint32(n+i), versionClock.Add(1))
		}
		chain[k] = total / steps
		if branch[k] > branchBound || chain[k] > chainBound {
			t.Errorf("%d elements: %d bytes a write from the base (bound %d), %d a write chained (bound %d)",
				n, branch[k], branchBound, chain[k], chainBound)
		}
		if base.rows() != n || v.rows() != n+steps {
			t.Fatalf("rows: base %d, chain %d", base.rows(), v.rows())
		}
		for i := range n + steps {
			if i < n && base.get(uint32(i)) != uint32(i) || v.get(uint32(i)) != uint32(i) {
				t.Fatalf("%d elements: element %d changed", n, i)
			}
		}
		t.Logf("%d elements: %d bytes a write from the base, %d chained", n, branch[k], chain[k])
	}
	if branch[1] > branch[0]+deeper || chain[1] > chain[0]+deeper {
		t.Errorf("a write costs %d/%d bytes at %d elements, %d/%d at %d: more than a trie level more",
			branch[0], chain[0], sizes[0], branch[1], chain[1], sizes[1])
	}
}

// TestPvecSiblingAppends: versions appending to one version each claim
// the slots after it or copy; none sees another's elements, whatever the
// form (flat, chunked) and the generation that made the last chunk.
func TestPvecSiblingAppends(t *testing.T) {
	cases := []struct {
		name string
		n    int
		cut  bool // the parent was written under another generation first
	}{
		{"flat parent", 1000, false},
		{"chunked parent", 1000, true},
		{"parent at a chunk boundary", 1024, true},
		{"empty parent", 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := flatVec(tc.n)
			if tc.cut {
				p.push1(uint32(tc.n), uint32(tc.n), versionClock.Add(1))
			}
			n := p.rows()
			kids := make([]pvec[uint32], 4)
			for k := range kids {
				kids[k] = p
				g := versionClock.Add(1)
				for j := range 3 {
					kids[k].push1(uint32(n+j), uint32(1000_000*(k+1)+j), g)
				}
			}
			for k, c := range kids {
				for j := range 3 {
					if got, want := c.get(uint32(n+j)), uint32(1000_000*(k+1)+j); got != want {
						t.Errorf("sibling %d: element %d = %d, want %d", k, n+j, got, want)
					}
				}
			}
			if p.rows() != n {
				t.Errorf("the parent has %d rows, want %d", p.rows(), n)
			}
		})
	}
}

func TestPhashWriteCost(t *testing.T) {
	const bound, deeper = 6 << 10, 512
	sizes := []int{200_000, 1_000_000}
	tag := func(i int) uint32 { return uint32(i) * 2654435761 }
	var got [2]uint64
	for k, n := range sizes {
		g := versionClock.Add(1)
		h := newPhash(g)
		for i := range n {
			h.add(tag(i), uint32(i), g)
		}
		warm := h
		warm.add(tag(n), uint32(n), versionClock.Add(1)) // cuts h once
		var d phash
		got[k] = allocated(func() {
			d = h
			d.add(tag(n+1), uint32(n+1), versionClock.Add(1))
		})
		if got[k] > bound {
			t.Errorf("%d entries: %d bytes for a write under a new generation, over %d", n, got[k], bound)
		}
		if phashHas(&h, tag(n+1), uint32(n+1)) || !phashHas(&d, tag(n+1), uint32(n+1)) || phashHas(&d, tag(n), uint32(n)) {
			t.Errorf("%d entries: a version sees another's entry", n)
		}
		t.Logf("%d entries, pages of %d: %d bytes a write under a new generation", n, 1<<h.fk, got[k])
	}
	if got[1] > got[0]+deeper {
		t.Errorf("a write costs %d bytes at %d entries, %d at %d: more than a trie level more", got[0], sizes[0], got[1], sizes[1])
	}
}
