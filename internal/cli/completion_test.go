package cli

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// completions runs `deloreis __complete args…` and returns the candidates
// it offers (the lines before the directive).
func completions(t *testing.T, args ...string) []string {
	t.Helper()
	out, errs, code := deloreis(t, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, ":") {
			break
		}
		got = append(got, l)
	}
	return got
}

// TestCompletionOfValues: where a command takes a revision, a branch, a
// scope or a remote, shell completion offers the store's own, as git's
// completion offers branches and revisions.
func TestCompletionOfValues(t *testing.T) {
	demo := demoStore(t)
	if out, err := exec.Command("git", "--git-dir", demo, "tag", "v1", "main~1").CombinedOutput(); err != nil {
		t.Fatalf("git tag: %v\n%s", err, out)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	mustRun(t, "clone", "file://"+demo, clone)
	d, c := "--store="+demo, "--project="+clone
	revs := []string{"HEAD", "main", "sarras-account", "v1"}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{d, "show", ""}, revs},
		{[]string{d, "log", ""}, revs},
		{[]string{d, "log", "main..s"}, []string{"main..sarras-account"}},
		{[]string{d, "log", "...m"}, []string{"...main"}},
		{[]string{d, "merge", "sa"}, []string{"sarras-account"}},
		{[]string{d, "merge", "--into", ""}, []string{"main", "sarras-account"}},
		{[]string{d, "branch", "-d", ""}, []string{"main", "sarras-account"}},
		{[]string{d, "branch", "new", "v"}, []string{"v1"}},
		{[]string{d, "branch", ""}, nil}, // a new branch's name
		{[]string{d, "log", "--scope", "c"}, []string{"camelot"}},
		{[]string{d, "graph", "--scope", ""}, []string{"camelot"}},
		{[]string{d, "graph", "--at", "m"}, []string{"main"}},
		{[]string{d, "show", "HEAD", ""}, nil}, // one argument only
		{[]string{c, "push", ""}, []string{"origin"}},
		{[]string{c, "push", "origin", ""}, []string{"main"}},
		{[]string{c, "fetch", ""}, []string{"origin"}},
		{[]string{c, "pull", ""}, []string{"origin"}},
		{[]string{c, "pull", "origin", ""}, []string{"main", "sarras-account"}},
		{[]string{c, "sync", ""}, []string{"origin"}},
		{[]string{c, "sync", "--branch", ""}, []string{"main"}},
		{[]string{c, "remote", "remove", ""}, []string{"origin"}},
		{[]string{c, "show", "origin/s"}, []string{"origin/sarras-account"}},
	}
	for _, tc := range cases {
		got := completions(t, tc.args...)
		if !slices.Equal(got, tc.want) {
			t.Errorf("__complete %s = %q, want %q", strings.Join(tc.args, " "), got, tc.want)
		}
	}
	// Outside a project there is nothing to offer, and no error.
	if got := completions(t, "--project="+t.TempDir(), "show", ""); len(got) != 0 {
		t.Errorf("__complete outside a project = %q", got)
	}
}
