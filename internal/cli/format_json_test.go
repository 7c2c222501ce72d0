package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// jsonExempt are the commands that print no result of their own, so take
// no --format json; each says why. A command neither here nor in the runs
// of TestFormatJSONEveryCommand fails it.
var jsonExempt = map[string]string{
	// Servers: they speak MCP or the DLI wire, whose shapes are pinned by
	// contracts/dke and contracts/dli-worker.
	"serve":   "a server",
	"mcp":     "a server",
	"dke.mcp": "a server",
	// The output is itself the product, as gofmt's is: canonical text, the
	// files -l names, the diff -d shows.
	"fmt": "a formatter",
	// A picture: --format chooses its language, dot or svg (DL-0467).
	"graph": "a picture",
	// A markdown story (--out writes it to a file).
	"casebook": "a document",
	// A show-and-tell: builds the demo store and prints its log graph;
	// `log --format json` over a --keep store gives the data.
	"demo": "a demonstration",
	// Print nothing on success, as git remote add and remove.
	"remote.add":    "prints nothing",
	"remote.remove": "prints nothing",
}

// jsonRun is one command line of TestFormatJSONEveryCommand: key is the
// command whose schema the output must meet.
type jsonRun struct {
	key   string
	dir   string // under the test's folder: "" is the folder itself
	args  []string
	codes []int  // the exit statuses allowed (default 0)
	want  string // when not "", a part of stdout it must hold
	none  bool   // it fails before it has a result: stdout stays empty
}

// TestFormatJSONEveryCommand runs every command that prints results as a
// whole process with --format json, over one small project pushed to a
// bare hub, and validates what each prints on stdout — one JSON document
// — against its committed schema (contracts/cli/). The commands are read
// off the command tree: one neither run here nor exempt fails the test.
func TestFormatJSONEveryCommand(t *testing.T) {
	work := t.TempDir()
	dli, err := filepath.Abs(filepath.Join("..", "..", "testdata", "dli"))
	if err != nil {
		t.Fatal(err)
	}
	dke, err := filepath.Abs(filepath.Join("testdata", "dke"))
	if err != nil {
		t.Fatal(err)
	}
	wpMust(t, work, "init", "--project", "P", "--scope", "camelot")
	hub := filepath.Join(work, "hub.git")
	wpGit(t, "init", "-q", "--bare", "-b", "main", hub)
	url := "file://" + hub
	wpMust(t, filepath.Join(work, "P"), "remote", "add", "origin", url)

	runs := formatJSONRuns(dli, dke, url)
	checkRunsCoverTree(t, runs)
	hash := ""   // the key dke key create made, for dke key revoke
	object := "" // an object the shown commit added, for show ID
	for _, r := range runs {
		name := r.key + "/" + strings.Join(r.args[1:], "_")
		t.Run(name, func(t *testing.T) {
			args := slices.Clone(r.args)
			for i, a := range args {
				if a == "{hash}" {
					args[i] = hash[:min(12, len(hash))]
				}
				if a == "{object}" {
					args[i] = object
				}
			}
			out := r.check(t, filepath.Join(work, r.dir), args)
			if r.key == "dke.key.create" {
				var k dkeKeyReport
				json.Unmarshal([]byte(out), &k) // valid: it met its schema
				hash = k.Hash
			}
			if r.key == "show" && object == "" {
				if m := regexp.MustCompile(`"id": "([0-9a-f]{64})"`).FindStringSubmatch(out); m != nil {
					object = m[1]
				}
			}
		})
	}
}

