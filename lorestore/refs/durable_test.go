package refs

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/deloreis/deloreis/lorestore/fsys"
	"github.com/go-git/go-git/v5/plumbing"
)

// TestWritesFlushInOrder: Update, Delete (through packed-refs) and
// SetHead flush the lock's content before renaming it over the ref,
// packed-refs or HEAD, and the folder after; with NoFsync they flush
// nothing. Fails with the flushes of txn.commit removed.
func TestWritesFlushInOrder(t *testing.T) {
	type step struct {
		op   string
		path string // relative to the git dir
	}
	cases := []struct {
		name   string
		setup  func(t *testing.T, dir string, s *Store)
		write  func(s *Store) error
		target string // the file renamed over
	}{
		{"update", nil, func(s *Store) error { return s.Update(main, fakeHash(1), plumbing.ZeroHash) }, main},
		{"update nested", nil, func(s *Store) error { return s.Update("refs/heads/a/b", fakeHash(1), plumbing.ZeroHash) }, "refs/heads/a/b"},
		{"head", nil, func(s *Store) error { return s.SetHead("refs/heads/other") }, "HEAD"},
		{"delete packed", func(t *testing.T, dir string, s *Store) {
			h := commit(t, dir, "c")
			git(t, dir, "update-ref", "refs/heads/p", h.String())
			git(t, dir, "update-ref", "refs/heads/q", h.String())
			git(t, dir, "pack-refs", "--all")
		}, func(s *Store) error {
			h, err := s.Read("refs/heads/p")
			if err != nil {
				return err
			}
			return s.Delete("refs/heads/p", h)
		}, packedName},
	}
	for _, tc := range cases {
		for _, durable := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/durable=%v", tc.name, durable), func(t *testing.T) {
				var mu sync.Mutex
				var log []step
				var dir string
				rel := func(p string) string {
					r, err := filepath.Rel(dir, p)
					if err != nil {
						return p
					}
					return filepath.ToSlash(r)
				}
				note := func(op string, paths ...string) {
					mu.Lock()
					defer mu.Unlock()
					if op == "rename" {
						log = append(log, step{op, rel(paths[1])})
						return
					}
					log = append(log, step{op, rel(paths[0])})
				}
				dir, s := newRepo(t, Options{NoFsync: !durable, FS: fsys.Traced{Note: note}})
				if tc.setup != nil {
					tc.setup(t, dir, s)
				}
				mu.Lock()
				log = nil
				mu.Unlock()
				if err := tc.write(s); err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				defer mu.Unlock()
				synced, renamed, dirSynced := -1, -1, -1
				for i, st := range log {
					switch {
					case st.op == "sync" && synced < 0:
						synced = i
					case st.op == "rename" && st.path == tc.target:
						renamed = i
					case st.op == "syncdir" && st.path == filepath.ToSlash(filepath.Dir(tc.target)) && renamed >= 0:
						dirSynced = i
					}
				}
				if renamed < 0 {
					t.Fatalf("%s was never renamed over: %v", tc.target, log)
				}
				if durable && !(0 <= synced && synced < renamed && renamed < dirSynced) {
					t.Errorf("flush of the lock at %d, rename at %d, flush of the folder at %d: %v", synced, renamed, dirSynced, log)
				}
				if !durable && (synced >= 0 || dirSynced >= 0) {
					t.Errorf("NoFsync flushed: %v", log)
				}
			})
		}
	}
}
