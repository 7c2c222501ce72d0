package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestImportQuietByDefault: import summarises what a large file moves —
// counts by kind and the first few of each — and --verbose prints every
// consequence; a count of one is singular.
func TestImportQuietByDefault(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bulk.dli")
	if err := os.WriteFile(file, []byte(bulkDLI(40, -1)), 0o644); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(dir, "p")
	mustRun(t, "--project", proj, "init", "--scope", "bulk")
	mustRun(t, "--project", proj, "branch", "b") // for the bulk import of one declaration
	quiet := mustRun(t, "import", "--project", proj, file)
	verbose := mustRun(t, "import", "--project", proj, "--verbose", file)
	possible := regexp.MustCompile(`(?m)^  possible: \w`)
	if n := len(possible.FindAllString(quiet, -1)); n != summaryFirst {
		t.Errorf("import printed %d possible consequences, want the first %d:\n%s", n, summaryFirst, quiet)
	}
	total := len(possible.FindAllString(verbose, -1))
	if total <= summaryFirst {
		t.Fatalf("--verbose printed %d possible consequences; the file moves more:\n%s", total, verbose)
	}
	head := fmt.Sprintf("consequences: %d possible\n", total)
	more := fmt.Sprintf("  possible: ... and %d more (--verbose lists every one)\n", total-summaryFirst)
	if !strings.Contains(quiet, head) || !strings.Contains(quiet, more) || strings.Contains(verbose, "... and") {
		t.Errorf("want %q and %q in the summary only:\n%s\n--verbose:\n%s", head, more, quiet, verbose)
	}
	if lines := strings.Count(quiet, "\n"); lines > 4*(summaryFirst+1)+3 {
		t.Errorf("the summary is %d lines", lines)
	}

	one := filepath.Join(dir, "one.dli")
	os.WriteFile(one, []byte("# grammar: v0\nscope bulk\n\nplace logres \"Logres\"   proposed  session-7c9\n"), 0o644)
	for _, args := range [][]string{{"--materialize", one}, {"--bulk", "--materialize", "--branch", "b", one}} {
		out := mustRun(t, append([]string{"import", "--project", proj}, args...)...)
		if !regexp.MustCompile(`(?m)^committed [0-9a-f]{12} on \w+: 1 declaration\b[^s]`).MatchString(out) {
			t.Errorf("import %v said:\n%s", args, out)
		}
		// The commit's subject, as log shows it, counts alike.
		branch := args[len(args)-2]
		if branch != "b" {
			branch = "main"
		}
		if log := mustRun(t, "--project", proj, "log", "--oneline", "-n", "1", branch); !strings.HasSuffix(log, "into bulk: 1 declaration\n") {
			t.Errorf("import %v: log says %q", args, log)
		}
	}
}

// TestJSONAliasDeprecated: dke check's and sync's old --json still prints
// the JSON result, with a one-line notice on stderr; with --format text it
// is a usage error.
func TestJSONAliasDeprecated(t *testing.T) {
	f := filepath.Join("testdata", "dke", "watch.dpy")
	want, _, code := deloreis(t, "dke", "check", "--format", "json", f)
	out, errs, code2 := deloreis(t, "dke", "check", "--json", f)
	if out != want || code2 != code || errs != "deloreis: --json is deprecated; use --format json\n" {
		t.Fatalf("--json: exit %d (want %d), stderr %q, stdout same as --format json: %v", code2, code, errs, out == want)
	}
	if _, errs, code := deloreis(t, "dke", "check", "--json", "--format", "text", f); code != 2 || !strings.Contains(errs, "--format text") {
		t.Fatalf("--json --format text: exit %d, stderr %q", code, errs)
	}
	if c, _, _ := newRoot(nil, nil).Find([]string{"sync"}); c.Flags().Lookup("json") == nil || !c.Flags().Lookup("json").Hidden {
		t.Fatal("sync has no hidden --json alias")
	}
}

// TestImportSummarisesFindings: findings are counted by code, every one
// (those the use case does not list included), and the first few of each
// code are printed; --verbose prints all it has.
func TestImportSummarisesFindings(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("# grammar: v0\nscope bulk\n\nplace logres \"Logres\"   proposed  session-7c9\n")
	for i := range 30 {
		fmt.Fprintf(&b, "serves(ghost-%d, logres)   proposed  session-7c9\n", i)
	}
	file := filepath.Join(dir, "ghosts.dli")
	os.WriteFile(file, []byte(b.String()), 0o644)
	proj := filepath.Join(dir, "p")
	mustRun(t, "--project", proj, "init", "--scope", "bulk")
	quiet, _, _ := deloreis(t, "import", "--project", proj, file)
	verbose, _, _ := deloreis(t, "import", "--project", proj, "--verbose", file)
	placed := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(file) + `:\d+:\d+: `)
	if !strings.Contains(quiet, "findings: 30 (30 entity.unknown)\n") || len(placed.FindAllString(quiet, -1)) != summaryFirst ||
		!strings.Contains(quiet, "... and 25 more findings (--verbose lists every one)\n") {
		t.Errorf("import said:\n%s", quiet)
	}
	if n := len(placed.FindAllString(verbose, -1)); n <= summaryFirst || strings.Contains(verbose, "... and") {
		t.Errorf("import --verbose printed %d findings:\n%s", n, verbose)
	}
}

// TestImportSummaryOfABigFile: a file big enough to be compiled in one
// pass with its base is summarised from counts of every consequence,
// though the use case lists only the first few of each kind for it;
// --verbose prints every one and --format json lists every one in full.
func TestImportSummaryOfABigFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "big.dli")
	if err := os.WriteFile(file, []byte(bulkDLI(1400, -1)), 0o644); err != nil { // 4,220 declarations
		t.Fatal(err)
	}
	proj := filepath.Join(dir, "p")
	mustRun(t, "--project", proj, "init", "--scope", "bulk")
	var res struct {
		Declarations int
		Consequences struct {
			Possible     []map[string]any `json:"possible"`
			GradeChanged []map[string]any `json:"grade_changed"`
		}
	}
	if err := json.Unmarshal([]byte(mustRun(t, "import", "--project", proj, "--format", "json", file)), &res); err != nil {
		t.Fatal(err)
	}
	n := len(res.Consequences.Possible)
	if res.Declarations != 4220 || n < res.Declarations || len(res.Consequences.GradeChanged) != n {
		t.Fatalf("--format json: %d declarations, %d possible, %d grade changes", res.Declarations, n, len(res.Consequences.GradeChanged))
	}
	quiet := mustRun(t, "import", "--project", proj, file)
	head := fmt.Sprintf("consequences: %d possible\n", n)
	more := fmt.Sprintf("  possible: ... and %d more (--verbose lists every one)\n", n-summaryFirst)
	if !strings.Contains(quiet, head) || !strings.Contains(quiet, more) {
		t.Errorf("want %q and %q in:\n%s", head, more, quiet)
	}
	verbose := mustRun(t, "import", "--project", proj, "--verbose", file)
	if got := len(regexp.MustCompile(`(?m)^  possible: \w`).FindAllString(verbose, -1)); got != n || !strings.Contains(verbose, head) {
		t.Errorf("--verbose printed %d possible consequences of %d", got, n)
	}
}