// formatJSONRuns are the command lines of TestFormatJSONEveryCommand, in
// the order they run: dli and dke are the folders of the sample .dli and
// DKE files, url the hub's.
func formatJSONRuns(dli, dke, url string) []jsonRun {
	dpy := filepath.Join(dke, "inventory.dpy")
	return []jsonRun{
		{key: "version", args: []string{"version"}},
		{key: "init", args: []string{"init", "--project", "Q", "--scope", "s"}},
		{key: "scope.add", dir: "P", args: []string{"scope", "add", "other"}},
		{key: "scope.list", dir: "P", args: []string{"scope", "list"}},
		{key: "check", dir: "P", args: []string{"check", dli + "/camelot.dli", dli + "/findings.dli", dli + "/broken.dli", "nothing.dli"}, codes: []int{1}},
		{key: "branch", dir: "P", args: []string{"branch", "behind"}, want: `"action": "create"`},
		{key: "import", dir: "P", args: []string{"import", dli + "/findings.dli", "--materialize"}, codes: []int{1}, want: `"blocked": true`},
		{key: "import", dir: "P", args: []string{"import", dli + "/broken.dli", "--scope", "camelot"}, codes: []int{1}},
		{key: "import", dir: "P", args: []string{"import", dli + "/camelot.dli", "--materialize"}},
		{key: "import", dir: "P", args: []string{"import", "--bulk", dli + "/camelot.dli"}},
		{key: "branch", dir: "P", args: []string{"branch", "side"}},
		{key: "branch", dir: "P", args: []string{"branch"}},
		{key: "merge", dir: "P", args: []string{"merge", "side"}, want: `"up_to_date": true`},
		{key: "merge", dir: "P", args: []string{"merge", "--ff", "main", "--into", "behind"}, want: `"merged": true`},
		{key: "branch", dir: "P", args: []string{"branch", "-d", "side"}, want: `"action": "delete"`},
		{key: "log", dir: "P", args: []string{"log", "-n", "2"}},
		{key: "show", dir: "P", args: []string{"show", "main"}},
		{key: "show", dir: "P", args: []string{"show", "{object}"}, want: `"object_id": "`},
		{key: "fsck", dir: "P", args: []string{"fsck"}},
		{key: "gc", dir: "P", args: []string{"gc"}},
		{key: "remote", dir: "P", args: []string{"remote"}},
		{key: "remote.list", dir: "P", args: []string{"remote", "list", "-v"}},
		{key: "push", dir: "P", args: []string{"push"}},
		{key: "fetch", dir: "P", args: []string{"fetch"}},
		{key: "fetch", dir: "P", args: []string{"fetch", "nowhere"}, codes: []int{1}, none: true},
		{key: "pull", dir: "P", args: []string{"pull"}},
		{key: "sync", dir: "P", args: []string{"sync"}},
		{key: "clone", args: []string{"clone", url, "C"}},
		{key: "dke.check", args: []string{"dke", "check", dpy}},
		{key: "dke.check", args: []string{"dke", "check", filepath.Join(dke, "watch.dpy")}, codes: []int{1}},
		{key: "dke.store.create", dir: "P", args: []string{"dke", "store", "create", "alpha"}},
		{key: "dke.compile", dir: "P", args: []string{"dke", "compile", "inventory", dpy, "--store-id", "alpha"}},
		{key: "dke.run", dir: "P", args: []string{"dke", "run", filepath.Join(dke, "program.dpy"), "--store-id", "alpha"}},
		{key: "dke.checkup", dir: "P", args: []string{"dke", "checkup", "--store-id", "alpha"}},
		{key: "dke.store.snapshot", dir: "P", args: []string{"dke", "store", "snapshot", "alpha", "s1"}},
		{key: "dke.store.delete", dir: "P", args: []string{"dke", "store", "delete", "alpha", "--confirm"}},
		{key: "dke.store.list", dir: "P", args: []string{"dke", "store", "list"}},
		{key: "dke.store.restore", dir: "P", args: []string{"dke", "store", "restore", "alpha", "s1"}},
		{key: "dke.key.create", dir: "P", args: []string{"dke", "key", "create", "--store-id", "alpha", "--read"}},
		{key: "dke.key.list", dir: "P", args: []string{"dke", "key", "list"}},
		{key: "dke.key.revoke", dir: "P", args: []string{"dke", "key", "revoke", "{hash}"}},
	}
}

