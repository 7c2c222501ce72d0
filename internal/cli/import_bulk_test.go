// The bulk import: chunked parsing reads every declaration as the whole
// file does; a bulk commit holds the same scope tree as the staged import
// of the same file, real git accepts it, and a bad declaration anywhere
// commits nothing.

package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/internal/testenv"
)

// setChunk cuts bulk streams into chunks of n bytes until the returned
// func restores the size.
func setChunk(n int) func() {
	old := dli.StreamChunkBytes
	dli.StreamChunkBytes = n
	return func() { dli.StreamChunkBytes = old }
}

// bulkDLI is a clean document of about 3n declarations, with multi-line
// declarations and comments between and inside them; when bad >= 0, line
// bad (1-based) is replaced by a malformed declaration.
func bulkDLI(n, bad int) string {
	var b strings.Builder
	b.WriteString("# grammar: v0\nscope bulk\n\n")
	for i := range 20 {
		fmt.Fprintf(&b, "place place-%d \"Place %d\"   proposed  session-7c9\n", i, i)
	}
	for i := range n {
		fmt.Fprintf(&b, "person p-%d \"Person %d\"   proposed  session-7c9\n", i, i)
		if i%7 == 0 {
			fmt.Fprintf(&b, "# about p-%d\n\n", i)
		}
		fmt.Fprintf(&b, "p-%d.title = \"Knight %d\"\n", i, i%13)
		if i%5 == 0 {
			b.WriteString("# a comment inside a declaration\n")
		}
		b.WriteString("  proposed  session-7c9\n")
		fmt.Fprintf(&b, "serves(p-%d, place-%d)   proposed  session-7c9\n", i, i%20)
	}
	if bad < 0 {
		return b.String()
	}
	lines := strings.SplitAfter(b.String(), "\n")
	lines[bad-1] = "person bad-one \"Unclosed   proposed  session-7c9\n"
	return strings.Join(lines, "")
}

// TestImportBulk: the bulk import of a file commits the same scope tree as
// the staged import, which git fsck --strict and git log accept; a dry run
// commits nothing.
func TestImportBulk(t *testing.T) {
	defer setChunk(4096)() // many chunks
	file := filepath.Join(t.TempDir(), "bulk.dli")
	if err := os.WriteFile(file, []byte(bulkDLI(1000, -1)), 0o644); err != nil {
		t.Fatal(err)
	}
	staged, bulk := t.TempDir(), t.TempDir()
	mustRun(t, "--project", staged, "init", "--scope", "bulk")
	mustRun(t, "--project", bulk, "init", "--scope", "bulk")
	mustRun(t, "import", "--project", staged, "--materialize", file)
	out := mustRun(t, "import", "--project", bulk, "--bulk", file)
	if !strings.Contains(out, "3020 declarations checked") || !strings.Contains(out, "nothing committed") {
		t.Fatalf("bulk dry run said:\n%s", out)
	}
	if log := mustRun(t, "--project", bulk, "log", "--oneline"); strings.Count(log, "\n") != 2 { // init, declare scope bulk
		t.Fatalf("a dry bulk import committed:\n%s", log)
	}
	out = mustRun(t, "import", "--project", bulk, "--bulk", "--materialize", file)
	if !strings.Contains(out, "3020 declarations (bulk") {
		t.Fatalf("bulk import said:\n%s", out)
	}
	sg, bg := filepath.Join(staged, ".lore"), filepath.Join(bulk, ".lore")
	want := mustGit(t, sg, "rev-parse", "main:scopes/bulk")
	if got := mustGit(t, bg, "rev-parse", "main:scopes/bulk"); got != want {
		t.Fatalf("bulk scope tree %s, staged import's %s", got, want)
	}
	if out := mustGit(t, bg, "fsck", "--strict", "--no-dangling"); strings.TrimSpace(out) != "" {
		t.Fatalf("git fsck --strict: %s", out)
	}
	log := mustGit(t, bg, "log", "--format=%s%n%(trailers:key=Lore-Checked,valueonly)", "-n", "1")
	if log != "bulk import bulk.dli into bulk: 3020 declarations\nobjects\n\n" {
		t.Fatalf("git log: %q", log)
	}
	if out := mustRun(t, "import", "--project", bulk, "--bulk", "--materialize", file); !strings.Contains(out, "nothing new to commit") {
		t.Fatalf("second bulk import said:\n%s", out)
	}
}

