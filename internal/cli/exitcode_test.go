// Tests of the one exit-code rule over the whole command tree: every
// command's --help exits 0, an unknown flag or a wrong argument count
// exits 2, a refused or failed operation or findings exit 1; and global
// flags work before and after any subcommand.

package cli

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// commandPaths walks the command tree of the root and returns the path of
// every command below it ("log", "dke check"), the way a user types it.
func commandPaths() []string {
	var out []string
	var walk func(prefix string, c *cobra.Command)
	walk = func(prefix string, c *cobra.Command) {
		for _, sub := range c.Commands() {
			p := strings.TrimSpace(prefix + " " + sub.Name())
			out = append(out, p)
			walk(p, sub)
		}
	}
	walk("", newRoot(io.Discard, io.Discard))
	return out
}

// TestEveryHelpExitsZero is the acceptance line: on a fresh checkout every
// command's --help (and -h) prints its usage on stdout and exits 0.
func TestEveryHelpExitsZero(t *testing.T) {
	paths := commandPaths()
	if len(paths) < 15 {
		t.Fatalf("the command tree has only %d commands: %v", len(paths), paths)
	}
	for _, p := range paths {
		for _, h := range []string{"--help", "-h"} {
			args := append(strings.Fields(p), h)
			out, errs, code := deloreis(t, args...)
			if code != 0 || !strings.Contains(out, "Usage:") || errs != "" {
				t.Errorf("deloreis %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, out, errs)
			}
		}
	}
}

// exitCase is one row of the exit-code table: a wrong argument count and a
// refused or failed operation for one command ("" when the command has
// none: it takes any number of arguments, or cannot fail on its own).
type exitCase struct {
	wrongArgs []string // arguments after the command path
	failing   []string // arguments after the command path
}

// exitTable builds, in a fresh folder, the rows of every command. A
// command found in the tree without a row fails the test, so that a new
// command cannot escape the rule.
func exitTable(t *testing.T) (map[string]exitCase, string) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	store := filepath.Join(proj, ".lore")
	mustRun(t, "--project", proj, "init")
	broken := filepath.Join(dir, "broken.dli")
	os.WriteFile(broken, []byte("person galahad \"Galahad\" proposed\n"), 0o644)
	findings := "../../testdata/dli/findings.dli"
	dpy := filepath.Join(dir, "watch.dpy")
	os.WriteFile(dpy, []byte("def watch(n: int):\n    while n:\n        print(n)\n"), 0o644)
	missing := filepath.Join(dir, "missing")
	s := "--store=" + store
	return map[string]exitCase{
		"init":               {[]string{"x"}, []string{"--store=" + broken}}, // a file is no folder
		"log":                {[]string{"a", "b"}, []string{"--store", missing}},
		"scope":              {[]string{"nosuchsub"}, nil},
		"scope add":          {[]string{}, []string{s, "Not a scope"}},
		"scope list":         {[]string{"x"}, []string{"--store", missing}},
		"show":               {[]string{"a", "b"}, []string{s, "nosuchrev"}},
		"branch":             {[]string{"a", "b", "c"}, []string{s, "-d", "nosuch"}},
		"merge":              {[]string{}, []string{s, "nosuch"}},
		"push":               {nil, []string{s, "nosuchremote"}}, // any number of arguments
		"fetch":              {nil, []string{s, "nosuchremote"}},
		"pull":               {[]string{"a", "b", "c"}, []string{s, "nosuchremote"}},
		"clone":              {[]string{}, []string{missing, filepath.Join(dir, "c")}},
		"demo":               {[]string{"x"}, []string{"--keep", broken}}, // a file is no folder
		"version":            {[]string{"x"}, nil},
		"fmt":                {nil, []string{broken}},
		"check":              {[]string{}, []string{findings}},
		"import":             {[]string{"a", "b"}, []string{"--project", proj, findings, "--materialize"}},
		"dke":                {[]string{"nosuchsub"}, nil},
		"dke check":          {[]string{}, []string{dpy}},
		"dke store":          {[]string{"nosuchsub"}, nil},
		"dke store create":   {[]string{}, []string{"--store", missing, "alpha"}},
		"dke store delete":   {[]string{}, []string{s, "nosuch", "--confirm"}},
		"dke store snapshot": {[]string{}, []string{s, "nosuch"}},
		"dke store restore":  {[]string{"alpha"}, []string{s, "alpha", "nosuch"}},
		"dke store list":     {[]string{"x"}, []string{"--store", missing}},
		"dke key":            {[]string{"nosuchsub"}, nil},
		"dke key create":     {[]string{"x"}, []string{"--store", missing, "--read"}},
		"dke key list":       {[]string{"x"}, []string{"--store", missing}},
		"dke key revoke":     {[]string{}, []string{s, "deadbeef"}},
		"dke mcp":            {[]string{"x"}, []string{"--store", missing}},
		"dke compile":        {[]string{"onlyname"}, []string{s, "watch", dpy}},
		"dke run":            {[]string{}, []string{s, missing}},
		"dke checkup":        {[]string{"x"}, []string{"--store", missing}},
		"graph":              {[]string{"x"}, []string{s, "--scope", "nosuch"}},
		"fsck":               {[]string{"x"}, []string{"--store", missing}},
		"gc":                 {[]string{"x"}, []string{"--store", missing}},
		"remote":             {[]string{"nosuchsub"}, nil},
		"remote add":         {[]string{"onlyname"}, []string{s, "bad name", "file:///x"}},
		"remote remove":      {[]string{}, []string{s, "nosuch"}},
		"remote list":        {[]string{"x"}, []string{"--store", missing}},
		"serve":              {[]string{"x"}, []string{"--project", missing}},
		"sync":               {[]string{"a", "b"}, []string{s, "nosuchremote"}},
		"mcp":                {[]string{"x"}, []string{"--project", missing}},
		"casebook":           {[]string{"x"}, []string{"--script", missing}},
	}, dir
}

