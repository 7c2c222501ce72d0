// Tests of the habits a newcomer brings from git and cobra (issue 33):
// --version, typo hints, a show with no argument, log ranges, conflicts
// and a missing identity by exit status.

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestVersionFlag: `deloreis --version` prints what `deloreis version`
// prints and exits 0, as cobra's Version and git do.
func TestVersionFlag(t *testing.T) {
	want := mustRun(t, "version")
	for _, args := range [][]string{{"--version"}, {"--project", ".", "--version"}} {
		out, errs, code := deloreis(t, args...)
		if code != 0 || out != want || errs != "" {
			t.Errorf("deloreis %s: exit %d, stdout %q, stderr %q; want %q", strings.Join(args, " "), code, out, errs, want)
		}
	}
}

// TestTypoHints: a misspelt command, subcommand or flag is a usage error
// (exit 2) that names what was probably meant, as cobra and git do.
func TestTypoHints(t *testing.T) {
	cases := []struct {
		args []string
		want string // the suggestion, "" for none
	}{
		{[]string{"lgo"}, "log"},
		{[]string{"--store", "x", "shwo"}, "show"},
		{[]string{"remote", "ad"}, "add"},
		{[]string{"dke", "chek"}, "check"},
		{[]string{"log", "--onelin"}, "--oneline"},
		{[]string{"log", "--scop", "x"}, "--scope"},
		{[]string{"zzzzzz"}, ""},
	}
	for _, c := range cases {
		out, errs, code := deloreis(t, c.args...)
		line := strings.SplitN(errs, "\n", 2)[0]
		switch {
		case code != 2 || out != "" || !strings.HasPrefix(line, "deloreis: unknown"):
			t.Errorf("deloreis %s: exit %d, stdout %q, stderr %q", strings.Join(c.args, " "), code, out, errs)
		case c.want == "" && strings.Contains(errs, "Did you mean"):
			t.Errorf("deloreis %s: a hint where none fits: %q", strings.Join(c.args, " "), errs)
		case c.want != "" && !strings.Contains(errs, "\n\nDid you mean this?\n\t"+c.want+"\n"):
			t.Errorf("deloreis %s: stderr %q lacks the hint %q", strings.Join(c.args, " "), errs, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	cands := []string{"gc", "log", "show", "scope", "op", "sync"}
	cases := []struct {
		typed string
		want  string
	}{
		{"lgo", "log"},    // a swap is one edit: log, not gc
		{"scop", "scope"}, // a prefix wins over a near miss (op)
		{"sohw", "show"},
		{"snyc", "sync"},
		{"zzzz", ""},
		{"g", ""}, // one letter is no prefix worth naming, nor near anything
		{"x", ""},
	}
	for _, c := range cases {
		if got := strings.Join(nearest(c.typed, cands, ""), " "); got != c.want {
			t.Errorf("nearest(%q) = %q, want %q", c.typed, got, c.want)
		}
	}
}

// TestPullConflictExitsOne: a pull whose merge brings a world conflict
// reports it and exits 1, as git pull and deloreis merge do (the merge is
// written, as sync writes it: DL-0027).
func TestPullConflictExitsOne(t *testing.T) {
	t.Setenv("DELOREIS_AUTHOR", "Pull Keeper <pull@deloreis.invalid>")
	a, b := conflictingReplicas(t)
	mustRun(t, "--project", a, "push")
	out, errs, code := deloreis(t, "--project", b, "pull")
	if code != 1 || !strings.Contains(out, "conflict in camelot: functional: ") || !strings.Contains(out, "merged main of origin into main: ") {
		t.Fatalf("pull: exit %d, want 1 with the conflict reported\nstdout %s\nstderr %s", code, out, errs)
	}
	if out, errs, code := deloreis(t, "--project", b, "pull"); code != 0 {
		t.Fatalf("the second pull: exit %d\n%s%s", code, out, errs)
	}
}

// TestShowHeadAndLogRanges: show with no argument shows HEAD, as git show
// does; log A..B lists the commits of B's history that A's lacks, and
// A...B those of either history but not both, as git log reads them.
func TestShowHeadAndLogRanges(t *testing.T) {
	dir := demoStore(t)
	if got, want := mustRun(t, "--store", dir, "show"), mustRun(t, "--store", dir, "show", "HEAD"); got != want {
		t.Errorf("show differs from show HEAD:\n%s\n---\n%s", got, want)
	}
	lines := func(args ...string) []string {
		return strings.Split(strings.TrimSpace(mustRun(t, append([]string{"--store", dir, "log", "--oneline"}, args...)...)), "\n")
	}
	minus := func(a, b []string) []string {
		var out []string
		for _, l := range a {
			if !slices.Contains(b, l) {
				out = append(out, l)
			}
		}
		return out
	}
	main, side := lines("main~1"), lines("sarras-account")
	for _, c := range []struct {
		rng  string
		want []string
	}{
		{"main~1..sarras-account", minus(side, main)},
		{"sarras-account..main~1", minus(main, side)},
		{"main~1...sarras-account", append(minus(main, side), minus(side, main)...)},
	} {
		got := lines(c.rng)
		if len(c.want) == 0 || !sameSet(got, c.want) {
			t.Errorf("log %s = %q, want %q", c.rng, got, c.want)
		}
	}
	if _, errs, code := deloreis(t, "--store", dir, "log", "main..nosuch"); code != 1 || !strings.Contains(errs, "nosuch") {
		t.Errorf("log main..nosuch: exit %d, stderr %q", code, errs)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// noIdentity clears every source of an author for the test: no
// --author, no DELOREIS_AUTHOR, a global git config without a user.
func noIdentity(t *testing.T) {
	t.Setenv("DELOREIS_AUTHOR", "")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "no-gitconfig"))
}

// TestNoIdentityRefusesCommits: with no identity set, a command that
// would write a commit is refused as git refuses one, naming --author,
// DELOREIS_AUTHOR and git config, exit 1 and nothing written; reads and
// init (the store's own root commit) go on, and so does an identity
// given any of the three ways.
func TestNoIdentityRefusesCommits(t *testing.T) {
	noIdentity(t)
	proj := filepath.Join(t.TempDir(), "proj")
	mustRun(t, "--project", proj, "init", "--scope", "camelot")
	history := mustRun(t, "--project", proj, "log", "--oneline")
	camelot := "../../testdata/dli/camelot.dli"
	for _, args := range [][]string{
		{"scope", "add", "avalon"},
		{"import", camelot, "--materialize"},
	} {
		out, errs, code := deloreis(t, append([]string{"--project", proj}, args...)...)
		if code != 1 || !strings.HasPrefix(errs, "deloreis: author identity unknown") {
			t.Errorf("deloreis %s: exit %d, want 1 naming the unknown identity\nstdout %q\nstderr %q", strings.Join(args, " "), code, out, errs)
		}
		for _, w := range []string{"--author", "DELOREIS_AUTHOR", "git config --global user.name", "git config --global user.email"} {
			if !strings.Contains(errs, w) {
				t.Errorf("deloreis %s: the refusal does not name %s:\n%s", strings.Join(args, " "), w, errs)
			}
		}
	}
	if got := mustRun(t, "--project", proj, "log", "--oneline"); got != history {
		t.Fatalf("a refused command wrote:\n%s\nwas:\n%s", got, history)
	}
	mustRun(t, "--project", proj, "show")
	mustRun(t, "--project", proj, "--author", "Lore Keeper <keeper@deloreis.invalid>", "scope", "add", "avalon")
	t.Setenv("DELOREIS_AUTHOR", "Lore Keeper <keeper@deloreis.invalid>")
	mustRun(t, "--project", proj, "import", camelot, "--materialize")
	if log := mustRun(t, "--project", proj, "log", "-n", "2"); strings.Contains(log, "deloreis@localhost") || strings.Count(log, "keeper@deloreis.invalid") != 2 {
		t.Errorf("the commits are not signed by the identity given:\n%s", log)
	}
}

// TestHabitsWholeProcess runs the habits as a user's shell does, the
// built program with no identity anywhere in its environment: the exit
// statuses are the process's own.
func TestHabitsWholeProcess(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DELOREIS_") && !strings.HasPrefix(kv, "GIT_CONFIG_GLOBAL=") {
			env = append(env, kv)
		}
	}
	env = append(env, "GIT_CONFIG_GLOBAL="+filepath.Join(dir, "no-gitconfig"))
	steps := []struct {
		args   []string
		code   int
		stdout string // a part of it
		stderr string // a part of it
	}{
		{[]string{"--version"}, 0, "deloreis " + version + " (store format", ""},
		{[]string{"lgo"}, 2, "", "unknown command \"lgo\" for \"deloreis\"\n\nDid you mean this?\n\tlog\n"},
		{[]string{"init", "--scope", "camelot"}, 0, "", ""},
		{[]string{"scope", "add", "avalon"}, 1, "", "deloreis: author identity unknown: nothing was written"},
		{[]string{"show"}, 0, "declare scope camelot", ""},
		{[]string{"__complete", "show", ""}, 0, "HEAD\nmain\n:4\n", ""},
	}
	for _, s := range steps {
		cmd := exec.Command(bin, s.args...)
		cmd.Dir, cmd.Env = dir, env
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != s.code || !strings.Contains(out.String(), s.stdout) || !strings.Contains(errb.String(), s.stderr) {
			t.Errorf("deloreis %s: exit %d (want %d)\nstdout %q\nstderr %q", strings.Join(s.args, " "), code, s.code, out.String(), errb.String())
		}
	}
}