// check runs the command line args (with --format json) in dir, checks
// its exit status and output as r says, and returns its stdout.
func (r jsonRun) check(t *testing.T, dir string, args []string) string {
	t.Helper()
	out, errs, code := wpRun(t, dir, append(args, "--format", "json")...)
	codes := r.codes
	if codes == nil {
		codes = []int{0}
	}
	if !slices.Contains(codes, code) {
		t.Fatalf("exit %d, want one of %v\nstdout:\n%s\nstderr:\n%s", code, codes, out, errs)
	}
	if r.none {
		if out != "" || !strings.HasPrefix(errs, "deloreis: ") || strings.Count(errs, "\n") != 1 {
			t.Fatalf("a failure with no result: stdout %q, stderr %q; want stdout empty, one line on stderr", out, errs)
		}
		return out
	}
	if err := validateCLIJSON(t, r.key, []byte(out)); err != nil {
		t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, out, errs)
	}
	if code != 0 {
		// A failure is told as in text: same status, same stderr.
		_, textErrs, textCode := wpRun(t, dir, args...)
		if textCode != code || textErrs != errs {
			t.Fatalf("exit %d, stderr %q; in text: exit %d, stderr %q", code, errs, textCode, textErrs)
		}
	}
	if !strings.Contains(out, r.want) {
		t.Fatalf("stdout does not hold %s:\n%s", r.want, out)
	}
	return out
}

// checkRunsCoverTree fails the test unless every command of the tree is
// either run (those with a JSON result) or exempt (those without), and
// names every command of both lists that the tree does not have.
func checkRunsCoverTree(t *testing.T, runs []jsonRun) {
	t.Helper()
	run := map[string]bool{}
	for _, r := range runs {
		run[r.key] = true
	}
	leaves := leafCommands()
	for k, c := range leaves {
		_, exempt := jsonExempt[k]
		switch json := resultType(c) != nil; {
		case json && !run[k]:
			t.Errorf("%s prints JSON but TestFormatJSONEveryCommand never runs it", k)
		case !json && !exempt:
			t.Errorf("%s has no --format json and is not in jsonExempt (give it addFormat, or say there why it prints no results)", k)
		case json && exempt:
			t.Errorf("%s prints JSON but is in jsonExempt", k)
		}
	}
	for k := range run {
		if leaves[k] == nil {
			t.Errorf("a run names %s, which the command tree does not have", k)
		}
	}
	for k := range jsonExempt {
		if leaves[k] == nil {
			t.Errorf("jsonExempt names %s, which the command tree does not have", k)
		}
	}
}

// validateCLIJSON checks that out is exactly one JSON document and that it
// meets contracts/cli/<key>.json.
func validateCLIJSON(t *testing.T, key string, out []byte) error {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(cliSchemaDir, key+".json"))
	if err != nil {
		return err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if dec.More() {
		return errJSON("stdout holds more than one JSON document")
	}
	return rs.Validate(v)
}

type errJSON string

func (e errJSON) Error() string { return string(e) }

// TestPushJSONKeepsHint: with --format json a push to a remote whose HEAD
// names a branch it lacks says so in the result and still prints the hint
// on stderr, as in text.
func TestPushJSONKeepsHint(t *testing.T) {
	work := t.TempDir()
	proj := filepath.Join(work, "p")
	mustRun(t, "--project", proj, "init", "--scope", "camelot")
	remote := filepath.Join(work, "bare.git")
	wpGit(t, "init", "-q", "--bare", "-b", "master", remote)
	out, errs, code := deloreis(t, "--project", proj, "push", remote, "--format", "json")
	var r pushReport
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || !r.DanglingHead || r.HeadBranch != "main" {
		t.Fatalf("push --format json: exit %d, stdout %q", code, out)
	}
	if !strings.Contains(errs, "symbolic-ref HEAD refs/heads/main") {
		t.Fatalf("push --format json: no hint on stderr: %q", errs)
	}
}
