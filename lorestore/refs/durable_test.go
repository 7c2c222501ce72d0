package refs

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/deloreis/deloreis/lorestore/fsys"
	"github.com/go-git/go-git/v5/plumbing"
)

// fsOp is one operation a traced write made, and the path it named.
type fsOp struct {
	op   string
	path string // relative to the git dir
}

// opLog records the operations of an fsys.Traced, by their paths under dir.
type opLog struct {
	mu  sync.Mutex
	dir string
	ops []fsOp
}

// rel is p relative to the git dir, with forward slashes (p itself if it
// is not under it).
func (l *opLog) rel(p string) string {
	r, err := filepath.Rel(l.dir, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// note is the fsys.Traced Note: it logs op by the path it names, a rename
// by the path it renames over.
func (l *opLog) note(op string, paths ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if op == "rename" {
		l.ops = append(l.ops, fsOp{op, l.rel(paths[1])})
		return
	}
	l.ops = append(l.ops, fsOp{op, l.rel(paths[0])})
}

// flushOrder finds in ops the first flush of a file, the rename over
// target and the flush of target's folder after it (-1: not there).
func flushOrder(ops []fsOp, target string) (synced, renamed, dirSynced int) {
	synced, renamed, dirSynced = -1, -1, -1
	for i, st := range ops {
		switch {
		case st.op == "sync" && synced < 0:
			synced = i
		case st.op == "rename" && st.path == target:
			renamed = i
		case st.op == "syncdir" && st.path == filepath.ToSlash(filepath.Dir(target)) && renamed >= 0:
			dirSynced = i
		}
	}
	return synced, renamed, dirSynced
}

// TestWritesFlushInOrder: Update, Delete (through packed-refs) and
// SetHead flush the lock's content before renaming it over the ref,
// packed-refs or HEAD, and the folder after; with NoFsync they flush
// nothing. Fails with the flushes of txn.commit removed.
func TestWritesFlushInOrder(t *testing.T) {
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
				l := new(opLog)
				dir, s := newRepo(t, Options{NoFsync: !durable, FS: fsys.Traced{Note: l.note}})
				l.mu.Lock()
				l.dir = dir
				l.mu.Unlock()
				if tc.setup != nil {
					tc.setup(t, dir, s)
				}
				l.mu.Lock()
				l.ops = nil
				l.mu.Unlock()
				if err := tc.write(s); err != nil {
					t.Fatal(err)
				}
				l.mu.Lock()
				defer l.mu.Unlock()
				log := l.ops
				synced, renamed, dirSynced := flushOrder(log, tc.target)
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
