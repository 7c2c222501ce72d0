// This file holds the tests of the segmented flat forms of pvec and phash
// at sizes past one segment (the unit and property tests elsewhere stay
// within one): a relation built by one generation, then derived and
// written under another, keeps every row findable in both versions, its
// indexes chain every row, and the first version is left as it was.

package datalog

import "testing"

func TestSegmentedRelation(t *testing.T) {
	cases := []struct {
		name       string
		built, add int
	}{
		{"within one segment", 1000, 500},
		{"across segments", 3<<segShift + 77, 1<<segShift + 5},
		{"hash past many segments", 300_000, 70_000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g1 := versionClock.Add(1)
			r := newRelation(0, 2, g1)
			tuple := func(i int) []uint32 { return []uint32{uint32(i % 1013), uint32(i)} }
			for i := range tc.built {
				if row, added := r.insert(tuple(i)); !added || row != uint32(i) {
					t.Fatalf("insert %d: row %d added %v", i, row, added)
				}
			}
			ix := r.index([]int{0})
			if _, added := r.insert(tuple(5)); added {
				t.Fatal("a present tuple was added again")
			}
			g2 := versionClock.Add(1)
			d := r.derive(g2)
			for i := tc.built; i < tc.built+tc.add; i++ {
				if row, added := d.insert(tuple(i)); !added || row != uint32(i) {
					t.Fatalf("derived insert %d: row %d added %v", i, row, added)
				}
			}
			d.kill(3)
			checkRows(t, "first version", r, tc.built, tc.built+tc.add, -1)
			checkRows(t, "derived version", d, tc.built+tc.add, tc.built+tc.add+1, 3)
			checkChains(t, r, ix, tc.built)
			checkChains(t, d, d.index([]int{0}), tc.built+tc.add)
		})
	}
}

// checkRows checks that rel holds rows 0…n-1 (row dead dead) and nothing
// from n up to absent.
func checkRows(t *testing.T, what string, rel *relation, n, absent, dead int) {
	t.Helper()
	if rel.n != n || rel.data.rows() != n {
		t.Fatalf("%s: %d rows (%d stored), want %d", what, rel.n, rel.data.rows(), n)
	}
	for i := range absent {
		row, ok := rel.find([]uint32{uint32(i % 1013), uint32(i)})
		want := i < n && i != dead
		if ok != want || ok && row != uint32(i) {
			t.Fatalf("%s: find %d = %d, %v; want present %v", what, i, row, ok, want)
		}
	}
}

// checkChains checks that the index on column 0 chains each of rows
// 0…n-1 exactly once under its key.
func checkChains(t *testing.T, rel *relation, ix *index, n int) {
	t.Helper()
	seen := make([]bool, n)
	for k := range uint32(1013) {
		for h := ix.lookup(rel, []uint32{k}); h != 0; h = ix.nextOf(h - 1) {
			row := h - 1
			if int(row) >= n || seen[row] || rel.row(row)[0] != k {
				t.Fatalf("key %d chains row %d wrongly", k, row)
			}
			seen[row] = true
		}
	}
	for i, ok := range seen {
		if !ok {
			t.Fatalf("row %d is chained under no key", i)
		}
	}
}

// TestPvecSegmentsShared: a flat vector past one segment, written under a
// second generation (set, push), leaves the first version's rows as they
// were.
func TestPvecSegmentsShared(t *testing.T) {
	cases := []struct {
		name string
		n    int
		sets []uint32
	}{
		{"one segment", 1000, []uint32{0, 999}},
		{"three segments", 2<<segShift + 10, []uint32{0, 1 << segShift, 2<<segShift + 9}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := newPvec[uint32](1, 1)
			w := newPvec[uint32](2, 1)
			for i := range uint32(tc.n) {
				v.push1(i, i, 1)
				w.push(i, []uint32{i, ^i}, 1)
			}
			oldV, oldW := v, w
			for _, i := range tc.sets {
				v.set(i, 1<<31, 2)
			}
			v.push1(uint32(tc.n), 7, 2)
			w.push(uint32(tc.n), []uint32{7, 8}, 2)
			if oldV.rows() != tc.n || v.rows() != tc.n+1 || w.rows() != tc.n+1 {
				t.Fatalf("rows: old %d new %d, %d", oldV.rows(), v.rows(), w.rows())
			}
			for i := range uint32(tc.n) {
				if got := oldV.get(i); got != i {
					t.Fatalf("old element %d = %d", i, got)
				}
				if got := oldW.slice(i); got[0] != i || got[1] != ^i {
					t.Fatalf("old row %d = %v", i, got)
				}
			}
			for _, i := range tc.sets {
				if v.get(i) != 1<<31 {
					t.Fatalf("set %d not seen", i)
				}
			}
			if v.get(uint32(tc.n)) != 7 || w.slice(uint32(tc.n))[1] != 8 {
				t.Fatal("pushed row not seen")
			}
		})
	}
}

// TestPolyHandles: a row's support read back is the one last set, through
// every change of kind (zero, One, stored), and setting it under a derived
// version leaves the first version's as it was.
func TestPolyHandles(t *testing.T) {
	two := ipoly{{sig: 1, lits: []uint32{0}}, {sig: 2, lits: []uint32{1}}}
	one3 := ipoly{{sig: 8, lits: []uint32{3}}}
	steps := [][]ipoly{ // by step, by row 0…2
		{nil, ipolyOne, two},
		{two, nil, ipolyOne},
		{ipolyOne, one3, nil},
		{one3, two, two},
	}
	r := newRelation(0, 1, versionClock.Add(1))
	for i := range 3 {
		r.insert([]uint32{uint32(i)})
	}
	r.enableProvenance()
	for i := range 3 {
		if !r.poly(uint32(i)).isOne() {
			t.Fatalf("row %d: support %v after enableProvenance, want One", i, r.poly(uint32(i)))
		}
	}
	var versions []*relation
	for _, st := range steps {
		r = r.derive(versionClock.Add(1))
		for i, p := range st {
			r.setPoly(uint32(i), p)
		}
		versions = append(versions, r)
	}
	for k, v := range versions {
		for i, want := range steps[k] {
			if got := v.poly(uint32(i)); !samePoly(got, want) {
				t.Fatalf("version %d row %d: support %v, want %v", k, i, got, want)
			}
		}
	}
	if n := r.pstore.rows(); n > 3 {
		t.Fatalf("%d stored supports for 3 rows", n)
	}
}
