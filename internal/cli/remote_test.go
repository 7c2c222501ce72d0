// Remotes on the command line: remote add/remove/list agree with real git,
// clone makes a project folder, push warns of a remote whose HEAD names a
// missing branch, and the commit author comes from --author, then
// DELOREIS_AUTHOR, then git config, then the default.

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRemoteAddListRemove(t *testing.T) {
	proj := filepath.Join(t.TempDir(), "p")
	store := filepath.Join(proj, ".lore")
	dlOK(t, "--project", proj, "init", "--scope", "camelot")
	dlOK(t, "--project", proj, "remote", "add", "origin", "/srv/lore/a.git")
	dlOK(t, "--project", proj, "remote", "add", "backup", "https://example.invalid/b.git")
	if out := dlOK(t, "--project", proj, "remote"); out != "backup\norigin\n" {
		t.Fatalf("remote said %q", out)
	}
	want := "backup\thttps://example.invalid/b.git (fetch)\nbackup\thttps://example.invalid/b.git (push)\n" +
		"origin\t/srv/lore/a.git (fetch)\norigin\t/srv/lore/a.git (push)\n"
	if out := dlOK(t, "--project", proj, "remote", "list", "-v"); out != want {
		t.Fatalf("remote list -v said %q", out)
	}
	if got := realGit(t, "", nil, "--git-dir="+store, "remote", "-v"); got+"\n" != want {
		t.Fatalf("git remote -v says %q, deloreis %q", got, want)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"remote", "add", "origin", "/elsewhere"}, 1, "already exists"},
		{[]string{"remote", "add", "bad/name", "/x"}, 1, "not usable"},
		{[]string{"remote", "add", "lonely"}, 2, ""},
		{[]string{"remote", "remove", "nosuch"}, 1, "no such remote"},
	} {
		_, errs, code := dl(t, append([]string{"--project", proj}, tc.args...)...)
		if code != tc.code && !(tc.code == 2 && code != 0) || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: exit %d, %q; want exit %d with %q", tc.args, code, errs, tc.code, tc.msg)
		}
	}
	// Remove drops the remote and its tracking refs, as git does.
	realGit(t, "", nil, "--git-dir="+store, "update-ref", "refs/remotes/origin/main", "main")
	dlOK(t, "--project", proj, "remote", "remove", "origin")
	if got := realGit(t, "", nil, "--git-dir="+store, "remote"); got != "backup" {
		t.Fatalf("after remove, git remote says %q", got)
	}
	if got := realGit(t, "", nil, "--git-dir="+store, "for-each-ref", "refs/remotes/"); got != "" {
		t.Fatalf("tracking refs left: %q", got)
	}
	realGit(t, "", nil, "--git-dir="+store, "fsck", "--strict")
}

func TestCloneMakesAProject(t *testing.T) {
	work := t.TempDir()
	proj := filepath.Join(work, "p")
	dlOK(t, "--project", proj, "init", "--scope", "camelot")
	dlOK(t, "import", "../../testdata/dli/grail-base.dli", "--project", proj, "--materialize")
	remote := filepath.Join(work, "lore.git")
	realGit(t, "", nil, "init", "-q", "--bare", "-b", "main", remote)
	dlOK(t, "--project", proj, "push", remote)
	want := dlOK(t, "--project", proj, "log", "--oneline")

	t.Chdir(work)
	if out := dlOK(t, "clone", "file://"+remote, "copy"); out != "Cloned file://"+remote+" into copy\n" {
		t.Fatalf("clone said %q", out)
	}
	t.Chdir(filepath.Join(work, "copy"))
	if got := dlOK(t, "log", "--oneline"); got != want {
		t.Fatalf("log in the cloned folder:\n%s\nwant\n%s", got, want)
	}
	if out := dlOK(t, "remote", "-v"); !strings.HasPrefix(out, "origin\tfile://"+remote+" (fetch)") {
		t.Fatalf("clone's remote: %q", out)
	}
	// Without a folder, it is named after the URL, as git names it.
	t.Chdir(work)
	dlOK(t, "clone", remote)
	if _, err := os.Stat(filepath.Join(work, "lore", ".lore", "HEAD")); err != nil {
		t.Fatalf("clone without a folder: %v", err)
	}
	// Into a folder that holds something: refused, nothing touched.
	if _, errs, code := dl(t, "clone", remote, "copy"); code != 1 || !strings.Contains(errs, "not empty") {
		t.Fatalf("clone into a full folder: %d %q", code, errs)
	}
}

func TestPushToDanglingHeadHints(t *testing.T) {
	work := t.TempDir()
	proj := filepath.Join(work, "p")
	dlOK(t, "--project", proj, "init", "--scope", "camelot")
	remote := filepath.Join(work, "bare.git")
	realGit(t, "", nil, "init", "-q", "--bare", "-b", "master", remote)
	out, errs, code := dl(t, "--project", proj, "push", remote)
	if code != 0 || !strings.Contains(out, "refs/heads/main (new)") {
		t.Fatalf("push: %d %q %q", code, out, errs)
	}
	fix := "git --git-dir=" + remote + " symbolic-ref HEAD refs/heads/main"
	if !strings.Contains(errs, fix) {
		t.Fatalf("push said %q, want a hint with %q", errs, fix)
	}
	realGit(t, "", nil, strings.Fields(fix)[1:]...)
	if _, errs, _ := dl(t, "--project", proj, "push", remote); strings.Contains(errs, "hint") {
		t.Fatalf("hint after the fix: %q", errs)
	}
}