// TestExitCodeRule: for every command, an unknown flag and a wrong
// argument count exit 2 with one line on stderr, a failing operation
// exits 1.
func TestExitCodeRule(t *testing.T) {
	table, _ := exitTable(t)
	for _, p := range commandPaths() {
		row, ok := table[p]
		if !ok {
			t.Errorf("command %q has no row in the exit-code table", p)
			continue
		}
		path := strings.Fields(p)
		t.Run(strings.ReplaceAll(p, " ", "_"), func(t *testing.T) {
			expect := func(code int, extra ...string) {
				args := append(append([]string(nil), path...), extra...)
				out, errs, got := deloreis(t, args...)
				// An error is one line on stderr, prefixed "deloreis: "
				// (README, Exit status); a 1 without one reports
				// findings: on stdout, or compiler-style on stderr.
				findings := code == 1 && (errs == "" && out != "" || compilerLines.MatchString(errs))
				if got != code || !findings && !isErrorLine(errs) {
					t.Errorf("deloreis %s: exit %d, want %d with one line on stderr (or findings on stdout)\nstdout %q\nstderr %q", strings.Join(args, " "), got, code, out, errs)
				}
			}
			expect(2, "--no-such-flag")
			expect(2, "--store") // a flag without its value
			if row.wrongArgs != nil {
				expect(2, row.wrongArgs...)
			}
			if row.failing != nil {
				expect(1, row.failing...)
			}
		})
	}
}

// compilerLines are findings as check and fmt print them: file:line:col: lines.
var compilerLines = regexp.MustCompile(`^(\S[^\n]*:\d+:\d+: [^\n]+\n)+$`)

// isErrorLine reports whether s is one error line: "deloreis: " and a
// message, ending in the only newline.
func isErrorLine(s string) bool {
	return strings.Count(s, "\n") == 1 && strings.HasSuffix(s, "\n") && strings.HasPrefix(s, "deloreis: ") && len(strings.TrimSpace(s)) > len("deloreis:")
}

// TestUsageErrors: values that can never be right are usage errors (2);
// a scope the store does not hold is named as unknown (1).
func TestUsageErrors(t *testing.T) {
	store := demoStore(t)
	zeros := strings.Repeat("0", 64)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"log", "-n", "-1"}, 2, "-n"},
		{[]string{"log", ""}, 2, "empty"},
		{[]string{"show", ""}, 2, "empty"},
		{[]string{"log", "--object", zeros}, 2, "--object"},
		{[]string{"log", "--object", "xyz"}, 2, "--object"},
		{[]string{"log", "--scope", "nosuch"}, 1, "unknown scope nosuch"},
		{[]string{"log", "--scope", "Bad/Scope"}, 2, "--scope"},
		{[]string{"log", "--format", "yaml"}, 2, "--format"},
		{[]string{"show", "--format", "yaml", "main"}, 2, "--format"},
		{[]string{"graph", "--format", "png"}, 2, "--format"},
	}
	for _, tc := range cases {
		args := append([]string{"--store", store}, tc.args...)
		out, errs, code := deloreis(t, args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) || strings.Count(errs, "\n") != 1 {
			t.Errorf("deloreis %q: exit %d (want %d), stderr %q (want one line with %q), stdout %q", tc.args, code, tc.code, errs, tc.msg, out)
		}
	}
}

// TestGlobalFlagsAnywhere: --project, --store and --no-fsync are taken before
// and after every subcommand, the text commands included.
func TestGlobalFlagsAnywhere(t *testing.T) {
	const camelot = "../../testdata/dli/camelot.dli"
	dir := t.TempDir()
	store := filepath.Join(dir, "s.lore")
	mustRun(t, "--store", store, "--no-fsync", "init", "--scope", "camelot")
	lines := [][]string{
		{"--store", store, "import", camelot},
		{"--no-fsync", "--store", store, "import", camelot},
		{"import", camelot, "--store", store, "--no-fsync"},
		{"--store", store, "check", camelot},
		{"check", "--store", store, camelot},
		{"--no-fsync", "fmt", camelot},
		{"fmt", "--project", dir, camelot},
		{"--project", dir, "dke", "check", "--language", "nob", "--help"},
		{"--store", store, "log", "--oneline"},
		{"log", "--store", store, "--oneline"},
	}
	for _, args := range lines {
		if out, errs, code := deloreis(t, args...); code != 0 {
			t.Errorf("deloreis %q: exit %d\n%s%s", args, code, out, errs)
		}
	}
	proj := filepath.Join(dir, "p")
	mustRun(t, "init", "--project", proj, "--scope", "camelot")
	out := mustRun(t, "import", camelot, "--materialize", "--project", proj)
	if !strings.Contains(out, "committed") {
		t.Fatalf("import --project after the subcommand said:\n%s", out)
	}
	if log := mustRun(t, "log", "--oneline", "--project", proj); !strings.Contains(log, "import camelot.dli") {
		t.Fatalf("the import did not land in the --project store:\n%s", log)
	}
}
