package author

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWorldsDerivesAlongHistory: the exported cache (the sync command's)
// compiles the first commit it is asked for and derives its descendants
// from it, each equal to a compile.
func TestWorldsDerivesAlongHistory(t *testing.T) {
	h, _, _ := defeatWorld(t) // two commits on main: the base and a materialize
	// No world files: this cache must derive, not load. The service's
	// background writer finishes first, so nothing is written after.
	h.store.WaitBackground()
	if err := os.RemoveAll(filepath.Join(h.store.Dir(), "deloreis")); err != nil {
		t.Fatal(err)
	}
	head, err := h.store.Head("main")
	if err != nil {
		t.Fatal(err)
	}
	parent, ok, err := h.store.FirstParent(head)
	if err != nil || !ok {
		t.Fatalf("first parent of %s: %v (found %v)", head, err, ok)
	}
	ws := NewWorlds(h.store, 4)
	if _, err := ws.Get(parent, "camelot"); err != nil {
		t.Fatal(err)
	}
	w, err := ws.Get(head, "camelot")
	if err != nil {
		t.Fatal(err)
	}
	if n := ws.Compiles(); n != 1 {
		t.Fatalf("%d compiles for a commit and its child; want 1 (the child derived)", n)
	}
	sameWorld(t, h.store, head, "camelot", w)
}
