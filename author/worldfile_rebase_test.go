package author

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// withRebaseMin sets rebaseMin for one test.
func withRebaseMin(t *testing.T, n int) {
	old := rebaseMin
	rebaseMin = n
	t.Cleanup(func() { rebaseMin = old })
}

// TestWorldFileRebased: a first compile moved onto the world file its
// writer wrote beside it (DL-0532) reads as a compile of the store's
// objects, and the file it writes is byte for byte the file a compile
// that kept its entries writes; a fresh process then loads that file. A
// world below rebaseMin keeps its entries.
func TestWorldFileRebased(t *testing.T) {
	// The mappings the package's earlier tests kept, some from writes
	// still in the background when they ended, must not use up the
	// budget this test's rebase and load are kept within.
	keepBudget(t, 8, 1<<30)
	h, _, _ := defeatWorld(t)
	X, Y, Z := objects.Var("X"), objects.Var("Y"), objects.Var("Z")
	atom := func(p string, args ...objects.Term) objects.Atom { return objects.Atom{Pred: p, Args: args} }
	objs := []objects.Object{
		&objects.Functional{Pred: "tongue", Provenance: prop0},
		&objects.Fact{Entity: "mireth", Key: "tongue", Value: "bitter", Provenance: prop0},
		&objects.Rule{Name: "anc-1", Head: atom("anc", X, Y), Provenance: prop0,
			Body: []objects.Literal{{Atom: atom("parent", X, Y)}}},
		&objects.Rule{Name: "anc-2", Head: atom("anc", X, Z), Provenance: prop0,
			Body: []objects.Literal{{Atom: atom("parent", X, Y)}, {Atom: atom("anc", Y, Z)}}},
		&objects.Rule{Name: "has-child", Head: atom("has-child", X), Provenance: prop0,
			Body: []objects.Literal{{Atom: atom("parent", X, Y)}}},
		&objects.Rule{Name: "leaf", Head: atom("leaf", Y), Provenance: prop0,
			Body: []objects.Literal{{Atom: atom("parent", X, Y)}, {Atom: atom("has-child", Y), Negated: true}}},
	}
	for i := range 40 {
		objs = append(objs, &objects.Fact{Entity: fmt.Sprint("p", i), Key: "parent", Value: fmt.Sprint("p", i+1), Provenance: prop0})
	}
	head := h.commitObjects("main", "camelot", objs...)
	h.store.WaitBackground()
	path := worldFilePath(h.store, head, "camelot")
	firstCompile := func(min int) ([]byte, *worldCache) {
		t.Helper()
		withRebaseMin(t, min)
		if err := os.RemoveAll(filepath.Dir(path)); err != nil {
			t.Fatal(err)
		}
		c := newWorldCache(4)
		w, err := c.get(h.store, head, "camelot")
		if err != nil {
			t.Fatal(err)
		}
		h.store.WaitBackground()
		wantCounts(t, c, 1, 0, 0, 0)
		sameWorld(t, h.store, head, "camelot", w)
		if _, _, written := c.fileCounts(); written != 1 {
			t.Fatalf("%d files written by one compile", written)
		}
		return readFile(t, path), c
	}
	mapped, _ := keptMappings()
	rebasedFile, c := firstCompile(0)
	if c.rebased != 1 {
		t.Fatalf("%d compiles moved onto their file, want 1", c.rebased)
	}
	if now, _ := keptMappings(); now != mapped+1 {
		t.Fatalf("%d mappings kept for the rebased world, want 1", now-mapped)
	}
	got, c2 := freshGet(t, h.store, head, "camelot")
	wantCounts(t, c2, 0, 0, 1, 0)
	sameWorld(t, h.store, head, "camelot", got)
	mapped, _ = keptMappings()
	keptFile, c := firstCompile(1 << 30)
	if now, _ := keptMappings(); c.rebased != 0 || now != mapped {
		t.Fatalf("a world below rebaseMin was moved onto its file (%d, %d mappings kept)", c.rebased, now-mapped)
	}
	if !bytes.Equal(rebasedFile, keptFile) {
		t.Fatalf("the world file of a rebased compile (%d bytes) differs from one that kept its entries (%d bytes)", len(rebasedFile), len(keptFile))
	}
}

// TestBaseOfferOnce: an offer is given once and taken once; a later
// give, and an offer the compile never took, are released.
func TestBaseOfferOnce(t *testing.T) {
	withRebaseMin(t, 0)
	released := 0
	release := func(taken bool) {
		if !taken {
			released++
		}
	}
	o := newBaseOffer()
	o.give(offered{})
	o.give(offered{done: release}) // too late: released at once
	if released != 1 {
		t.Fatalf("a second offer was not released (%d)", released)
	}
	if b, done := o.take(10); b != nil || done != nil {
		t.Fatal("an empty offer gave a base")
	}
	if b, _ := o.take(10); b != nil {
		t.Fatal("an offer was taken twice")
	}
	o = newBaseOffer()
	done := make(chan struct{})
	o.give(offered{done: func(taken bool) {
		if !taken {
			close(done)
		}
	}})
	o.scheduled.Store(true)
	o.finish() // the compile failed after its writer was asked, before it asked for the base
	<-done
}
