package lorestore

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestLogRangesAgreeWithGit: Log from "A..B" walks the commits reachable
// from B and not from A, and from "A...B" those reachable from either but
// not both, as git rev-list reads them; an empty side is HEAD.
func TestLogRangesAgreeWithGit(t *testing.T) {
	s, dir := newStore(t)
	commitFacts(t, s, "camelot", 0, 3)
	if _, err := s.CreateBranch("side", ""); err != nil {
		t.Fatal(err)
	}
	commitFacts(t, s, "camelot", 3, 5)
	b := NewBatch()
	b.Put("avalon", fact(40))
	if _, err := s.Commit(b, NewMessage("side work", "materialize", "avalon"), CommitOptions{Branch: "side"}); err != nil {
		t.Fatal(err)
	}
	commitFacts(t, s, "camelot", 5, 6)
	ranges := []string{
		"side..main", "main..side", "side...main", "main...side", "main~2..main",
		"side..", "..side", "main..main", "main~1...side", "side^..main~", "...side",
	}
	for _, r := range ranges {
		es, err := s.Log(LogOptions{From: r})
		if err != nil {
			t.Fatalf("Log(%q): %v", r, err)
		}
		var got []string
		for _, e := range es {
			got = append(got, e.Commit.String())
		}
		want := strings.Fields(git(t, dir, "rev-list", r))
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("Log(%q) = %d commits %v, git rev-list says %d %v", r, len(got), got, len(want), want)
		}
	}
	if es, err := s.Log(LogOptions{From: "side..main", Limit: 1}); err != nil || len(es) != 1 {
		t.Errorf("Log(side..main, limit 1) = %d entries, %v", len(es), err)
	}
	for _, r := range []string{"nosuch..main", "main..nosuch", "main....side", "a..b..c"} {
		_, err := s.Log(LogOptions{From: r})
		var re *RevisionError
		if !errors.As(err, &re) {
			t.Errorf("Log(%q) error = %v, want a *RevisionError", r, err)
		}
	}
}
