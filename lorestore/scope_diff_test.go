package lorestore

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// scopeIDs is every id one scope of a snapshot holds, read in full: the
// oracle ScopeDiff is held to.
func scopeIDs(t *testing.T, sn *Snapshot, scope string) map[objects.ID]bool {
	t.Helper()
	out := map[objects.ID]bool{}
	for _, k := range Kinds {
		es, err := sn.Objects(scope, k)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			out[e.ID] = true
		}
	}
	return out
}

// commitMixed commits, to scope on branch, facts [from, to), a decision, an
// attack on the first fact and a standing revision of it: every section.
func commitMixed(t *testing.T, s *Store, scope, branch string, from, to int) Hash {
	t.Helper()
	b := NewBatch()
	for i := from; i < to; i++ {
		if _, err := b.Put(scope, fact(i)); err != nil {
			t.Fatal(err)
		}
	}
	claim := factID(t, from)
	dec := &objects.Decision{Ident: "d-" + branch + "-" + string(rune('a'+from%26))}
	for _, o := range []objects.Object{dec,
		&objects.Attack{Attacker: dec.Ident, Target: "canon-1", Claim: claim},
		&objects.Standing{Claim: claim, Standing: objects.StandingRatified, Decision: dec.Ident}} {
		if _, err := b.Put(scope, o); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Commit(b, NewMessage("mixed", "materialize", scope), CommitOptions{Branch: branch})
	if err != nil {
		t.Fatal(err)
	}
	return res.Commit
}

func TestScopeDiff(t *testing.T) {
	s, dir := newStore(t)
	c1 := commitMixed(t, s, "camelot", "main", 0, 40)
	c2 := commitMixed(t, s, "camelot", "main", 40, 45)
	other := commitFacts(t, s, "logres", 0, 30).Commit // another scope only
	if _, err := s.CreateBranch("side", c1.String()); err != nil {
		t.Fatal(err)
	}
	side := commitMixed(t, s, "camelot", "side", 100, 103)
	removal := gitRemoval(t, s, dir, factID(t, 3), factID(t, 41))
	root, ok, err := s.FirstParent(c1) // Init's commit: nothing in any scope
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	cases := []struct {
		name     string
		from, to Hash
		adds     int // -1: not checked beyond the oracle
	}{
		{"unchanged", c2, c2, 0},
		{"a commit over its parent", c1, c2, 5 + 3},
		{"everything from the root", root, c2, 45 + 6},
		{"back to the parent: removals", c2, c1, 0},
		{"another scope moved", c2, other, 0},
		{"between branches", side, c2, -1},
		{"a commit that removes files", other, removal, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			from, err := s.SnapshotAt(tc.from)
			if err != nil {
				t.Fatal(err)
			}
			to, err := s.SnapshotAt(tc.to)
			if err != nil {
				t.Fatal(err)
			}
			d, err := to.ScopeDiff(from, "camelot")
			if err != nil {
				t.Fatal(err)
			}
			before, after := scopeIDs(t, from, "camelot"), scopeIDs(t, to, "camelot")
			var wantAdd, wantRemove, gotAdd []objects.ID
			for id := range after {
				if !before[id] {
					wantAdd = append(wantAdd, id)
				}
			}
			for id := range before {
				if !after[id] {
					wantRemove = append(wantRemove, id)
				}
			}
			for _, e := range d.Added {
				if got, _ := e.Object.ID(); got != e.ID {
					t.Fatalf("added %s decodes to an object of id %s", e.ID, got)
				}
				gotAdd = append(gotAdd, e.ID)
			}
			sortIDs(wantAdd, wantRemove, gotAdd, d.Removed)
			if !slices.Equal(gotAdd, wantAdd) || !slices.Equal(d.Removed, wantRemove) {
				t.Fatalf("diff: added %d removed %d, want added %d removed %d", len(gotAdd), len(d.Removed), len(wantAdd), len(wantRemove))
			}
			if tc.adds >= 0 && len(gotAdd) != tc.adds {
				t.Fatalf("added %d, want %d", len(gotAdd), tc.adds)
			}
		})
	}
}

func sortIDs(lists ...[]objects.ID) {
	for _, l := range lists {
		slices.SortFunc(l, func(a, b objects.ID) int { return slices.Compare(a[:], b[:]) })
	}
}

// gitRemoval makes, with real git, a commit on main that removes object
// files (no deloreis command does; another tool may).
func gitRemoval(t *testing.T, s *Store, dir string, ids ...objects.ID) Hash {
	t.Helper()
	work := filepath.Join(t.TempDir(), "w")
	git(t, filepath.Dir(work), "clone", "-q", dir, "w")
	for _, id := range ids {
		git(t, work, "rm", "-q", "scopes/camelot/claims/"+id.String()[:2]+"/"+id.String()+".json")
	}
	git(t, work, "commit", "-qm", "remove two facts")
	git(t, work, "push", "-q", "origin", "HEAD:refs/heads/main")
	h, err := s.Resolve("main")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestScopeDiffChecksWhatItReads: a changed file is read again and
// checked against its id; a tampered one is a CorruptError, never an
// object.
func TestScopeDiffChecksWhatItReads(t *testing.T) {
	s, dir := newStore(t)
	c := commitFacts(t, s, "camelot", 0, 3).Commit
	id := factID(t, 1)
	work := filepath.Join(t.TempDir(), "w")
	git(t, filepath.Dir(work), "clone", "-q", dir, "w")
	path := filepath.Join(work, "scopes/camelot/claims/"+id.String()[:2]+"/"+id.String()+".json")
	if err := os.WriteFile(path, []byte(`{"tampered":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, work, "commit", "-qam", "tamper")
	git(t, work, "push", "-q", "origin", "HEAD:refs/heads/tampered")
	from, err := s.SnapshotAt(c)
	if err != nil {
		t.Fatal(err)
	}
	to, err := s.Snapshot("tampered")
	if err != nil {
		t.Fatal(err)
	}
	_, err = to.ScopeDiff(from, "camelot")
	var ce *CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("diff over a tampered file: %v, want *CorruptError", err)
	}
	if _, err := to.ScopeDiff(from, "../x"); err == nil {
		t.Fatal("a scope that is no id was diffed")
	}
}

func TestFirstParent(t *testing.T) {
	s, _ := newStore(t)
	c1 := commitFacts(t, s, "camelot", 0, 1).Commit
	c2 := commitFacts(t, s, "camelot", 1, 2).Commit
	root, err := s.Resolve("main~2")
	if err != nil {
		t.Fatal(err)
	}
	if p, ok, err := s.FirstParent(c2); err != nil || !ok || p != c1 {
		t.Fatalf("first parent of c2: %s %v %v", p, ok, err)
	}
	if _, ok, err := s.FirstParent(root); err != nil || ok {
		t.Fatalf("the root commit has a parent (%v, %v)", ok, err)
	}
}