// TestAuthorPrecedence: --author, then DELOREIS_AUTHOR, then the store's
// git config, then the global one, else a commit is refused.
func TestAuthorPrecedence(t *testing.T) {
	work := t.TempDir()
	global := filepath.Join(work, "gitconfig")
	os.WriteFile(global, []byte("[user]\n\tname = Global Person\n\temail = global@example.invalid\n"), 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("DELOREIS_AUTHOR", "")
	proj := filepath.Join(work, "p")
	store := filepath.Join(proj, ".lore")
	dlOK(t, "--project", proj, "init", "--scope", "camelot")
	author := func() string {
		return realGit(t, "", nil, "--git-dir="+store, "log", "-1", "--format=%an <%ae>|%cn <%ce>")
	}
	commit := func(extra ...string) {
		t.Helper()
		dlOK(t, append([]string{"--project", proj}, extra...)...)
	}
	branch := 0
	mergeOne := func(extra ...string) {
		t.Helper()
		branch++
		name := "b" + string(rune('0'+branch))
		commit("branch", name)
		// A commit on the branch, so that the merge writes a commit.
		gd := "--git-dir=" + store
		tip := realGit(t, "", nil, gd, "commit-tree", "-p", name, "-m", "empty", realGit(t, "", nil, gd, "rev-parse", name+"^{tree}"))
		realGit(t, "", nil, gd, "update-ref", "refs/heads/"+name, tip)
		commit(append(extra, "merge", name)...)
	}
	if got := author(); got != "Global Person <global@example.invalid>|Global Person <global@example.invalid>" {
		t.Fatalf("init signed as %q, want the global git config", got)
	}
	realGit(t, "", nil, "--git-dir="+store, "config", "user.name", "Store Person")
	realGit(t, "", nil, "--git-dir="+store, "config", "user.email", "store@example.invalid")
	mergeOne()
	if got := author(); !strings.HasPrefix(got, "Store Person <store@example.invalid>") {
		t.Fatalf("signed as %q, want the store's git config", got)
	}
	t.Setenv("DELOREIS_AUTHOR", "Env Person <env@example.invalid>")
	mergeOne()
	if got := author(); !strings.HasPrefix(got, "Env Person <env@example.invalid>") {
		t.Fatalf("signed as %q, want DELOREIS_AUTHOR", got)
	}
	mergeOne("--author", "Flag Person <flag@example.invalid>")
	if got := author(); !strings.HasPrefix(got, "Flag Person <flag@example.invalid>") {
		t.Fatalf("signed as %q, want --author", got)
	}
	if _, errs, code := dl(t, "--project", proj, "--author", "no brackets", "log"); code != 2 || !strings.Contains(errs, "--author") {
		t.Fatalf("bad --author: %d %q", code, errs)
	}
	t.Setenv("DELOREIS_AUTHOR", "<>")
	if _, errs, code := dl(t, "--project", proj, "log"); code != 1 || !strings.Contains(errs, "DELOREIS_AUTHOR") {
		t.Fatalf("bad DELOREIS_AUTHOR: %d %q", code, errs)
	}
	// A global config that does not parse: a warning, and the next source.
	t.Setenv("DELOREIS_AUTHOR", "")
	os.WriteFile(global, []byte("[user\n\tname = broken\n"), 0o644)
	if _, errs, code := dl(t, "--project", proj, "branch", "warned"); code != 0 || !strings.Contains(errs, "warning") || !strings.Contains(errs, global) {
		t.Fatalf("broken global config: %d %q", code, errs)
	}
	// A command that writes no commit does not read git's config at all.
	if _, errs, code := dl(t, "--project", proj, "log"); code != 0 || errs != "" {
		t.Fatalf("log with a broken global config: %d %q", code, errs)
	}
	// Nothing configured anywhere: the commit is refused, as git refuses
	// one (DL-0458), and nothing is written.
	t.Setenv("DELOREIS_AUTHOR", "")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	realGit(t, "", nil, "--git-dir="+store, "config", "--unset", "user.name")
	before := author()
	commit("branch", "b9")
	gd := "--git-dir=" + store
	tip := realGit(t, "", nil, gd, "commit-tree", "-p", "b9", "-m", "empty", realGit(t, "", nil, gd, "rev-parse", "b9^{tree}"))
	realGit(t, "", nil, gd, "update-ref", "refs/heads/b9", tip)
	if _, errs, code := dl(t, "--project", proj, "merge", "b9"); code != 1 || !strings.Contains(errs, "author identity unknown") {
		t.Fatalf("merge with no identity: exit %d, stderr %q", code, errs)
	}
	if got := author(); got != before {
		t.Fatalf("a refused merge wrote a commit signed %q", got)
	}
}
