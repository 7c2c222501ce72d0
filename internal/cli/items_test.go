// Tests of issue 8's command-line items: only regular files are read
// (item 6), check inside a project checks over the store (13), show
// renders declarations (14) and works on a root commit (3), fmt -l.

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deloreis/deloreis/lorestore"
)

// runGuarded runs a command line that must not block; when it has not
// returned after a while, the FIFO is opened for writing and closed so
// that a blocked reader sees end of file, and the test fails: a hang is a
// bug, not a slow result.
func runGuarded(t *testing.T, fifo string, args ...string) (string, string, int) {
	t.Helper()
	type result struct {
		out, errs string
		code      int
	}
	done := make(chan result, 1)
	go func() {
		out, errs, code := deloreis(t, args...)
		done <- result{out, errs, code}
	}()
	select {
	case r := <-done:
		return r.out, r.errs, r.code
	case <-time.After(5 * time.Second):
		t.Errorf("deloreis %q blocked on the FIFO", args)
	}
	for {
		select {
		case r := <-done:
			return r.out, r.errs, r.code
		case <-time.After(100 * time.Millisecond):
			// Unblock a reader waiting for a writer: open and close one.
			if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}
	}
}

// TestOnlyRegularFiles: a named device, FIFO or a link to one is refused
// with a clear error (exit 1) by fmt, check and import; a directory walk
// skips them and still formats the regular files.
func TestOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f.dli")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	dev := filepath.Join(dir, "z.dli")
	if err := os.Symlink("/dev/null", dev); err != nil {
		t.Fatal(err)
	}
	fifoLink := filepath.Join(dir, "l.dli")
	if err := os.Symlink(fifo, fifoLink); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(dir, "proj")
	mustRun(t, "init", "--project", proj)
	for _, name := range []string{dev, fifo, fifoLink} {
		for _, cmd := range [][]string{
			{"fmt", name}, {"fmt", "-w", name}, {"fmt", "-l", name}, {"check", name}, {"check", "--standalone", name},
			{"import", name, "--project", proj, "--scope", "camelot"},
			{"dke", "check", name},
		} {
			out, errs, code := runGuarded(t, fifo, cmd...)
			if code != 1 || !strings.Contains(errs, "not a regular file") {
				t.Errorf("deloreis %q: exit %d, stderr %q, stdout %q", cmd, code, errs, out)
			}
		}
	}
	messy := filepath.Join(dir, "m.dli")
	os.WriteFile(messy, []byte("person galahad \"Galahad\" proposed session-7c9\n"), 0o644)
	out, errs, code := runGuarded(t, fifo, "fmt", "-w", dir)
	if code != 0 || errs != "" || out != "" {
		t.Errorf("fmt -w DIR: exit %d, stderr %q, stdout %q", code, errs, out)
	}
	if data, _ := os.ReadFile(messy); !strings.Contains(string(data), "\"Galahad\"   proposed") {
		t.Errorf("fmt -w DIR did not format the regular file: %q", data)
	}
}

// TestProjectPathsResolved: a deloreis.toml path that stays inside the
// project lexically but leaves it through a symbolic link is refused.
func TestProjectPathsResolved(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	os.MkdirAll(outside, 0o755)
	src, _ := os.ReadFile("../../testdata/dli/camelot.dli")
	os.WriteFile(filepath.Join(outside, "camelot.dli"), src, 0o644)
	mustRun(t, "init", "--store", filepath.Join(outside, "store"))
	cases := []struct{ name, toml string }{
		{"source", "[[document]]\nscope = \"camelot\"\nsource = \"lore/camelot.dli\"\n"},
		{"store", "store = \"lore/store\"\n"},
	}
	for _, tc := range cases {
		proj := filepath.Join(dir, "proj-"+tc.name)
		os.MkdirAll(proj, 0o755)
		if err := os.Symlink(outside, filepath.Join(proj, "lore")); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(proj, "deloreis.toml"), []byte(tc.toml), 0o644)
		for _, args := range [][]string{
			{"import", "--project", proj, "--scope", "camelot"},
			{"log", "--project", proj},
			{"check", "--project", proj, filepath.Join(outside, "camelot.dli")},
		} {
			if tc.name == "source" && args[0] == "log" {
				continue // log reads no source
			}
			out, errs, code := deloreis(t, args...)
			if code != 1 || !strings.Contains(errs, "leaves the project folder") {
				t.Errorf("%s: deloreis %q: exit %d, stderr %q, stdout %q", tc.name, args, code, errs, out)
			}
		}
	}
}

