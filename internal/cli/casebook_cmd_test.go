// Tests of the casebook command: the story it prints is
// docs/casebook/holmes.md byte for byte (go test -update rewrites it), it
// tells of every scenario the spec's worked example names, the binary
// prints it from a folder with no repository and under a foreign
// environment, and a script answered otherwise than it expects exits 1.

package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const casebookDoc = "../../docs/casebook/holmes.md"

// TestCasebook regenerates the casebook and compares it with the
// committed page.
func TestCasebook(t *testing.T) {
	out, errs, code := deloreis(t, "casebook")
	if code != 0 || errs != "" {
		t.Fatalf("deloreis casebook: exit %d, stderr %q", code, errs)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(casebookDoc), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(casebookDoc, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(casebookDoc)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/cli -run TestCasebook -update)", err)
	}
	if out != string(want) {
		t.Fatalf("the casebook differs from %s (run go test -run TestCasebook -update to accept):\n%s",
			casebookDoc, firstDifference(out, string(want)))
	}
}

// TestCasebookTellsTheScenario: the story shows, from real results, each
// thing the spec's worked fiction scenario (dli-authoring-tools.txt §8)
// says the casebook exercises.
func TestCasebookTellsTheScenario(t *testing.T) {
	story, _, code := deloreis(t, "casebook")
	if code != 0 {
		t.Fatalf("deloreis casebook: exit %d", code)
	}
	for _, tc := range []struct{ what, want string }{
		{"contradiction detection", "`continuity.fd-violation` (error)"},
		{"a blocked materialize", "- refused: `materialize-blocked`"},
		{"a retcon", `"name":"author_defeat"`},
		{"what the retcon reverted", "`suspect(colonel-ravenscroft, pellow)`: dead"},
		{"contested claims left possible", "`fired(arthur, the-revolver)`: possible"},
		{"an open question", "`who-fired` (open)"},
		{"a ratified standing", "ratified by lestrade-report"},
		{"a branch", `"action":"create","name":"strand-draft"`},
		{"a merge conflict", "- conflicts:\n  - `exclusivity`"},
		{"a clean merge", "- merged: `true`"},
		{"a rule-derived conflict", "`continuity.derived-fd-violation` (error)"},
	} {
		if !strings.Contains(story, tc.want) {
			t.Errorf("the casebook does not show %s (%q)", tc.what, tc.want)
		}
	}
	// Every step is an MCP call with a result: as many results as calls.
	if calls, oks := strings.Count(story, "\n{\"name\":\"author_"), strings.Count(story, "\n- ok\n")+strings.Count(story, "\n- refused: "); calls < 40 || calls != oks {
		t.Errorf("%d calls, %d results", calls, oks)
	}
}

// TestCasebookSubprocess runs the built binary from an empty folder, with
// a commit date and an author in the environment that the replay must
// not take, and --out: the file is the committed page.
func TestCasebookSubprocess(t *testing.T) {
	want, err := os.ReadFile(casebookDoc)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(binary(t), "casebook", "--out", "story.md")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DELOREIS_COMMIT_DATE=1891-05-04T15:00:00Z", "DELOREIS_AUTHOR=James Moriarty <moriarty@reichenbach.invalid>")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("deloreis casebook: %v\n%s", err, stderr.String())
	}
	if stdout.Len() != 0 || stderr.Len() != 0 {
		t.Errorf("with --out, stdout %q and stderr %q", stdout.String(), stderr.String())
	}
	got, err := os.ReadFile(filepath.Join(dir, "story.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the binary's casebook differs from %s:\n%s", casebookDoc, firstDifference(string(got), string(want)))
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Errorf("the replay left %v in its folder (%v)", entries, err)
	}
}

// TestCasebookScripts: --script replays another script; an outcome the
// script does not expect exits 1 after printing the story, a script that
// cannot be replayed exits 1 with one line, a bad flag exits 2.
func TestCasebookScripts(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	open := `{"tool":"author_open","arguments":{"scope":"casebook"}}` + "\n"
	cases := []struct {
		name, script string
		code         int
		stdout       []string // substrings of the story
		stderr       string
	}{
		{"as expected", open + `{"tool":"author_open","arguments":{"scope":"nowhere"},"expect":"error:unknown-scope"}`,
			0, []string{"- workspace: `ws-1`", "- refused: `unknown-scope`"}, ""},
		{"refused unexpectedly", open + `{"tool":"author_materialize","arguments":{"workspace":"ws-9"}}`,
			1, []string{"**the script expected ok**"}, "1 call(s) did not answer as the script expects"},
		{"accepted unexpectedly", open + `{"tool":"author_check","arguments":{"workspace":"ws-1"},"expect":"error:unknown-doc"}`,
			1, []string{"- ok — **the script expected error:unknown-doc**"}, "1 call(s)"},
		{"a bad line", open + `{"tool":"author_check","arguments":[]}`, 1, nil, "script line 2"},
		{"an unbound name", open + `{"tool":"author_check","arguments":{"workspace":"$ws"}}`, 1, nil, "$ws is not bound"},
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			path := write(filepath.Base(t.Name())+".jsonl", tc.script)
			out, errs, code := deloreis(t, "casebook", "--script", path)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, tc.code, out, errs)
			}
			for _, w := range tc.stdout {
				if !strings.Contains(out, w) {
					t.Errorf("the story lacks %q:\n%s", w, out)
				}
			}
			if !strings.Contains(errs, tc.stderr) || strings.Count(errs, "\n") > 1 {
				t.Errorf("stderr %q, want one line with %q", errs, tc.stderr)
			}
		})
	}
	if _, _, code := deloreis(t, "casebook", "--out"); code != 2 {
		t.Errorf("--out without a value: exit %d, want 2", code)
	}
}

// firstDifference shows the first line where got and want part.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n--- got\n%s\n--- want\n%s", i+1, gl, wl)
		}
	}
	return "(they differ only in line endings)"
}
