// A big commit in bounded memory (issue 8 item 7): a batch from
// Store.NewBatch streams each object into the commit's pack as it is put,
// and keeps every guarantee of a small one.

package lorestore

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// spooled lists temporary pack files that hold anything (an empty one is
// a spare a writer keeps ready).
func spooled(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, d := range []string{"objects", "objects/pack"} {
		es, err := os.ReadDir(filepath.Join(dir, d))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if info, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), "tmp_") && info.Size() > 0 {
				out = append(out, e.Name())
			}
		}
	}
	return out
}

func TestBigBatchHeap(t *testing.T) {
	const n = 150_000
	s, dir := newStore(t)
	base := liveHeap()
	b := testBatch(s)
	for i := 0; i < n; i++ {
		if _, err := b.Put("camelot", fact(i)); err != nil {
			t.Fatal(err)
		}
	}
	held := liveHeap()
	perObject := (int64(held) - int64(base)) / n
	runtime.KeepAlive(b)
	t.Logf("an open batch of %d objects holds %d bytes of heap per object", n, perObject)
	// Name, id and index entry: under 200 bytes an object. A batch that
	// holds the encoded objects needs more than twice that.
	if perObject > 200 {
		t.Fatalf("a batch of %d objects holds %d bytes of heap per object, want at most 200", n, perObject)
	}
	res, err := s.Commit(b, NewMessage("bulk", "materialize", "camelot"), CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ids := allIDs(t, s, res.Commit.String()); len(ids) != n {
		t.Fatalf("%d objects at the new head, want %d", len(ids), n)
	}
	s.WaitBackground()
	fsckClean(t, dir)
}

// TestBigBatchAllOrNothing: a streamed batch that is refused, that changes
// nothing, or that is dropped leaves the repository byte-identical and no
// temporary file behind.
func TestBigBatchAllOrNothing(t *testing.T) {
	const n = 5_000 // several chunks of the pack writer
	tests := []struct {
		name string
		run  func(t *testing.T, s *Store, b *Batch, stale Hash) error
		want func(error) bool
	}{
		{"stale-refused", func(t *testing.T, s *Store, b *Batch, stale Hash) error {
			_, err := s.Commit(b, NewMessage("bulk", "materialize", "camelot"), CommitOptions{Parent: stale, Refuse: true})
			return err
		}, func(err error) bool { var se *StaleError; return errors.As(err, &se) }},
		{"bad-message", func(t *testing.T, s *Store, b *Batch, _ Hash) error {
			_, err := s.Commit(b, NewMessage("", "materialize", "camelot"), CommitOptions{})
			return err
		}, func(err error) bool { return err != nil }},
		{"unknown-branch", func(t *testing.T, s *Store, b *Batch, _ Hash) error {
			_, err := s.Commit(b, NewMessage("bulk", "materialize", "camelot"), CommitOptions{Branch: "nosuch"})
			return err
		}, func(err error) bool { return err != nil }},
		{"nothing-new", func(t *testing.T, s *Store, b *Batch, _ Hash) error {
			res, err := s.Commit(b, NewMessage("again", "materialize", "camelot"), CommitOptions{})
			if err == nil && !res.Empty {
				t.Fatalf("a batch of stored objects wrote commit %s", res.Commit)
			}
			return err
		}, func(err error) bool { return err == nil }},
		{"dropped", func(t *testing.T, s *Store, b *Batch, _ Hash) error {
			b.Close()
			return nil
		}, func(err error) bool { return err == nil }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, dir := newStore(t)
			old := commitFacts(t, s, "camelot", 0, 1)
			var from, to int
			if tc.name == "nothing-new" {
				commitBig(t, s, 1, n)
				from, to = 1, n
			} else {
				commitFacts(t, s, "camelot", 1, 2)
				from, to = 2, n+2
			}
			s.WaitBackground()
			before := dirState(t, dir)
			b := testBatch(s)
			for i := from; i < to; i++ {
				if _, err := b.Put("camelot", fact(i)); err != nil {
					t.Fatal(err)
				}
			}
			if err := tc.run(t, s, b, old.Commit); !tc.want(err) {
				t.Fatalf("unexpected result: %v", err)
			}
			s.WaitBackground()
			sameState(t, before, dirState(t, dir))
			if ts := spooled(t, dir); len(ts) != 0 {
				t.Fatalf("temporary files left: %v", ts)
			}
		})
	}
}

// commitBig commits facts [from, to) through one streamed batch.
func commitBig(t *testing.T, s *Store, from, to int) CommitResult {
	t.Helper()
	b := testBatch(s)
	for i := from; i < to; i++ {
		if _, err := b.Put("camelot", fact(i)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Commit(b, NewMessage("bulk", "materialize", "camelot"), CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
