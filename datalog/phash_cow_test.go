// This file tests what the first write under a new generation costs a
// flat phash: it copies one page and the directory, so the pages of a
// table of S slots hold about the square root of S slots (at most
// hpageMax), and that write allocates O(sqrt S) bytes, not a fixed 8 KB
// page nor the table; the old generation keeps every entry and gains none.

package datalog

import (
	"math"
	"runtime"
	"testing"
)

// phashHas reports whether h holds value v under tag.
func phashHas(h *phash, tag, v uint32) bool {
	_, pg := h.page(tag)
	mask := uint32(len(pg) - 1)
	for s := tag & mask; pg[s] != 0; s = (s + 1) & mask {
		if pg[s] == uint64(tag)<<32|uint64(v+1) {
			return true
		}
	}
	return false
}

func TestPhashCopyOnWriteCost(t *testing.T) {
	cases := []struct {
		name string
		n    int
	}{
		{"tiny", 50},
		{"one page of old", 3000},
		{"mid", 40_000},
		{"past the page cap", 300_000},
	}
	tag := func(i int) uint32 { return uint32(i) * 2654435761 }
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g1 := versionClock.Add(1)
			h := newPhash(g1)
			for i := range tc.n {
				h.add(tag(i), uint32(i), g1)
			}
			if h.segs == nil {
				t.Fatal("a hash built by one generation is not flat")
			}
			slots := h.slots()
			root := math.Sqrt(float64(slots))
			if p := 1 << h.fk; float64(p) > max(hpageMin, 4*root) || p > hpageMax {
				t.Errorf("%d slots: pages of %d slots, over 4·sqrt or hpageMax", slots, p)
			}

			// One page (maybe doubled) plus a directory of 37 bytes a page:
			// at most about 64·sqrt(slots). The least of a few runs, so
			// that allocations elsewhere in the process do not count.
			var d phash
			newTag := tag(tc.n)
			got := uint64(math.MaxUint64)
			for range 5 {
				g2 := versionClock.Add(1)
				d = h
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				d.add(newTag, uint32(tc.n), g2)
				runtime.ReadMemStats(&after)
				got = min(got, after.TotalAlloc-before.TotalAlloc)
			}
			if bound := 64*root + 1024; float64(got) > bound {
				t.Errorf("%d slots: the first write under a new generation allocated %d bytes, over %.0f", slots, got, bound)
			}
			t.Logf("%d entries, %d slots, pages of %d: %d bytes for the first write under a new generation", tc.n, slots, 1<<h.fk, got)

			if phashHas(&h, newTag, uint32(tc.n)) || h.n != tc.n {
				t.Error("the old generation sees the new entry")
			}
			if !phashHas(&d, newTag, uint32(tc.n)) || d.n != tc.n+1 {
				t.Error("the new generation misses its entry")
			}
			for i := range tc.n {
				if !phashHas(&h, tag(i), uint32(i)) || !phashHas(&d, tag(i), uint32(i)) {
					t.Fatalf("entry %d lost", i)
				}
			}
		})
	}
}
