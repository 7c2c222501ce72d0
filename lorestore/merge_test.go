// Tests of history: merge base, union merge, unrelated histories, log
// filters and the graph.

package lorestore

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestMergeUnion(t *testing.T) {
	s, dir := newStore(t)
	base := commitFacts(t, s, "camelot", 0, 10).Commit
	if _, err := s.CreateBranch("side", ""); err != nil {
		t.Fatal(err)
	}
	commitFacts(t, s, "camelot", 10, 20)
	b := NewBatch()
	for i := 20; i < 25; i++ {
		b.Put("avalon", fact(i))
	}
	b.Put("camelot", fact(10)) // also on main: the union holds it once
	side, err := s.Commit(b, NewMessage("side work", "materialize", "avalon"), CommitOptions{Branch: "side"})
	if err != nil {
		t.Fatal(err)
	}
	mainHead, _ := s.Head("main")
	if mb, err := s.MergeBase(mainHead, side.Commit); err != nil || mb != base {
		t.Fatalf("merge base = %s, %v; want %s", mb, err, base)
	}
	res, err := s.Merge("side", MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.UpToDate || res.Base != base || res.Target != mainHead || res.Source != side.Commit {
		t.Fatalf("merge result %+v", res)
	}
	c, _ := s.readCommit(res.Commit)
	if len(c.parents) != 2 || c.parents[0] != mainHead || c.parents[1] != side.Commit {
		t.Fatalf("merge commit parents %v", c.parents)
	}
	ids := allIDs(t, s, "main")
	if len(ids) != 25 {
		t.Fatalf("merged world holds %d objects, want 25", len(ids))
	}
	s.WaitBackground()
	fsckClean(t, dir)
	if got := strings.TrimSpace(git(t, dir, "rev-list", "--count", "--merges", "main")); got != "1" {
		t.Fatalf("git counts %s merges", got)
	}
	again, err := s.Merge("side", MergeOptions{})
	if err != nil || !again.UpToDate || again.Commit != res.Commit {
		t.Fatalf("second merge = %+v, %v", again, err)
	}
}

func TestMergeRefusesUnrelatedHistories(t *testing.T) {
	s, _ := newStore(t)
	commitFacts(t, s, "camelot", 0, 2)
	// Another store, made at another time: its init commit differs.
	dir2 := filepath.Join(t.TempDir(), "other.git")
	other, err := Init(dir2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	commitFacts(t, other, "camelot", 5, 7)
	if err := s.AddRemote("other", dir2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fetch(t.Context(), "other", FetchOptions{}); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Head("main")
	if _, err := s.Merge("other/main", MergeOptions{}); !errors.Is(err, ErrUnrelated) {
		t.Fatalf("merge of unrelated histories: %v", err)
	}
	if after, _ := s.Head("main"); after != before {
		t.Fatal("a refused merge moved main")
	}
}

func TestMergeBaseCrissCross(t *testing.T) {
	s, _ := newStore(t)
	root := commitFacts(t, s, "camelot", 0, 1).Commit
	s.CreateBranch("b", "")
	commitFacts(t, s, "camelot", 1, 2)
	put := func(branch string, n int) Hash {
		b := NewBatch()
		b.Put("camelot", fact(n))
		r, err := s.Commit(b, NewMessage("x", "materialize", "camelot"), CommitOptions{Branch: branch})
		if err != nil {
			t.Fatal(err)
		}
		return r.Commit
	}
	bHead := put("b", 3)
	mHead, _ := s.Head("main")
	if mb, _ := s.MergeBase(mHead, bHead); mb != root {
		t.Fatalf("merge base %s, want %s", mb, root)
	}
	if ok, _ := s.IsAncestor(root, bHead); !ok {
		t.Fatal("root is an ancestor of b")
	}
	if ok, _ := s.IsAncestor(bHead, mHead); ok {
		t.Fatal("b is not an ancestor of main")
	}
}

func TestLogFilters(t *testing.T) {
	s, _ := newStore(t)
	commitFacts(t, s, "camelot", 0, 3)
	commitFacts(t, s, "avalon", 3, 6)
	b := NewBatch()
	b.Put("camelot", fact(9))
	if _, err := s.Commit(b, NewMessage("ratify", "record_decision", "camelot"), CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		o    LogOptions
		want []string
	}{
		{"all", LogOptions{}, []string{"ratify", "add facts 3-6", "add facts 0-3", "init lorestore"}},
		{"limit", LogOptions{Limit: 2}, []string{"ratify", "add facts 3-6"}},
		{"scope", LogOptions{Scope: "camelot"}, []string{"ratify", "add facts 0-3"}},
		{"op", LogOptions{Op: "materialize"}, []string{"add facts 3-6", "add facts 0-3"}},
		{"object", LogOptions{Object: factID(t, 4)}, []string{"add facts 3-6"}},
		{"from", LogOptions{From: "main", Scope: "avalon"}, []string{"add facts 3-6"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			es, err := s.Log(tc.o)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range es {
				got = append(got, e.Message.Summary)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGraphMatchesShape(t *testing.T) {
	s, _ := newStore(t)
	commitFacts(t, s, "camelot", 0, 1)
	s.CreateBranch("side", "")
	b := NewBatch()
	b.Put("camelot", fact(5))
	s.Commit(b, NewMessage("on side", "materialize", "camelot"), CommitOptions{Branch: "side"})
	commitFacts(t, s, "camelot", 1, 2)
	if _, err := s.Merge("side", MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	es, err := s.Log(LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lines := RenderGraph(es, func(e LogEntry) []string { return []string{e.Message.Summary} })
	want := []string{
		"* merge side into main",
		`|\`,
		"* | add facts 1-2",
		"| * on side",
		"|/",
		"* add facts 0-1",
		"* init lorestore",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("graph:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestCloneAndFetch(t *testing.T) {
	s, dir := newStore(t)
	commitFacts(t, s, "camelot", 0, 20)
	s.CreateBranch("side", "")
	dst := filepath.Join(t.TempDir(), "copy")
	c, err := Clone(t.Context(), dir, dst, CloneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got, want := allIDs(t, c, "main"), allIDs(t, s, "main"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatal("clone reads another world")
	}
	if _, err := c.Resolve("origin/side"); err != nil {
		t.Fatalf("clone does not track side: %v", err)
	}
	commitFacts(t, s, "camelot", 20, 30)
	res, err := c.Fetch(t.Context(), "origin", FetchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	moved := 0
	for _, u := range res.Updates {
		if !u.UpToDate() {
			moved++
		}
	}
	if moved != 1 {
		t.Fatalf("fetch moved %d refs: %+v", moved, res.Updates)
	}
	if got := allIDs(t, c, "origin/main"); len(got) != 30 {
		t.Fatalf("origin/main holds %d objects after fetch", len(got))
	}
	if _, err := Clone(t.Context(), dir, dst, CloneOptions{}); !errors.Is(err, ErrExists) {
		t.Fatalf("clone into a non-empty folder: %v", err)
	}
	empty := filepath.Join(t.TempDir(), "empty.git")
	git(t, filepath.Dir(empty), "init", "-q", "--bare", "-b", "main", empty)
	bad := filepath.Join(t.TempDir(), "bad")
	if _, err := Clone(t.Context(), empty, bad, CloneOptions{}); err == nil {
		t.Fatal("cloned a remote with no lore")
	}
}

// TestMergeFastForward: with FastForward, a target behind the source moves
// to it and no commit is written; a target that diverged gets a merge
// commit; a source already merged is up to date.
func TestMergeFastForward(t *testing.T) {
	s, dir := newStore(t)
	commitFacts(t, s, "camelot", 0, 2)
	if _, err := s.CreateBranch("side", ""); err != nil {
		t.Fatal(err)
	}
	b := NewBatch()
	b.Put("camelot", fact(7))
	side, err := s.Commit(b, NewMessage("side work", "materialize", "camelot"), CommitOptions{Branch: "side"})
	if err != nil {
		t.Fatal(err)
	}
	before := strings.TrimSpace(git(t, dir, "rev-list", "--count", "--all"))
	res, err := s.Merge("side", MergeOptions{FastForward: true})
	if err != nil {
		t.Fatal(err)
	}
	head, _ := s.Head("main")
	if !res.FastForward || res.Commit != side.Commit || head != side.Commit {
		t.Fatalf("fast-forward result %+v, main at %s, side at %s", res, head, side.Commit)
	}
	if after := strings.TrimSpace(git(t, dir, "rev-list", "--count", "--all")); after != before {
		t.Fatalf("a fast-forward wrote commits: %s → %s", before, after)
	}
	if again, err := s.Merge("side", MergeOptions{FastForward: true}); err != nil || !again.UpToDate {
		t.Fatalf("second merge = %+v, %v", again, err)
	}
	// Diverged: a real merge commit.
	commitFacts(t, s, "camelot", 10, 11)
	b = NewBatch()
	b.Put("camelot", fact(20))
	if _, err := s.Commit(b, NewMessage("more side work", "materialize", "camelot"), CommitOptions{Branch: "side"}); err != nil {
		t.Fatal(err)
	}
	res, err = s.Merge("side", MergeOptions{FastForward: true})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := s.readCommit(res.Commit)
	if res.FastForward || len(c.parents) != 2 {
		t.Fatalf("diverged merge %+v has %d parents", res, len(c.parents))
	}
	s.WaitBackground()
	fsckClean(t, dir)
}
