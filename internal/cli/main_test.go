// Tests of the command line: each command run in-process against real
// stores, output compared with golden files (go test -update rewrites
// them), errors on one line with a non-zero exit code.

package cli

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// deloreis runs one command line and returns stdout, stderr and the code.
func deloreis(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

// mustRun runs a command that must succeed.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := deloreis(t, args...)
	if code != 0 {
		t.Fatalf("deloreis %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	return out
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("%s differs from %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

// demoStore builds the demo world at a path of the test's own.
func demoStore(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "demo.git")
	mustRun(t, "demo", "--keep", dir)
	return dir
}

func TestDemo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo.git")
	out := mustRun(t, "demo", "--keep", dir)
	golden(t, "demo", strings.ReplaceAll(out, dir, "DIR"))
	// The temporary form prints the same graph, and names no folder: the
	// one it built in is gone when it ends.
	out2 := mustRun(t, "demo")
	header := regexp.MustCompile(`^demo lorestore [^\n]*\n`)
	if header.ReplaceAllString(out2, "X") != header.ReplaceAllString(out, "X") {
		t.Fatalf("demo output differs between runs:\n%s\n%s", out, out2)
	}
	if h := header.FindString(out2); h != "demo lorestore in a temporary folder, removed when demo ends (--keep DIR keeps it)\n" {
		t.Fatalf("demo without --keep says %q", h)
	}
	if strings.Contains(out2, os.TempDir()) || strings.Contains(out2, "deloreis-demo-") {
		t.Fatalf("demo names the temporary folder it deletes:\n%s", out2)
	}
}

func TestLogShowBranch(t *testing.T) {
	dir := demoStore(t)
	cases := []struct {
		name string
		args []string
	}{
		{"log", []string{"log", "-n", "2"}},
		{"log-oneline", []string{"log", "--oneline"}},
		{"log-graph", []string{"log", "--graph", "--oneline"}},
		{"log-scope-op", []string{"log", "--oneline", "--scope", "camelot", "--op", "record_decision"}},
		{"log-branch", []string{"log", "--oneline", "sarras-account"}},
		{"branch-list", []string{"branch"}},
		{"show-commit", []string{"show", "main~"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--store", dir}, tc.args...)
			out, errs, code := deloreis(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			golden(t, tc.name, out)
		})
	}
	// show of the merge commit lists what it brought; show of an object
	// prints its canonical JSON.
	head := strings.Fields(mustRun(t, "--store", dir, "log", "--oneline", "-n", "1"))[0]
	full := strings.TrimPrefix(strings.SplitN(mustRun(t, "--store", dir, "log", "-n", "1"), "\n", 2)[0], "commit ")
	if !strings.HasPrefix(full, head) {
		t.Fatalf("log and log --oneline disagree: %s %s", full, head)
	}
	show := mustRun(t, "--store", dir, "show", "--name-only", full)
	golden(t, "show-merge", show)
	if byShort := mustRun(t, "--store", dir, "show", "--name-only", head); byShort != show {
		t.Fatalf("show %s (abbreviated) differs from show %s", head, full)
	}
	if _, errs, code := deloreis(t, "--store", dir, "show", "main~42"); code != 1 || !strings.Contains(errs, "main~42") {
		t.Fatalf("show main~42: exit %d, stderr %q", code, errs)
	}
	var objID string
	for _, l := range strings.Split(show, "\n") {
		if strings.HasPrefix(l, "+ camelot/claims/") {
			objID = strings.TrimPrefix(l, "+ camelot/claims/")
			break
		}
	}
	golden(t, "show-object", mustRun(t, "--store", dir, "show", objID))
	if byShort := mustRun(t, "--store", dir, "show", objID[:10]); byShort != mustRun(t, "--store", dir, "show", objID) {
		t.Fatalf("show %s (abbreviated object id) differs", objID[:10])
	}
}

func TestBranchCreateDeleteAndErrors(t *testing.T) {
	dir := demoStore(t)
	out := mustRun(t, "--store", dir, "branch", "retcon")
	if !strings.HasPrefix(out, "branch retcon at ") {
		t.Fatalf("branch create said %q", out)
	}
	// branch -d says what it deleted, as git branch -d does.
	at := strings.TrimSpace(strings.TrimPrefix(out, "branch retcon at "))
	if out := mustRun(t, "--store", dir, "branch", "-d", "retcon"); out != "Deleted branch retcon (was "+at+").\n" {
		t.Fatalf("branch -d said %q, want the branch and the head it had", out)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"branch", "../escape"}, 1, "refs: "},
		{[]string{"branch", "a..b"}, 1, "refs: "},
		{[]string{"branch", "main"}, 1, "exists already"},
		{[]string{"branch", "-d", "main"}, 1, "canon branch"},
		{[]string{"branch", "-d"}, 2, "wants one branch name"},
		{[]string{"log", "nowhere"}, 1, "names no branch"},
		{[]string{"log", "--object", "xyz"}, 2, "64 hex digits"},
		{[]string{"merge", "nowhere"}, 1, "names no branch"},
		{[]string{"init", "--scope", "Not a scope"}, 1, "is not a scope id"}, // over a store that exists: it reinitializes, then refuses the scope
		{[]string{"frobnicate"}, 2, "unknown command"},                       // a usage error
	} {
		_, errs, code := deloreis(t, append([]string{"--store", dir}, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.msg) || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "deloreis: ") {
			t.Errorf("deloreis %v: exit %d, stderr %q; want exit %d and one line with %q", tc.args, code, errs, tc.code, tc.msg)
		}
	}
	_, errs, code := deloreis(t, "--store", filepath.Join(t.TempDir(), "none"), "log")
	if code != 1 || !strings.Contains(errs, "not a lorestore") {
		t.Fatalf("log on no store: %d %q", code, errs)
	}
}

func TestInitMergePushFetchClone(t *testing.T) {
	work := t.TempDir()
	store := filepath.Join(work, "proj", ".lore")
	out := mustRun(t, "--project", filepath.Join(work, "proj"), "init")
	if !strings.Contains(out, "Initialized empty lorestore") {
		t.Fatalf("init said %q", out)
	}
	if _, err := os.Stat(filepath.Join(store, "HEAD")); err != nil {
		t.Fatal(err)
	}
	remote := filepath.Join(work, "remote.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", remote).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	url := "file://" + remote
	out = mustRun(t, "--store", store, "push", url)
	if !strings.HasPrefix(out, "* refs/heads/main (new) ") {
		t.Fatalf("push said %q", out)
	}
	out = mustRun(t, "--store", store, "push", url)
	if out != "= refs/heads/main (up to date)\n" {
		t.Fatalf("second push said %q", out)
	}
	clone := filepath.Join(work, "clone.git")
	out = mustRun(t, "--store", clone, "clone", url)
	if out != "Cloned "+url+" into "+clone+"\n" {
		t.Fatalf("clone said %q", out)
	}
	out = mustRun(t, "--store", clone, "fetch")
	if out != "= refs/remotes/origin/main (up to date)\n" {
		t.Fatalf("fetch said %q", out)
	}
	// Merging a branch with nothing new is a no-op; with something new it
	// writes a merge commit.
	mustRun(t, "--store", clone, "branch", "side")
	if out := mustRun(t, "--store", clone, "merge", "side"); out != "Already up to date.\n" {
		t.Fatalf("merge of an equal branch said %q", out)
	}
	_, errs, code := deloreis(t, "--store", clone, "push", "nowhere-remote")
	if code != 1 || !strings.Contains(errs, "no remote named") {
		t.Fatalf("push to an unknown remote: %d %q", code, errs)
	}
	out = mustRun(t, "version")
	if !strings.HasPrefix(out, "deloreis ") || !strings.Contains(out, "contract 2.0.0") {
		t.Fatalf("version said %q", out)
	}
}

func TestFmt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.dli")
	src := "scope camelot\nperson galahad \"Galahad\" proposed session-7c9\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "fmt", path)
	if out != "scope camelot\nperson galahad \"Galahad\"   proposed  session-7c9\n" {
		t.Fatalf("fmt printed %q", out)
	}
	if out := mustRun(t, "fmt", "-d", path); !strings.Contains(out, "+person galahad") {
		t.Fatalf("fmt -d printed %q", out)
	}
	mustRun(t, "fmt", "-w", path)
	if data, _ := os.ReadFile(path); string(data) != "scope camelot\nperson galahad \"Galahad\"   proposed  session-7c9\n" {
		t.Fatalf("fmt -w wrote %q", data)
	}
	bad := filepath.Join(dir, "bad.dli")
	os.WriteFile(bad, []byte("person galahad \"Galahad\" proposed\n"), 0o644)
	_, errs, code := deloreis(t, "fmt", bad)
	if code != 1 || !strings.Contains(errs, "bad.dli:1:") {
		t.Fatalf("fmt of a bad file: exit %d, %q", code, errs)
	}
}

