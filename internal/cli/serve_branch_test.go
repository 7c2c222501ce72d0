package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// branchProject is a project whose canon declares liege functional and
// records the decision canon-1, so that two branches can each ratify a
// different liege for one person. Times and ids are fixed.
func branchProject(t testing.TB) string {
	t.Helper()
	p := objects.Proposed("session-1a0")
	return seedProject(t, seed{scopes: []string{"storybook"}, storeID: "b4a9c4b4a9c4b4a9c4b4a9c4b4a9c4b4",
		scope: "storybook", summary: "materialize storybook: canon", objects: []objects.Object{
			&objects.Decision{Ident: "canon-1"},
			&objects.Entity{Kind: objects.KindPerson, Ident: "mireth", Name: "Mireth", Provenance: p},
			&objects.Functional{Pred: "liege", Provenance: p},
		}})
}

// TestServeBranchSession drives author.branch, author.open on a branch and
// author.merge through `deloreis serve` (DLI §3.18): a functional conflict
// held back, a clean merge written, refusals typed. Every response is
// compared with the golden file; afterwards real git reads the history.
func TestServeBranchSession(t *testing.T) {
	dir := branchProject(t)
	got := runSession(t, "testdata/serve/branch-session.jsonl", startServer(t, "--project", dir))
	golden(t, "serve/branch-session", got)

	gitDir := filepath.Join(dir, lorestore.DefaultDir)
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"--git-dir", gitDir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	graph := git("log", "--graph", "--oneline", "--format=%s", "main")
	want := "*   merge tides into main\n|\\  \n| * materialize storybook: 1 entity\n* | materialize storybook: 1 entity\n|/  \n* materialize storybook: 1 fact\n"
	if !strings.HasPrefix(graph, want) {
		t.Fatalf("git log --graph:\n%s\nwant it to begin\n%s", graph, want)
	}
	git("fsck", "--strict", "--no-dangling")
	if bs := git("for-each-ref", "--format=%(refname)", "refs/heads/"); bs != "refs/heads/coastal\nrefs/heads/main\n" {
		t.Fatalf("branches after the session:\n%s", bs)
	}
}
