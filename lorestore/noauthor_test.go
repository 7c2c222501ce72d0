package lorestore

import (
	"errors"
	"testing"
)

// TestRequireAuthor: with RequireAuthor and no author, every way a commit
// is written is refused with ErrNoAuthor before anything moves — a
// commit, a bulk commit, a merge — while Init's root commit and reads go
// on; with an author, or without RequireAuthor, commits are written.
func TestRequireAuthor(t *testing.T) {
	seeded, dir := newStore(t)
	commitFacts(t, seeded, "camelot", 0, 2)
	if _, err := seeded.CreateBranch("side", ""); err != nil {
		t.Fatal(err)
	}
	b := NewBatch()
	b.Put("avalon", fact(40))
	if _, err := seeded.Commit(b, NewMessage("side work", "materialize", "avalon"), CommitOptions{Branch: "side"}); err != nil {
		t.Fatal(err)
	}
	commitFacts(t, seeded, "camelot", 2, 3)
	seeded.Close()

	s, err := Open(dir, Options{Now: fixedClock(), RequireAuthor: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before, _ := s.Head("main")
	writes := map[string]func() error{
		"commit": func() error {
			b := NewBatch()
			b.Put("camelot", fact(9))
			_, err := s.Commit(b, NewMessage("more", "materialize", "camelot"), CommitOptions{})
			return err
		},
		"bulk": func() error {
			_, err := s.NewBulk("camelot")
			return err
		},
		"merge": func() error {
			_, err := s.Merge("side", MergeOptions{})
			return err
		},
		"merge checked": func() error {
			side, _ := s.Head("side")
			_, err := s.MergeChecked("main", before, side, NewMessage("merge side", "merge", ""), nil)
			return err
		},
	}
	for name, write := range writes {
		if err := write(); !errors.Is(err, ErrNoAuthor) {
			t.Errorf("%s: error %v, want ErrNoAuthor", name, err)
		}
	}
	if after, _ := s.Head("main"); after != before {
		t.Fatalf("main moved from %s to %s", before, after)
	}
	if _, err := s.Log(LogOptions{}); err != nil {
		t.Fatalf("a read: %v", err)
	}
	if _, err := Init(t.TempDir()+"/new.git", Options{RequireAuthor: true}); err != nil {
		t.Fatalf("Init without an author: %v", err)
	}
	signed, err := Open(dir, Options{Now: fixedClock(), RequireAuthor: true, Author: Signature{Name: "A", Email: "a@b"}})
	if err != nil {
		t.Fatal(err)
	}
	defer signed.Close()
	commitFacts(t, signed, "camelot", 10, 11)
}