func TestDKECheck(t *testing.T) {
	dir := t.TempDir()
	watch := filepath.Join(dir, "watch.dpy")
	os.WriteFile(watch, []byte("def watch(n: int):\n    i = 0\n    while i < n:\n        print(\"checking\")\n"), 0o644)
	out, _, code := deloreis(t, "dke", "check", watch)
	if code != 1 || !strings.Contains(out, "watch.dpy:3:5: parse_error: DKE Python has no `while` loop") || !strings.Contains(out, "fix: for <var> in <collection>:") {
		t.Fatalf("dke check: exit %d\n%s", code, out)
	}
	fixed := filepath.Join(dir, "fixed.dpy")
	os.WriteFile(fixed, []byte("def watch(k: string):\n    for a in list attributes of k:\n        print(a)\n"), 0o644)
	if out, errs, code := deloreis(t, "dke", "check", fixed, "--format", "json"); code != 0 {
		t.Fatalf("dke check of the fixed module: exit %d\n%s%s", code, out, errs)
	}
}

// TestTextCommandsGolden runs check, fmt -d and import on the sample files
// under testdata/dli/ and compares with golden output.
func TestTextCommandsGolden(t *testing.T) {
	const dir = "../../testdata/dli/"
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"check-findings", []string{"check", dir + "findings.dli"}, 1},
		{"check-clean", []string{"check", dir + "camelot.dli"}, 0},
		{"check-broken", []string{"check", dir + "broken.dli"}, 1},
		{"fmt-d-findings", []string{"fmt", "-d", dir + "findings.dli"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := deloreis(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out, errs)
			}
			golden(t, tc.name, out+errs)
		})
	}
}

