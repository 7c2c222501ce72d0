package lorestore

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/lorestore/refs"
)

// TestBranchNames: a branch that differs from an existing one only by
// case or Unicode form, or whose name holds an invisible or bidirectional
// control character, is refused and no ref is written; a remote branch so
// named is not fetched (DL-0437). Before the rule, MAIN, "ma\u200bin" and
// "main\u202e" were created beside main and listed as look-alikes.
func TestBranchNames(t *testing.T) {
	s, dir := newStore(t)
	commitFacts(t, s, "camelot", 0, 1)
	cases := []struct {
		name string
		same bool // refused as an existing branch, not as a bad name
	}{
		{"MAIN", true},
		{"Main", true},
		{"ma\u200bin", false},
		{"main\u202e", false},
		{"cafe\u0301", false},
	}
	for _, c := range cases {
		before := dirState(t, dir)
		_, err := s.CreateBranch(c.name, "")
		var ne *refs.NameError
		switch {
		case c.same && !errors.Is(err, ErrBranchExists):
			t.Errorf("create %q: %v, want ErrBranchExists", c.name, err)
		case !c.same && !errors.As(err, &ne):
			t.Errorf("create %q: %v, want a *refs.NameError", c.name, err)
		}
		sameState(t, before, dirState(t, dir))
	}

	// A hub holding a look-alike branch, made by real git.
	hub := bareRemote(t, t.TempDir(), "hub.git")
	if _, err := s.Push(context.Background(), hub, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	git(t, hub, "--git-dir", hub, "update-ref", "refs/heads/ma\u200bin", "refs/heads/main")
	c := cloneOf(t, hub)
	res, err := c.Fetch(context.Background(), "origin", FetchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range res.Updates {
		if strings.Contains(u.Ref, "\u200b") {
			t.Fatalf("fetched the look-alike branch %q", u.Ref)
		}
	}
	if all := git(t, c.Dir(), "--git-dir", c.Dir(), "for-each-ref", "--format=%(refname)"); strings.Contains(all, "\u200b") || !strings.Contains(all, "refs/remotes/origin/main") {
		t.Fatalf("the clone's refs:\n%s", all)
	}
}
