// Consolidation: the geometric split, the roll-up itself (including deltas
// from real git packs and .keep packs), and the automatic roll-up.

package odb

import (
	"bytes"
	"math/bits"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func TestGeometricSplit(t *testing.T) {
	for _, tc := range []struct {
		counts []int
		want   int
	}{
		{nil, 0},
		{[]int{5}, 0},
		{[]int{1, 2, 4}, 0},
		{[]int{1, 100, 1000}, 0},
		{[]int{1, 1, 1}, 3},
		{[]int{10, 10, 100}, 2},
		{[]int{1, 1, 1, 1, 3}, 5},
		{[]int{1, 1, 5, 100}, 2},
		{[]int{3, 3, 5, 100}, 3},
		{[]int{1, 1, 1000}, 2},
	} {
		if got := geometricSplit(tc.counts, 2); got != tc.want {
			t.Errorf("geometricSplit(%v) = %d, want %d", tc.counts, got, tc.want)
		}
	}
}

func TestConsolidate(t *testing.T) {
	dir := initBare(t)
	db := openDB(t, dir, Options{AutoPackLimit: -1})
	r := rand.New(rand.NewPCG(5, 6))
	var objs []writtenObj
	// One big pack that must be kept, then small ones to roll up.
	// With git's ~150-object pack: 50,100,100,150 roll up, 2000 stays.
	for _, n := range []int{2000, 100, 100, 50} {
		b := db.NewBatch()
		for i := 0; i < n; i++ {
			data := blob(r, 100)
			objs = append(objs, writtenObj{plumbing.BlobObject, data, b.Add(plumbing.BlobObject, data)})
		}
		if err := b.Write(); err != nil {
			t.Fatal(err)
		}
	}
	// A deltified pack from real git joins the small ones; one pack kept.
	src := deltaRepo(t)
	gitObjs := allObjects(t, src)
	pk := git(t, src, joinHashes(gitObjs), "pack-objects", "--stdout", "-q", "--delta-base-offset")
	if err := db.IngestPack(bytes.NewReader(pk), nil); err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	kept := b.Add(plumbing.BlobObject, []byte("kept\n"))
	if err := b.Write(); err != nil {
		t.Fatal(err)
	}
	keepBase := findPackOf(t, db, kept)
	os.WriteFile(keepBase+".keep", nil, 0o644)
	if n := len(packFiles(t, dir, "idx")); n != 6 {
		t.Fatalf("%d packs before, want 6", n)
	}
	if err := db.Consolidate(); err != nil {
		t.Fatalf("Consolidate: %v", err)
	}
	idxs := packFiles(t, dir, "idx")
	if len(idxs) != 3 { // the big one, the .keep one, the roll-up
		t.Fatalf("%d packs after, want 3: %v", len(idxs), idxs)
	}
	if _, err := os.Stat(keepBase + ".idx"); err != nil {
		t.Fatalf(".keep pack was rolled up")
	}
	if n := len(packFiles(t, dir, "pack")); n != 3 {
		t.Fatalf("%d .pack files left", n)
	}
	if types := entryTypes(t, db); types[plumbing.OFSDeltaObject]+types[plumbing.REFDeltaObject] != 0 {
		t.Fatalf("roll-up kept deltas: %v", types)
	}
	for _, o := range objs {
		mustRead(t, db, o.hash, o.typ, o.data)
	}
	compareWithGit(t, db, src, gitObjs)
	fresh := openDB(t, dir, Options{})
	compareWithGit(t, fresh, src, gitObjs)
	for _, idx := range idxs {
		git(t, dir, nil, "verify-pack", idx)
	}
	fsckClean(t, dir)
	co := string(git(t, dir, nil, "count-objects", "-v"))
	if !strings.Contains(co, "\ngarbage: 0\n") {
		t.Fatalf("count-objects -v:\n%s", co)
	}
	// A second run finds a progression and leaves it alone.
	if err := db.Consolidate(); err != nil {
		t.Fatal(err)
	}
	if n := len(packFiles(t, dir, "idx")); n != 3 {
		t.Fatalf("second Consolidate changed the packs: %d", n)
	}
}

// findPackOf returns the base path of the pack holding h.
func findPackOf(t testing.TB, db *DB, h plumbing.Hash) string {
	t.Helper()
	s, err := db.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer s.release()
	p, _, ok := s.find(&h)
	if !ok {
		t.Fatalf("%s in no pack", h)
	}
	return p.base
}

func TestAutoConsolidate(t *testing.T) {
	dir := initBare(t)
	var hookErr error
	db := openDB(t, dir, Options{AutoPackLimit: 3, OnAutoConsolidateError: func(err error) { hookErr = err }})
	var hs []plumbing.Hash
	for i := 0; i < 40; i++ {
		b := db.NewBatch()
		hs = append(hs, b.Add(plumbing.BlobObject, []byte(strings.Repeat("x", i))))
		if err := b.Write(); err != nil {
			t.Fatal(err)
		}
		// Geometric roll-up keeps a progression 1, 2, 4, ...: at most
		// about log2(objects) packs, whatever the limit.
		if n := len(packFiles(t, dir, "idx")); n > max(4, bits.Len(uint(i+1))+1) {
			t.Fatalf("after write %d: %d packs with AutoPackLimit 3", i, n)
		}
	}
	if hookErr != nil {
		t.Fatalf("auto roll-up failed: %v", hookErr)
	}
	for i, h := range hs {
		mustRead(t, db, h, plumbing.BlobObject, []byte(strings.Repeat("x", i)))
	}
	fsckClean(t, dir)

	// A failing roll-up does not fail the Write: make the pack directory
	// read-only... as root that is no obstacle, so break the lock file
	// instead by replacing it with a directory.
	lock := dir + "/objects/" + lockName
	os.Remove(lock)
	os.Mkdir(lock, 0o755)
	for i := 0; i < 5; i++ {
		b := db.NewBatch()
		b.Add(plumbing.BlobObject, []byte{byte(i)})
		if err := b.Write(); err != nil {
			t.Fatalf("Write failed because of the roll-up: %v", err)
		}
	}
	if hookErr == nil {
		t.Fatalf("hook not called for a failing roll-up")
	}
}