func TestImport(t *testing.T) {
	const dir = "../../testdata/dli/"
	proj := t.TempDir()
	mustRun(t, "--project", proj, "init", "--scope", "camelot")
	hash := regexp.MustCompile(`[0-9a-f]{12}`)
	// A dry run shows findings and consequences and commits nothing.
	out := mustRun(t, "import", dir+"camelot.dli", "--project", proj, "--scope", "camelot")
	golden(t, "import-dry", out)
	if log := mustRun(t, "--project", proj, "log", "--oneline"); strings.Count(log, "\n") != 2 { // init, declare scope camelot
		t.Fatalf("a dry import committed:\n%s", log)
	}
	// A file with error findings is refused whole.
	out, errs, code := deloreis(t, "import", dir+"findings.dli", "--project", proj, "--materialize")
	if code != 1 || !strings.Contains(errs, "import refused: The text cannot be committed to camelot: error findings stand. Nothing was committed.") {
		t.Fatalf("import of a file with errors: exit %d\n%s%s", code, out, errs)
	}
	if log := mustRun(t, "--project", proj, "log", "--oneline"); strings.Count(log, "\n") != 2 {
		t.Fatalf("a refused import committed:\n%s", log)
	}
	// A clean file materializes as one commit.
	out = mustRun(t, "import", "--project", proj, "--materialize", dir+"camelot.dli")
	golden(t, "import-materialize", hash.ReplaceAllString(out, "HASH"))
	log := mustRun(t, "--project", proj, "log", "--oneline", "--op", "import")
	if !strings.Contains(log, "import camelot.dli into camelot: 8 declarations") {
		t.Fatalf("log after import:\n%s", log)
	}
	// Importing again stages nothing new.
	out = mustRun(t, "import", dir+"camelot.dli", "--project", proj, "--materialize")
	if !strings.Contains(out, "nothing new to commit") || !strings.Contains(out, "consequences: none moved") {
		t.Fatalf("second import said:\n%s", out)
	}
	// deloreis.toml can name the file; a scope mismatch is refused.
	src, _ := os.ReadFile(dir + "camelot.dli")
	os.MkdirAll(filepath.Join(proj, "lore"), 0o755)
	os.WriteFile(filepath.Join(proj, "lore", "camelot.dli"), src, 0o644)
	os.WriteFile(filepath.Join(proj, "deloreis.toml"), []byte("[[document]]\nscope = \"camelot\"\nsource = \"lore/camelot.dli\"\n"), 0o644)
	if out := mustRun(t, "import", "--project", proj, "--scope", "camelot"); !strings.Contains(out, "none moved") {
		t.Fatalf("import from deloreis.toml said:\n%s", out)
	}
	if _, errs, code := deloreis(t, "import", dir+"camelot.dli", "--project", proj, "--scope", "avalon"); code != 1 || !strings.Contains(errs, "written for scope camelot, not avalon") {
		t.Fatalf("scope mismatch: exit %d %q", code, errs)
	}
}