// TestImportBulkRefuses: a bad declaration anywhere, a late scope line or
// a scope mismatch commits nothing and leaves no temporary file; a bad
// declaration is reported at its line in the whole file.
func TestImportBulkRefuses(t *testing.T) {
	defer setChunk(2048)()
	good := bulkDLI(1000, -1)
	lines := strings.Count(good, "\n")
	tests := []struct {
		name, src string
		args      []string
		want      string // in stdout and stderr
	}{
		{"bad-first", bulkDLI(1000, 4), nil, fmt.Sprintf("bulk.dli:%d:", 4)},
		{"bad-middle", bulkDLI(1000, lines/2+1), nil, fmt.Sprintf("bulk.dli:%d:", lines/2+1)},
		{"bad-last", bulkDLI(1000, lines), nil, fmt.Sprintf("bulk.dli:%d:", lines)},
		{"late-scope", good + "scope other\n", nil, "second scope line"},
		{"scope-mismatch", good, []string{"--scope", "other"}, "written for scope bulk, not other"},
		{"no-scope", strings.Replace(good, "scope bulk\n", "", 1), nil, "no scope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			proj := t.TempDir()
			mustRun(t, "--project", proj, "init", "--scope", "bulk")
			file := filepath.Join(t.TempDir(), "bulk.dli")
			if err := os.WriteFile(file, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			gd := filepath.Join(proj, ".lore")
			before := testenv.Branches(t, gd)
			packsBefore, _ := filepath.Glob(filepath.Join(gd, "objects", "pack", "*.pack")) // init's and the declaration's
			args := append([]string{"import", "--project", proj, "--bulk", "--materialize", file}, tc.args...)
			out, errs, code := deloreis(t, args...)
			if code != 1 || !strings.Contains(out+errs, tc.want) {
				t.Fatalf("exit %d, want 1 and %q in\n%s%s", code, tc.want, out, errs)
			}
			testenv.SameBranches(t, "the refused import", before, testenv.Branches(t, gd))
			if packs, _ := filepath.Glob(filepath.Join(gd, "objects", "pack", "*.pack")); len(packs) != len(packsBefore) {
				t.Fatalf("packs after a refused import: %v", packs)
			}
			tmps, _ := filepath.Glob(filepath.Join(gd, "objects", "tmp_*"))
			for _, p := range tmps {
				if st, err := os.Stat(p); err == nil && st.Size() > 0 {
					t.Fatalf("temporary file left: %s", p)
				}
			}
		})
	}
}

func TestBulkRecordErrorIsTyped(t *testing.T) {
	var list dli.ErrorList
	list.Add("f.dli", dli.Pos{Line: 7, Col: 3}, "bad")
	var err error = &bulkRecordError{file: "f.dli", errs: list}
	var got dli.ErrorList
	if !errors.As(err, &got) || got[0].Pos.Line != 7 || err.Error() != "f.dli:7:3: bad; nothing imported" {
		t.Fatalf("error %q does not carry its position", err)
	}
}

// TestImportBulkStdin: FILE "-" streams standard input into the same
// commit a file would make.
func TestImportBulkStdin(t *testing.T) {
	src := bulkDLI(200, -1)
	file := filepath.Join(t.TempDir(), "bulk.dli")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile, fromStdin := t.TempDir(), t.TempDir()
	mustRun(t, "--project", fromFile, "init", "--scope", "bulk")
	mustRun(t, "--project", fromStdin, "init", "--scope", "bulk")
	mustRun(t, "import", "--project", fromFile, "--bulk", "--materialize", file)
	var out, errb strings.Builder
	root := newRoot(&out, &errb)
	root.SetIn(strings.NewReader(src))
	if code := execute(root, []string{"import", "--project", fromStdin, "--bulk", "--materialize", "-"}, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	want := mustGit(t, filepath.Join(fromFile, ".lore"), "rev-parse", "main:scopes/bulk")
	if got := mustGit(t, filepath.Join(fromStdin, ".lore"), "rev-parse", "main:scopes/bulk"); got != want {
		t.Fatalf("scope tree from stdin %s, from the file %s", got, want)
	}
	if log := mustGit(t, filepath.Join(fromStdin, ".lore"), "log", "--format=%s", "-n", "1"); log != "bulk import standard input into bulk: 620 declarations\n" {
		t.Fatalf("git log: %q", log)
	}
}
