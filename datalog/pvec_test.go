package datalog

import "testing"

// TestPvecPushFill: filling runs across chunk boundaries, flat and
// chunked, gives every element its value and leaves the version it was
// derived from as it was.
func TestPvecPushFill(t *testing.T) {
	cases := []struct {
		name           string
		built, to      int
		sameGeneration bool
	}{
		{"flat", 700, 3000, true},
		{"chunked after another generation", 700, 3000, false},
		{"from a chunk boundary", 1024, 1600, false},
		{"empty", 0, 513, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := newPvec[uint8](1, 1)
			for i := range tc.built {
				v.push1(uint32(i), 7, 1)
			}
			old := v
			gen := uint64(1)
			if !tc.sameGeneration {
				gen = 2
			}
			v.pushFill(tc.built, tc.to, 9, gen)
			if v.rows() != tc.to {
				t.Fatalf("rows = %d, want %d", v.rows(), tc.to)
			}
			for i := range tc.to {
				want := uint8(9)
				if i < tc.built {
					want = 7
				}
				if got := v.get(uint32(i)); got != want {
					t.Fatalf("element %d = %d, want %d", i, got, want)
				}
			}
			if !tc.sameGeneration {
				if old.rows() != tc.built {
					t.Fatalf("the old version has %d rows, want %d", old.rows(), tc.built)
				}
				for i := range tc.built {
					if old.get(uint32(i)) != 7 {
						t.Fatalf("the old version changed at %d", i)
					}
				}
			}
		})
	}
}