// TestMergeReportsConflicts: two branches answer one question differently;
// the merge commits the union and reports the exclusivity conflict.
func TestMergeReportsConflicts(t *testing.T) {
	const dir = "../../testdata/dli/"
	proj := t.TempDir()
	mustRun(t, "--project", proj, "init", "--scope", "camelot")
	mustRun(t, "import", dir+"grail-base.dli", "--project", proj, "--materialize")
	mustRun(t, "--project", proj, "branch", "corbenic")
	mustRun(t, "import", dir+"grail-sarras.dli", "--project", proj, "--materialize")
	mustRun(t, "import", dir+"grail-corbenic.dli", "--project", proj, "--branch", "corbenic", "--materialize")
	before := mustRun(t, "--project", proj, "log", "--oneline")
	out, errs, code := deloreis(t, "--project", proj, "merge", "corbenic")
	if code != 1 || !strings.Contains(out, "conflict in camelot: exclusivity: Question where-the-grail-rests has more than one option selected: corbenic, sarras.") ||
		!strings.Contains(errs, "held back") {
		t.Fatalf("merge: exit %d, said:\n%s%s", code, out, errs)
	}
	// Held back: nothing was written.
	if after := mustRun(t, "--project", proj, "log", "--oneline"); after != before {
		t.Fatalf("a held-back merge wrote:\n%s", after)
	}
}

// TestPull: pull fetches the remote's branch and fast-forwards to it, or
// merges it when both sides moved (exit 1 when the merge brings a conflict).
func TestPull(t *testing.T) {
	const dir = "../../testdata/dli/"
	work := t.TempDir()
	a := filepath.Join(work, "a")
	mustRun(t, "--project", a, "init", "--scope", "camelot")
	mustRun(t, "import", dir+"grail-base.dli", "--project", a, "--materialize")
	remote := filepath.Join(work, "remote.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", remote).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	url := "file://" + remote
	mustRun(t, "--project", a, "push", url)
	c := filepath.Join(work, "c")
	mustRun(t, "clone", url, c)
	if out := mustRun(t, "--project", c, "pull"); out != "= refs/remotes/origin/main (up to date)\nAlready up to date.\n" {
		t.Fatalf("pull of an equal remote said %q", out)
	}
	head := func(p string) string {
		return strings.Fields(mustRun(t, "--project", p, "log", "--oneline", "-n", "1"))[0]
	}

	mustRun(t, "import", dir+"grail-sarras.dli", "--project", a, "--materialize")
	mustRun(t, "--project", a, "push", url)
	before := head(c)
	out := mustRun(t, "--project", c, "pull", "origin", "main")
	if !strings.Contains(out, "fast-forward main "+before) || head(c) != head(a) {
		t.Fatalf("pull of a remote ahead said %q; c at %s, a at %s", out, head(c), head(a))
	}

	mustRun(t, "import", dir+"camelot.dli", "--project", a, "--materialize")
	mustRun(t, "--project", a, "push", url)
	mustRun(t, "import", dir+"grail-corbenic.dli", "--project", c, "--materialize")
	// The two sides answer where the grail rests differently: the merge is
	// written, its conflict reported, and the pull exits 1 (DL-0455).
	out, errs, code := deloreis(t, "--project", c, "pull")
	if code != 1 || !strings.Contains(out, "merged main of origin into main: ") || !strings.Contains(out, "conflict in camelot: exclusivity") {
		t.Fatalf("pull of a diverged remote: exit %d, said %q %q", code, out, errs)
	}
	parents := strings.Fields(strings.TrimSpace(mustGit(t, filepath.Join(c, ".lore"), "rev-list", "--parents", "-n", "1", "main")))
	if len(parents) != 3 {
		t.Fatalf("the pull's merge commit has parents %v", parents[1:])
	}
	if _, errs, code := deloreis(t, "--project", c, "pull", "origin", "no-such-branch"); code != 1 || errs == "" {
		t.Fatalf("pull of a missing branch: exit %d, %q", code, errs)
	}
}

func mustGit(t *testing.T, gitDir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"--git-dir", gitDir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
	return string(out)
}
