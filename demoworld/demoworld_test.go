// Tests that the bundled demo world builds the same history on every
// machine, reads back whole, and passes real git's fsck.

package demoworld

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

func TestBuild(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo.git")
	s, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sn, err := s.Snapshot("main")
	if err != nil {
		t.Fatal(err)
	}
	counts := map[objects.Type]int{}
	for _, k := range lorestore.Kinds {
		es, err := sn.Objects(Scope, k)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			counts[e.Object.Type()]++
		}
	}
	want := map[objects.Type]int{
		objects.TypeEntity: 4, objects.TypeFact: 2, objects.TypeRelation: 1, objects.TypeQuestion: 1,
		objects.TypeEvent: 2, objects.TypeBefore: 1, objects.TypeFunctional: 1, objects.TypeDecision: 1,
	}
	for ty, n := range want {
		if counts[ty] != n {
			t.Errorf("%d %s objects on main, want %d", counts[ty], ty, n)
		}
	}
	if len(counts) != len(want) {
		t.Errorf("object types on main: %v", counts)
	}
	log, err := s.Log(lorestore.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 8 || len(log[0].Parents) != 2 {
		t.Fatalf("history of %d commits, head with %d parents; want 8 and a merge", len(log), len(log[0].Parents))
	}
	// Fixed clock and author: the same history everywhere.
	other, err := Build(filepath.Join(t.TempDir(), "again.git"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	h1, _ := s.Head("main")
	h2, _ := other.Head("main")
	if h1 != h2 {
		t.Fatalf("two builds differ: %s and %s", h1, h2)
	}
	s.WaitBackground()
	out, err := exec.Command("git", "--git-dir", dir, "fsck", "--strict").CombinedOutput()
	if err != nil || strings.Contains(string(out), "error") {
		t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
}
