package odb

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// locateNames writes three packs of 200 blobs each and one loose object
// through db in dir, and returns their names, 50 unknown names and the
// first 40 again, shuffled.
func locateNames(t *testing.T, db *DB, dir string) []plumbing.Hash {
	t.Helper()
	r := rand.New(rand.NewPCG(11, 12))
	var hs []plumbing.Hash
	for range 3 {
		b := db.NewBatch()
		for range 200 {
			hs = append(hs, b.Add(plumbing.BlobObject, blob(r, 20+r.IntN(300))))
		}
		if err := b.Write(); err != nil {
			t.Fatal(err)
		}
	}
	hs = append(hs, plumbing.NewHash(string(bytes.TrimSpace(git(t, dir, []byte("loose\n"), "hash-object", "-w", "--stdin")))))
	for range 50 {
		var h plumbing.Hash
		for i := range h {
			h[i] = byte(r.Uint32())
		}
		hs = append(hs, h)
	}
	hs = append(hs, hs[:40]...)
	r.Shuffle(len(hs), func(i, j int) { hs[i], hs[j] = hs[j], hs[i] })
	return hs
}

// checkLargestOpened checks that pf opened one pack's file, v's largest,
// and reads the rest through their mappings.
func checkLargestOpened(t *testing.T, v *View, pf *PackFiles) {
	t.Helper()
	opened := 0
	for i, f := range pf.files {
		if f != nil {
			opened++
			for j := range pf.files {
				if len(v.s.packs[j].data) > len(v.s.packs[i].data) {
					t.Fatalf("pack %d opened, a larger one (%d) not", i, j)
				}
			}
		}
	}
	if opened != 1 || !pf.Mapped() {
		t.Fatalf("%d pack files opened, want 1 and the rest mapped", opened)
	}
}

// TestLocateAllAsLocate: for names in three packs, loose, unknown and
// asked twice, in chunks of every size, LocateAll gives what Locate
// gives, name by name.
func TestLocateAllAsLocate(t *testing.T) {
	dir := initBare(t)
	db := openDB(t, dir, Options{AutoPackLimit: -1})
	hs := locateNames(t, db, dir)

	db.Close() // reopened: its packs mapped, not held as written
	v := openView(t, dir)
	if v.Packs() != 3 {
		t.Fatalf("%d packs, want 3", v.Packs())
	}
	const missing = ^Loc(0)
	want := make([]Loc, len(hs))
	found := 0
	for i := range hs {
		if l, ok := v.Locate(hs[i]); ok {
			want[i] = l
			found++
		} else {
			want[i] = missing
		}
	}
	if found != 600+40 {
		t.Fatalf("Locate found %d names, want 640", found)
	}
	// Only the largest pack's file opened: the other two read through
	// their mappings, and read the same.
	defer func(n int) { maxPackFiles = n }(maxPackFiles)
	maxPackFiles = 1
	pf := filesOf(t, v)
	checkLargestOpened(t, v, pf)
	var located []Loc
	for _, l := range want {
		if l != missing {
			located = append(located, l)
		}
	}
	slices.Sort(located)
	readAll(t, v, pf, located, 16)

	defer func(n int) { locateChunk = n }(locateChunk)
	for _, chunk := range []int{1, 7, 100, 1 << 15} {
		locateChunk = chunk
		got := make([]Loc, len(hs))
		v.LocateAll(len(hs), func(i int) *plumbing.Hash { return &hs[i] }, got, missing)
		for i := range hs {
			if got[i] != want[i] {
				t.Fatalf("chunks of %d: name %d (%s) at %x, Locate says %x", chunk, i, hs[i], got[i], want[i])
			}
		}
	}
}

// TestSortNames: names sharing their first bytes (as crafted names
// could), names equal, and names spread all sort as a comparison sort
// sorts them.
func TestSortNames(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	var hs []plumbing.Hash
	for k := range 3000 {
		var h plumbing.Hash
		for i := range h {
			h[i] = byte(r.Uint32())
		}
		if k%3 == 0 {
			copy(h[:6], "\x5a\x5a\x5a\x5a\x5a\x5a") // one bucket, many names
		}
		if k%5 == 0 {
			copy(h[:10], "\xa5\xa5\xa5\xa5\xa5\xa5\xa5\xa5\xa5\xa5") // one key: the rest decides
		}
		hs = append(hs, h)
	}
	hs = append(hs, hs[:500]...)
	want := make([]int32, len(hs))
	for i := range want {
		want[i] = int32(i)
	}
	slices.SortFunc(want, func(x, y int32) int {
		return cmp.Or(bytes.Compare(hs[x][:], hs[y][:]), cmp.Compare(x, y))
	})
	// In one part, and in four parts counted and placed on four cores.
	for _, run := range []struct{ procs, part int }{{1, sortPart}, {4, 100}} {
		old, oldPart := runtime.GOMAXPROCS(run.procs), sortPart
		sortPart = run.part
		var got []int32
		for _, sn := range sortNames(len(hs), func(i int) *plumbing.Hash { return &hs[i] }) {
			if sn.key != binary.BigEndian.Uint64(hs[sn.i][:8]) || sn.hash() != hs[sn.i] {
				t.Fatalf("GOMAXPROCS %d: name %d listed as %x (key %x)", run.procs, sn.i, sn.hash(), sn.key)
			}
			got = append(got, sn.i)
		}
		runtime.GOMAXPROCS(old)
		sortPart = oldPart
		if !slices.Equal(got, want) {
			t.Fatalf("GOMAXPROCS %d, parts of %d names: sortNames does not sort as a comparison sort does", run.procs, run.part)
		}
	}
}

// BenchmarkSortNames sorts 4M names spread as hashes are, as a
// whole-scope read of a large store does before it locates its files.
func BenchmarkSortNames(b *testing.B) {
	r := rand.New(rand.NewPCG(15, 16))
	hs := make([]plumbing.Hash, 4<<20)
	for i := range hs {
		for j := range hs[i] {
			hs[i][j] = byte(r.Uint32())
		}
	}
	b.ResetTimer()
	for range b.N {
		sortNames(len(hs), func(i int) *plumbing.Hash { return &hs[i] })
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(hs)), "ns/name")
}
