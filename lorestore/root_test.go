// Store identity and root commits: every store's root is its own, old
// headers without an id still open, and a root commit lists what it adds.

package lorestore

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rewriteBranch makes a commit on branch whose tree is the branch's tree
// with each path in edits set to a blob of the given bytes (nil removes
// the path), all with real git plumbing, and moves the branch to it.
func rewriteBranch(t testing.TB, dir, branch string, edits map[string][]byte) Hash {
	t.Helper()
	index := filepath.Join(t.TempDir(), "index")
	env := []string{"GIT_INDEX_FILE=" + index}
	run := func(stdin []byte, args ...string) string {
		t.Helper()
		out, err := gitEnv(dir, env, stdin, args...)
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(out)
	}
	run(nil, "--git-dir", dir, "read-tree", "refs/heads/"+branch)
	for path, data := range edits {
		if data == nil {
			run([]byte("0 "+ZeroHash.String()+"\t"+path+"\n"), "--git-dir", dir, "update-index", "--index-info")
			continue
		}
		mode := "100644"
		if m, rest, ok := strings.Cut(path, ":"); ok {
			mode, path = m, rest // "100755:<path>" files with another mode
		}
		blob := run(data, "--git-dir", dir, "hash-object", "-w", "--stdin")
		run(nil, "--git-dir", dir, "update-index", "--add", "--cacheinfo", mode+","+blob+","+path)
	}
	tree := run(nil, "--git-dir", dir, "write-tree")
	commit := run(nil, "--git-dir", dir, "commit-tree", tree, "-p", "refs/heads/"+branch, "-m", "rewritten by real git")
	run(nil, "--git-dir", dir, "update-ref", "refs/heads/"+branch, commit)
	h, err := parseHash(commit)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// gitEnv runs real git in dir with extra environment and stdin.
func gitEnv(dir string, env []string, stdin []byte, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = bytes.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestInitRootsAreUnique: two stores made in the same second (same clock)
// have different roots, so pulling one into the other is refused.
func TestInitRootsAreUnique(t *testing.T) {
	at := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	base := t.TempDir()
	a, err := Init(filepath.Join(base, "a"), Options{Now: at})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Init(filepath.Join(base, "b"), Options{Now: at})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ha, _ := a.Head("main")
	hb, _ := b.Head("main")
	if ha == hb {
		t.Fatal("two stores share their root commit")
	}
	commitFacts(t, b, "camelot", 0, 2)
	if err := a.AddRemote("b", b.Dir()); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Fetch(t.Context(), "b", FetchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Merge("b/main", MergeOptions{FastForward: true}); !errors.Is(err, ErrUnrelated) {
		t.Fatalf("pull of an unrelated store: %v, want ErrUnrelated", err)
	}
	sn, err := a.Snapshot("")
	if err != nil {
		t.Fatal(err)
	}
	if len(sn.Header().Store) != 32 {
		t.Fatalf("store id %q is not 32 hex digits", sn.Header().Store)
	}
}

// TestOldHeaderStillOpens: a store whose header has no store id (written
// before ids existed) opens and merges.
func TestOldHeaderStillOpens(t *testing.T) {
	s, dir := newStore(t)
	old := []byte(`{"contract":"2.0.0","format":1,"kind":"deloreis-lorestore"}`)
	rewriteBranch(t, dir, "main", map[string][]byte{headerPath: old})
	sn, err := s.Snapshot("")
	if err != nil {
		t.Fatal(err)
	}
	if sn.Header().Store != "" {
		t.Fatalf("old header read as %+v", sn.Header())
	}
	for _, bad := range []string{`"XYZ"`, `""`, `"abc"`, `7`} {
		h := []byte(`{"contract":"2.0.0","format":1,"kind":"deloreis-lorestore","store":` + bad + `}`)
		rewriteBranch(t, dir, "main", map[string][]byte{headerPath: h})
		if _, err := s.Snapshot(""); !errors.Is(err, ErrNotLorestore) {
			t.Fatalf("header with store %s: %v", bad, err)
		}
	}
}

// TestChangesOfRootCommit: the root commit lists what it added.
func TestChangesOfRootCommit(t *testing.T) {
	s, dir := newStore(t)
	root, _ := s.Head("main")
	if ch, err := s.Changes(root); err != nil || len(ch) != 0 {
		t.Fatalf("changes of an empty root = %v, %v", ch, err)
	}
	// A root commit that holds objects: what real git would make of an
	// import into an orphan branch.
	commitFacts(t, s, "camelot", 0, 3)
	tree := strings.TrimSpace(git(t, dir, "--git-dir", dir, "rev-parse", "main^{tree}"))
	orphan := strings.TrimSpace(git(t, dir, "--git-dir", dir, "commit-tree", tree, "-m", "orphan"))
	h, _ := parseHash(orphan)
	ch, err := s.Changes(h)
	if err != nil || len(ch) != 3 {
		t.Fatalf("changes of a root holding 3 facts = %v, %v", ch, err)
	}
	for _, c := range ch {
		if c.Removed || c.Scope != "camelot" || c.Kind != Claims {
			t.Fatalf("change %+v", c)
		}
	}
}
