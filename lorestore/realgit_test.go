// Real git agrees: stores written here pass git fsck --strict, read in git
// log, push to bare repositories over file:// and git:// (git daemon on
// 127.0.0.1) and smart HTTP (git-http-backend on 127.0.0.1), clone back
// with real git clone and with our own, and open as the same world.

package lorestore

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/internal/testenv"
)

// startHTTP serves the bare repositories under base over smart HTTP with
// real git's git-http-backend (as CGI, on a loopback port), pushes
// allowed, and returns its http:// URL prefix.
func startHTTP(t *testing.T, base string) string {
	t.Helper()
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	backend := filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend")
	h := &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + base, "GIT_HTTP_EXPORT_ALL=1"}}
	// net/http/cgi refuses a chunked body, which a push over 1 MiB is (as
	// git's is); web servers pass it on and the backend reads it to its end.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.TransferEncoding = nil
		h.ServeHTTP(w, r)
	})) // listens on 127.0.0.1
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

func TestRealGitAgrees(t *testing.T) {
	s, dir := newStore(t)
	for c := 0; c < 100; c++ {
		commitFacts(t, s, []string{"camelot", "avalon"}[c%2], c*100, c*100+100)
	}
	s.WaitBackground()
	fsckClean(t, dir)
	summaries := strings.Split(strings.TrimSpace(git(t, dir, "log", "--format=%s")), "\n")
	if len(summaries) != 101 {
		t.Fatalf("git log shows %d commits, want 101", len(summaries))
	}
	for c := 0; c < 100; c++ {
		want := fmt.Sprintf("add facts %d-%d", c*100, c*100+100)
		if summaries[99-c] != want {
			t.Fatalf("git log line %d = %q, want %q", 99-c, summaries[99-c], want)
		}
	}
	if ops := git(t, dir, "log", "-1", "--format=%(trailers:key=Lore-Op,valueonly)"); strings.TrimSpace(ops) != "materialize" {
		t.Fatalf("git reads the Lore-Op trailer as %q", ops)
	}
	want := allIDs(t, s, "main")
	if len(want) != 10000 {
		t.Fatalf("%d objects, want 10000", len(want))
	}

	remotes := t.TempDir()
	git(t, remotes, "init", "-q", "--bare", "-b", "main", "file.git")
	git(t, remotes, "init", "-q", "--bare", "-b", "main", "daemon.git")
	git(t, remotes, "init", "-q", "--bare", "-b", "main", "http.git")
	git(t, filepath.Join(remotes, "http.git"), "config", "http.receivepack", "true")
	daemon := testenv.GitDaemon(t, remotes)
	web := startHTTP(t, remotes)
	for _, url := range []string{"file://" + filepath.Join(remotes, "file.git"), daemon + "daemon.git", web + "http.git"} {
		t.Run(url[:4], func(t *testing.T) {
			ups, err := s.Push(context.Background(), url, PushOptions{})
			if err != nil {
				t.Fatal(err)
			}
			head, _ := s.Head("main")
			if len(ups) != 1 || ups[0].New != head || !ups[0].Old.IsZero() {
				t.Fatalf("push updates = %+v", ups)
			}
			clone := filepath.Join(t.TempDir(), "clone")
			git(t, filepath.Dir(clone), "clone", "-q", "--no-checkout", url, clone)
			fsckClean(t, filepath.Join(clone, ".git"))
			c, err := Open(clone, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if got := allIDs(t, c, "main"); !slices.Equal(got, want) {
				t.Fatalf("clone holds %d objects, want the same %d", len(got), len(want))
			}
			// And our own clone, over the same transport.
			ours, err := Clone(context.Background(), url, filepath.Join(t.TempDir(), "ours.git"), CloneOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer ours.Close()
			if got := allIDs(t, ours, "main"); !slices.Equal(got, want) {
				t.Fatalf("our clone holds %d objects, want the same %d", len(got), len(want))
			}
		})
	}
}

func TestPushIncrementalAndNonFastForward(t *testing.T) {
	s, dir := newStore(t)
	commitFacts(t, s, "camelot", 0, 100)
	remotes := t.TempDir()
	git(t, remotes, "init", "-q", "--bare", "-b", "main", "r.git")
	url := "file://" + filepath.Join(remotes, "r.git")
	if _, err := s.Push(context.Background(), url, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	// A one-commit push sends only what changed: the blob, five trees
	// and the commit.
	res := commitFacts(t, s, "camelot", 100, 101)
	known := []string{}
	for _, l := range strings.Split(strings.TrimSpace(git(t, dir, "ls-remote", url)), "\n") {
		known = append(known, strings.Fields(l)[0])
	}
	objs, err := s.objectsToPush(hashes(res.Commit), hashes(parseHashes(t, known)...))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 7 {
		t.Fatalf("a one-object commit pushes %d objects, want 7 (commit, 5 trees, blob)", len(objs))
	}
	if _, err := s.Push(context.Background(), url, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(git(t, remotes, "--git-dir", "r.git", "rev-parse", "main")); got != res.Commit.String() {
		t.Fatalf("remote main = %s, want %s", got, res.Commit)
	}
	fsckClean(t, filepath.Join(remotes, "r.git"))
	// Someone else moves the remote; our push must refuse, not overwrite.
	other := filepath.Join(t.TempDir(), "other")
	c, err := Clone(context.Background(), url, other, CloneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	commitFacts(t, c, "camelot", 500, 501)
	if _, err := c.Push(context.Background(), "origin", PushOptions{}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	commitFacts(t, s, "camelot", 600, 601)
	if _, err := s.Push(context.Background(), url, PushOptions{}); err == nil || !strings.Contains(err.Error(), "non-fast-forward") {
		t.Fatalf("push over a moved remote: %v", err)
	}
	// Fetch, merge, push again.
	if err := s.AddRemote("origin", url); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fetch(context.Background(), "origin", FetchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Merge("origin/main", MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Push(context.Background(), "origin", PushOptions{}); err != nil {
		t.Fatal(err)
	}
	fsckClean(t, filepath.Join(remotes, "r.git"))
	ids := allIDs(t, s, "main")
	if len(ids) != 103 {
		t.Fatalf("%d objects after merge, want 103", len(ids))
	}
}