// TestCheckInProject: inside a project, check stages the file over its
// scope's head, so a file citing what the store holds is clean; with
// --standalone it is checked on its own. A dry import says nothing was
// committed.
func TestCheckInProject(t *testing.T) {
	const camelot = "../../testdata/dli/camelot.dli"
	proj := t.TempDir()
	mustRun(t, "init", "--project", proj, "--scope", "camelot")
	out := mustRun(t, "import", camelot, "--project", proj)
	if !strings.HasSuffix(out, "nothing committed (dry run; --materialize commits)\n") {
		t.Fatalf("a dry import does not end by saying nothing was committed:\n%s", out)
	}
	mustRun(t, "import", camelot, "--project", proj, "--materialize")
	os.WriteFile(filepath.Join(proj, "deloreis.toml"), []byte("[[document]]\nscope = \"camelot\"\n"), 0o644)
	more := filepath.Join(proj, "more.dli")
	os.WriteFile(more, []byte("scope camelot\nserves(lancelot, logres)   proposed  session-7c9\n"), 0o644)
	if out, errs, code := deloreis(t, "check", "--project", proj, more); code != 0 || strings.Contains(out, "entity.unknown") {
		t.Errorf("check in the project: exit %d\n%s%s", code, out, errs)
	}
	if out, _, code := deloreis(t, "check", "--standalone", "--project", proj, more); code != 1 || !strings.Contains(out, "entity.unknown") {
		t.Errorf("check --standalone: exit %d\n%s", code, out)
	}
	// Without a deloreis.toml the folder is no project: file-only check.
	if out, _, code := deloreis(t, "check", more); code != 1 || !strings.Contains(out, "entity.unknown") {
		t.Errorf("check outside a project: exit %d\n%s", code, out)
	}
}

// TestShowRendersDeclarations: show COMMIT prints what it added as .dli
// declarations under +; --name-only keeps the object listing; --format
// json gives data; a root commit shows.
func TestShowRendersDeclarations(t *testing.T) {
	store := demoStore(t)
	out := mustRun(t, "--store", store, "show", "main~1")
	if !strings.Contains(out, "\n+ ") || strings.Contains(out, "/claims/") {
		t.Errorf("show does not render declarations:\n%s", out)
	}
	golden(t, "show-rendered", out)
	names := mustRun(t, "--store", store, "show", "--name-only", "main~1")
	if !strings.Contains(names, "+ ") || !strings.Contains(names, "/") {
		t.Errorf("show --name-only:\n%s", names)
	}
	var commit struct {
		Commit  string
		Changes []struct {
			Scope, Kind, ID string
			Removed         bool
			Object          map[string]any
		}
	}
	js := mustRun(t, "--store", store, "show", "--format", "json", "main~1")
	if err := json.Unmarshal([]byte(js), &commit); err != nil || len(commit.Changes) == 0 || commit.Changes[0].Object["type"] == nil {
		t.Errorf("show --format json: %v\n%s", err, js)
	}
	var entries []map[string]any
	js = mustRun(t, "--store", store, "log", "--format", "json")
	if err := json.Unmarshal([]byte(js), &entries); err != nil || len(entries) < 3 || entries[0]["commit"] == nil {
		t.Errorf("log --format json: %v\n%s", err, js)
	}
}

