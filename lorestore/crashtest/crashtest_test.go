package crashtest_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/lorestore/crashtest"
	"github.com/deloreis/deloreis/objects"
)

func fact(n int) *objects.Fact {
	return &objects.Fact{
		Entity:     fmt.Sprintf("entity-%d", n),
		Key:        "note",
		Value:      fmt.Sprintf("value number %d", n),
		Provenance: objects.Proposed("session-test"),
	}
}

func clock() func() time.Time {
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Second); return t }
}

// recorded makes a store, then reopens it through a Recorder.
func recorded(t *testing.T, opts lorestore.Options) (*lorestore.Store, *crashtest.Recorder, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "lore.git")
	opts.Now = clock()
	s, err := lorestore.Init(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	rec, err := crashtest.Record(dir)
	if err != nil {
		t.Fatal(err)
	}
	opts.FS = rec
	s, err = lorestore.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, rec, dir
}

func commit(t *testing.T, s *lorestore.Store, rec *crashtest.Recorder, dir, branch string, facts ...int) lorestore.Hash {
	t.Helper()
	b := lorestore.NewBatch()
	for _, n := range facts {
		if _, err := b.Put("camelot", fact(n)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Commit(b, lorestore.NewMessage("add facts", "materialize", "camelot"), lorestore.CommitOptions{Branch: branch})
	if err != nil {
		t.Fatal(err)
	}
	rec.Ack(crashtest.Ack{Store: dir, Branch: branch, Commit: res.Commit.String(), What: "commit"})
	return res.Commit
}

// TestCrashCommitAndMerge: a crash anywhere in commits, a branch, a
// commit on it and a merge, in a bulk commit, or in the roll-ups of small
// packs that follow commits, leaves a store that opens, passes both fscks
// and holds every commit a call returned. Fails with the flushes of
// publishFiles removed (main names a pack a crash lost).
func TestCrashCommitAndMerge(t *testing.T) {
	cases := []struct {
		name string
		opts lorestore.Options
		run  func(t *testing.T, s *lorestore.Store, rec *crashtest.Recorder, dir string)
	}{
		{"commits and a merge", lorestore.Options{}, func(t *testing.T, s *lorestore.Store, rec *crashtest.Recorder, dir string) {
			commit(t, s, rec, dir, "main", 1)
			commit(t, s, rec, dir, "main", 2, 3)
			if _, err := s.CreateBranch("side", "main"); err != nil {
				t.Fatal(err)
			}
			commit(t, s, rec, dir, "side", 4)
			commit(t, s, rec, dir, "main", 5)
			m, err := s.Merge("side", lorestore.MergeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			rec.Ack(crashtest.Ack{Store: dir, Branch: "main", Commit: m.Commit.String(), What: "merge"})
		}},
		{"bulk commit", lorestore.Options{}, func(t *testing.T, s *lorestore.Store, rec *crashtest.Recorder, dir string) {
			bulk, err := s.NewBulk("camelot")
			if err != nil {
				t.Fatal(err)
			}
			for n := range 500 {
				if _, err := bulk.Put(fact(n)); err != nil {
					t.Fatal(err)
				}
			}
			res, err := bulk.Commit(lorestore.NewMessage("bulk", "import", "camelot"), lorestore.CommitOptions{})
			if err != nil {
				t.Fatal(err)
			}
			rec.Ack(crashtest.Ack{Store: dir, Branch: "main", Commit: res.Commit.String(), What: "bulk commit"})
		}},
		{"roll-ups", lorestore.Options{AutoPackLimit: 2}, func(t *testing.T, s *lorestore.Store, rec *crashtest.Recorder, dir string) {
			for n := range 6 {
				commit(t, s, rec, dir, "main", 10+n)
				s.WaitBackground()
			}
			if idx, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.idx")); len(idx) > 3 {
				t.Fatalf("%d packs after 6 commits: nothing was rolled up", len(idx))
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, rec, dir := recorded(t, c.opts)
			c.run(t, s, rec, dir)
			s.WaitBackground()
			t.Log(rec.Replay(t))
		})
	}
}

// TestCrashWithoutFsync: the harness sees what NoFsync risks: a crash
// after a commit returned can leave main naming a lost pack or an empty
// ref file.
func TestCrashWithoutFsync(t *testing.T) {
	s, rec, dir := recorded(t, lorestore.Options{NoFsync: true})
	commit(t, s, rec, dir, "main", 1)
	ft := &failures{TB: t}
	rec.Replay(ft)
	if ft.n == 0 {
		t.Error("no crash of a store written without fsync lost an acknowledged commit")
	}
}

// failures counts the errors a Replay reports instead of failing.
type failures struct {
	testing.TB
	n int
}

func (f *failures) Errorf(string, ...any) { f.n++ }
