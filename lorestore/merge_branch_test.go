// Tests of MergeChecked: a check that fails leaves the store byte for byte
// as it was; one that passes writes the two-parent commit it saw.

package lorestore

import (
	"errors"
	"strings"
	"testing"
)

func TestMergeChecked(t *testing.T) {
	s, dir := newStore(t)
	commitFacts(t, s, "camelot", 0, 5)
	if _, err := s.CreateBranch("side", ""); err != nil {
		t.Fatal(err)
	}
	head := commitFacts(t, s, "camelot", 5, 10).Commit
	b := NewBatch()
	for i := 10; i < 15; i++ {
		b.Put("camelot", fact(i))
	}
	side, err := s.Commit(b, NewMessage("side work", "materialize", "camelot"), CommitOptions{Branch: "side"})
	if err != nil {
		t.Fatal(err)
	}
	msg := NewMessage("merge side into main", "merge", "")

	// A failing check: the commit was readable while it ran, and is gone.
	before := dirState(t, dir)
	held := errors.New("held")
	var seen Hash
	r, err := s.MergeChecked("main", head, side.Commit, msg, func(r MergeResult) error {
		seen = r.Commit
		sn, err := s.SnapshotAt(r.Commit)
		if err != nil {
			return err
		}
		if ids, err := sn.IDs("camelot", Claims); err != nil || len(ids) != 15 {
			t.Errorf("the checked commit holds %d claims (%v), not the union's 15", len(ids), err)
		}
		return held
	})
	if err != held || !r.Commit.IsZero() || r.Target != head || r.Source != side.Commit || r.Base.IsZero() {
		t.Fatalf("held merge %+v %v", r, err)
	}
	sameState(t, before, dirState(t, dir))
	if _, err := s.SnapshotAt(seen); err == nil {
		t.Fatal("the held commit can still be read")
	}
	if out, err := gitErr(dir, "cat-file", "-e", seen.String()); err == nil {
		t.Fatalf("git still finds the held commit: %s", out)
	}

	// A stale head is refused before anything is written.
	if _, err := s.MergeChecked("main", side.Commit, side.Commit, msg, nil); !errors.Is(err, ErrStale) {
		t.Fatalf("stale head: %v", err)
	}
	sameState(t, before, dirState(t, dir))

	// A passing check: the commit it saw is the new head, with two parents.
	r, err = s.MergeChecked("main", head, side.Commit, msg, func(r MergeResult) error { seen = r.Commit; return nil })
	if err != nil || r.Commit != seen || r.UpToDate {
		t.Fatalf("merge %+v %v", r, err)
	}
	if h, _ := s.Head("main"); h != r.Commit {
		t.Fatalf("main at %s, not the merge %s", h, r.Commit)
	}
	if ps := strings.Fields(git(t, dir, "rev-list", "--parents", "-n", "1", "main")); len(ps) != 3 || ps[1] != head.String() || ps[2] != side.Commit.String() {
		t.Fatalf("parents %v", ps)
	}
	fsckClean(t, dir)

	// Up to date: nothing written, the check not called.
	before = dirState(t, dir)
	r, err = s.MergeChecked("main", r.Commit, side.Commit, msg, func(MergeResult) error { t.Error("check called"); return nil })
	if err != nil || !r.UpToDate || r.Commit != seen {
		t.Fatalf("up to date %+v %v", r, err)
	}
	sameState(t, before, dirState(t, dir))
}
