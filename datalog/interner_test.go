package datalog

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
)

// TestInternerAgainstMap holds the open-addressed interner to a map over
// random strings (many repeated, the empty string among them, across
// several table growths): ids are dense in first-seen order, intern and
// lookup agree, unknown strings are not found, and snapshots taken
// earlier never change.
func TestInternerAgainstMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	in := newInterner()
	want := map[string]uint32{}
	var order []string
	var snaps []nameList
	for i := 0; i < 20000; i++ {
		s := fmt.Sprintf("c%d", r.IntN(8000))
		if i%997 == 0 {
			s = ""
		}
		id := in.intern(s)
		w, ok := want[s]
		if !ok {
			w = uint32(len(order))
			want[s] = w
			order = append(order, s)
		}
		if id != w {
			t.Fatalf("intern(%q) = %d, want %d", s, id, w)
		}
		if i%1000 == 0 {
			snaps = append(snaps, in.snapshot())
		}
	}
	for s, w := range want {
		if id, ok := in.lookup(s); !ok || id != w {
			t.Fatalf("lookup(%q) = %d, %v; want %d", s, id, ok, w)
		}
	}
	if _, ok := in.lookup("never interned"); ok {
		t.Fatal("found a string never interned")
	}
	for _, sn := range snaps {
		for i, s := range sn.strings() {
			if order[i] != s || sn.at(uint32(i)) != s {
				t.Fatalf("snapshot name %d is %q (at %q), want %q", i, s, sn.at(uint32(i)), order[i])
			}
		}
	}
}

// TestInternerConcurrent: goroutines interning overlapping strings agree
// on every id (run under -race by make test).
func TestInternerConcurrent(t *testing.T) {
	in := newInterner()
	ids := make([][]uint32, 4)
	var wg sync.WaitGroup
	for g := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3000 {
				ids[g] = append(ids[g], in.intern(fmt.Sprint((i*7+g)%3000)))
			}
		}()
	}
	wg.Wait()
	for g := range ids {
		for i, id := range ids[g] {
			if got, ok := in.lookup(fmt.Sprint((i*7 + g) % 3000)); !ok || got != id {
				t.Fatalf("goroutine %d: %d then %d, %v", g, id, got, ok)
			}
		}
	}
	if n := in.snapshot().len(); n != 3000 {
		t.Fatalf("%d names, want 3000", n)
	}
}

// TestInternerSegments: names across the segment edges (the doubling
// segments, the first fixed one and past it) read back by id, from the
// interner and from snapshots taken on the way, which never change; the
// segments hold no more than a segment's worth beyond the names.
func TestInternerSegments(t *testing.T) {
	const n = nameGeo + 2<<nameSegBits + 5
	in := newInterner()
	var snaps []nameList
	for i := range n {
		if id := in.intern(strconv.Itoa(i)); id != uint32(i) {
			t.Fatalf("intern(%d) = %d", i, id)
		}
		switch i {
		case 0, nameFirst - 1, nameFirst, nameGeo - 1, nameGeo, nameGeo + 1<<nameSegBits:
			snaps = append(snaps, in.snapshot())
		}
	}
	snaps = append(snaps, in.snapshot())
	for _, sn := range snaps {
		all := sn.strings()
		if len(all) != sn.len() {
			t.Fatalf("strings: %d names, len %d", len(all), sn.len())
		}
		for i := range sn.len() {
			if want := strconv.Itoa(i); sn.at(uint32(i)) != want || all[i] != want {
				t.Fatalf("snapshot of %d: name %d is %q, %q", sn.len(), i, sn.at(uint32(i)), all[i])
			}
		}
	}
	held := 0
	for _, s := range in.segs {
		held += len(s)
	}
	if held-n >= 1<<nameSegBits {
		t.Fatalf("%d names held in room for %d", n, held)
	}
}
