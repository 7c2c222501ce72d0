// Test helpers shared by the lorestore tests: fact objects, stores, real
// git, and child processes (the test binary re-executed in a role).

package lorestore

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/objects"
)

// fact makes a distinct, valid fact for test n.
func fact(n int) *objects.Fact {
	return &objects.Fact{
		Entity:     fmt.Sprintf("entity-%d", n%97),
		Key:        "note",
		Value:      fmt.Sprintf("value number %d", n),
		Provenance: objects.Proposed("session-test"),
	}
}

func factID(t testing.TB, n int) objects.ID {
	t.Helper()
	id, err := fact(n).ID()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// fixedClock returns a clock that starts at a fixed instant and ticks a
// second per call, so histories are reproducible.
func fixedClock() func() time.Time {
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Second); return t }
}

func newStore(t testing.TB) (*Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "lore.git")
	s, err := Init(dir, Options{Now: fixedClock()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

// commitFacts commits facts [from, to) to scope on main.
func commitFacts(t testing.TB, s *Store, scope string, from, to int) CommitResult {
	t.Helper()
	b := NewBatch()
	for i := from; i < to; i++ {
		if _, err := b.Put(scope, fact(i)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Commit(b, NewMessage(fmt.Sprintf("add facts %d-%d", from, to), "materialize", scope), CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// git runs real git in dir and returns its stdout; it fails the test on a
// non-zero exit.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitErr(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func gitErr(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		return stdout.String() + stderr.String(), err
	}
	return stdout.String(), nil
}

// fsckClean runs `git fsck --strict` and fails on a non-zero exit or any
// error line (dangling objects are reported but are not errors).
func fsckClean(t testing.TB, gitDir string) {
	t.Helper()
	cmd := exec.Command("git", "--git-dir", gitDir, "fsck", "--strict", "--no-progress")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if line == "" || strings.HasPrefix(line, "dangling ") {
			continue
		}
		if strings.Contains(line, "error") || strings.Contains(line, "missing") || strings.Contains(line, "bad") || strings.Contains(line, "warning") {
			t.Fatalf("git fsck --strict complained: %s\n%s", line, out)
		}
	}
}

// dirState records every file under dir with its bytes, to prove that a
// refused call changed nothing.
func dirState(t testing.TB, dir string) map[string]string {
	t.Helper()
	st := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		base := filepath.Base(rel)
		if strings.HasPrefix(base, "deloreis-") || strings.HasPrefix(base, "tmp_") {
			// Our lock sidecars, lock tokens and spare temporary files
			// hold no store data; they come and go in the background.
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		st[rel] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func sameState(t testing.TB, before, after map[string]string) {
	t.Helper()
	var diffs []string
	for k, v := range before {
		if w, ok := after[k]; !ok {
			diffs = append(diffs, "removed "+k)
		} else if v != w {
			diffs = append(diffs, "changed "+k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			diffs = append(diffs, "added "+k)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Fatalf("store changed:\n%s", strings.Join(diffs, "\n"))
	}
}

// allIDs reads every object id of every scope and section at a revision.
func allIDs(t testing.TB, s *Store, rev string) []string {
	t.Helper()
	sn, err := s.Snapshot(rev)
	if err != nil {
		t.Fatal(err)
	}
	scopes, err := sn.Scopes()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, sc := range scopes {
		for _, k := range Kinds {
			es, err := sn.Objects(sc, k)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				id, err := e.Object.ID()
				if err != nil || id != e.ID {
					t.Fatalf("object %s re-encodes to %s (%v)", e.ID, id, err)
				}
				ids = append(ids, sc+"/"+string(k)+"/"+e.ID.String())
			}
		}
	}
	sort.Strings(ids)
	return ids
}

func hashes(hs ...Hash) []Hash { return hs }

func parseHashes(t testing.TB, ss []string) []Hash {
	t.Helper()
	var out []Hash
	for _, s := range ss {
		h, err := parseHash(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, h)
	}
	return out
}