// TestShowRootCommit (item 3): a root commit shows what it added. It fails
// until lorestore.Store.Changes handles a commit without parents (the
// store helper's fix).
func TestShowRootCommit(t *testing.T) {
	store := demoStore(t)
	var entries []map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, "--store", store, "log", "--format", "json")), &entries); err != nil || len(entries) == 0 {
		t.Fatalf("log --format json: %v", err)
	}
	root := entries[len(entries)-1]["commit"].(string)
	for _, args := range [][]string{{"show", root}, {"show", "--name-only", root}, {"show", "--format", "json", root}} {
		if out, errs, code := deloreis(t, append([]string{"--store", store}, args...)...); code != 0 {
			t.Errorf("deloreis %q of the root commit: exit %d\n%s%s", args, code, out, errs)
		}
	}
}

// TestFmtList: fmt -l lists the files whose formatting differs, like gofmt.
func TestFmtList(t *testing.T) {
	dir := t.TempDir()
	messy := filepath.Join(dir, "a.dli")
	os.WriteFile(messy, []byte("person galahad \"Galahad\" proposed session-7c9\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.dli"), []byte("person galahad \"Galahad\"   proposed  session-7c9\n"), 0o644)
	out, errs, code := deloreis(t, "fmt", "-l", dir)
	if code != 0 || out != messy+"\n" || errs != "" {
		t.Errorf("fmt -l: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestProjectStoreFromToml: every command takes the store deloreis.toml
// names when no --store is given, init included.
func TestProjectStoreFromToml(t *testing.T) {
	proj := t.TempDir()
	os.WriteFile(filepath.Join(proj, "deloreis.toml"), []byte("store = \"data/lore\"\n"), 0o644)
	mustRun(t, "init", "--project", proj, "--scope", "camelot")
	if _, err := os.Stat(filepath.Join(proj, "data", "lore", "HEAD")); err != nil {
		t.Fatalf("init did not create the store deloreis.toml names: %v", err)
	}
	mustRun(t, "import", "../../testdata/dli/camelot.dli", "--project", proj, "--materialize")
	if log := mustRun(t, "log", "--oneline", "--project", proj); !strings.Contains(log, "import camelot.dli") {
		t.Fatalf("log --project does not read the store deloreis.toml names:\n%s", log)
	}
}

// TestShowDKEChanges: show lists what a commit added, replaced and
// removed under dke/ (text, --name-only and json), beside the scopes.
func TestShowDKEChanges(t *testing.T) {
	dir := t.TempDir()
	s, err := lorestore.Init(dir, lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := lorestore.NewBatch()
	if err := b.PutModule("default", "inventory", []byte(`{"name":"inventory","source":"a"}`)); err != nil {
		t.Fatal(err)
	}
	id, err := b.PutDKEClaim("default", "Sensor", []byte(`{"kind":"Sensor","value":"kitchen"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(b, lorestore.NewMessage("dke compile inventory", "dke", ""), lorestore.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	b = lorestore.NewBatch()
	if err := b.PutModule("default", "inventory", []byte(`{"name":"inventory","source":"b"}`)); err != nil {
		t.Fatal(err)
	}
	if err := b.RemoveDKEClaim("default", "Sensor", id); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(b, lorestore.NewMessage("dke run: forget", "dke", ""), lorestore.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	claim := "dke/default/claims/Sensor/" + id.String()
	for _, c := range []struct {
		rev  string
		args []string
		want []string
	}{
		{"main~1", nil, []string{"+ dke/default/modules/inventory\n", "+ " + claim + "\n"}},
		{"main", nil, []string{"~ dke/default/modules/inventory\n", "- " + claim + "\n"}},
		{"main", []string{"--name-only"}, []string{"- " + claim + "\n"}},
		{"main", []string{"--format", "json"}, []string{`"dke_changes"`, `"replaced": true`, `"id": "` + id.String() + `"`}},
	} {
		out := mustRun(t, append(append([]string{"--store", dir, "show"}, c.args...), c.rev)...)
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("show %v %s: no %q in\n%s", c.args, c.rev, w, out)
			}
		}
	}
}
