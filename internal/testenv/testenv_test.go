package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB that records a fatal or a skip instead of
// ending the goroutine, so NeedTool's choice can be seen.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Fatalf(f string, a ...any) { r.fatal = fmt.Sprintf(f, a...) }
func (r *recorder) Skipf(f string, a ...any)  { r.skip = fmt.Sprintf(f, a...) }
func (r *recorder) Errorf(f string, a ...any) { r.fatal = fmt.Sprintf(f, a...) }
func (r *recorder) Fatal(a ...any)            { r.fatal = fmt.Sprint(a...) }

// TestNeedTool: a missing tool fails the test under CI=true (and true's
// other spellings) and skips it otherwise; an installed one is found.
func TestNeedTool(t *testing.T) {
	const missing = "deloreis-no-such-tool-x9"
	for _, tc := range []struct {
		ci          string
		fatal, skip bool
	}{
		{"true", true, false},
		{"1", true, false},
		{"", false, true},
		{"false", false, true},
	} {
		t.Run("CI="+tc.ci, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			r := &recorder{TB: t}
			NeedTool(r, missing)
			if (r.fatal != "") != tc.fatal || (r.skip != "") != tc.skip {
				t.Fatalf("CI=%q: fatal %q, skip %q", tc.ci, r.fatal, r.skip)
			}
			if !strings.Contains(r.fatal+r.skip, missing) {
				t.Fatalf("the message does not name the tool: %q%q", r.fatal, r.skip)
			}
		})
	}
	t.Setenv("CI", "true")
	if p := NeedTool(t, "sh"); p == "" {
		t.Fatal("sh not found")
	}
}

// TestBranches: HEAD, packed-refs and every file under refs/ are read;
// each kind of change is reported.
func TestBranches(t *testing.T) {
	write := func(dir, name, data string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		edit func(dir string)
		want string // the one diff; "" for none
	}{
		{"nothing", func(string) {}, ""},
		{"ref moved", func(d string) { write(d, "refs/heads/main", "bbbb\n") }, "changed refs/heads/main"},
		{"branch made", func(d string) { write(d, "refs/heads/side", "bbbb\n") }, "added refs/heads/side"},
		{"lock left", func(d string) { write(d, "refs/heads/main.lock", "bbbb\n") }, "added refs/heads/main.lock"},
		{"packed", func(d string) { write(d, "packed-refs", "bbbb refs/heads/x\n") }, "added packed-refs"},
		{"HEAD moved", func(d string) { write(d, "HEAD", "ref: refs/heads/side\n") }, "changed HEAD"},
		{"ref removed", func(d string) { os.Remove(filepath.Join(d, "refs/heads/main")) }, "removed refs/heads/main"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(dir, "HEAD", "ref: refs/heads/main\n")
			write(dir, "refs/heads/main", "aaaa\n")
			before := Branches(t, dir)
			if len(before) != 2 || before["refs/heads/main"] != "aaaa\n" {
				t.Fatalf("read %v", before)
			}
			tc.edit(dir)
			d := BranchDiffs(before, Branches(t, dir))
			if tc.want == "" && len(d) != 0 || tc.want != "" && (len(d) != 1 || !strings.HasPrefix(d[0], tc.want)) {
				t.Fatalf("diffs %q, want %q", d, tc.want)
			}
		})
	}
}

// TestSchemasRefuseAWrongShape feeds the validator a committed response
// and mutations of it: the response validates, every mutation fails, on
// a stdio line and as MCP structured content (DLI and DKE).
func TestSchemasRefuseAWrongShape(t *testing.T) {
	dli, dke := DLISchemas(t, "../.."), DKESchemas(t, "../..")
	const open = `{"id":"fx-1","ok":true,"workspace":"ws-1","workspace_digest":"wd-3a","scope":"storybook","root_hash":"2b6a"}`
	const refused = `{"id":"fx-1","ok":false,"error":{"class":"refused","code":"stale-fence","message":"m"}}`
	if err := dli.Line("author.open", []byte(open)); err != nil {
		t.Fatal(err)
	}
	if err := dli.Line("author.open", []byte(refused)); err != nil {
		t.Fatal(err)
	}
	if err := dli.Structured("author.open", []byte(`{"workspace":"ws-1","workspace_digest":"wd","scope":"s","root_hash":"r"}`), false); err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]string{
		"a field missing":       `{"id":"fx-1","ok":true,"workspace":"ws-1","scope":"storybook","root_hash":"2b6a"}`,
		"a field unknown":       `{"id":"fx-1","ok":true,"workspace":"ws-1","workspace_digest":"wd","scope":"s","root_hash":"r","extra":1}`,
		"a number for a string": `{"id":"fx-1","ok":true,"workspace":1,"workspace_digest":"wd","scope":"s","root_hash":"r"}`,
		"ok false on a result":  `{"id":"fx-1","ok":false,"workspace":"ws-1","workspace_digest":"wd","scope":"s","root_hash":"r"}`,
		"an unknown class":      `{"id":"fx-1","ok":false,"error":{"class":"oops","code":"c","message":"m"}}`,
		"an error without code": `{"id":"fx-1","ok":false,"error":{"class":"refused","message":"m"}}`,
		"no JSON":               `{"id":`,
	} {
		if err := dli.Line("author.open", []byte(bad)); err == nil {
			t.Errorf("%s: %s validated", name, bad)
		}
	}
	if err := dli.Line("author.no_such_op", []byte(open)); err == nil {
		t.Error("an op without a schema validated")
	}
	if err := dli.ErrorLine([]byte(refused)); err != nil {
		t.Error(err)
	}
	if err := dli.ErrorLine([]byte(open)); err == nil {
		t.Error("a result validated as an error line")
	}
	if err := dli.Structured("author.open", []byte(`{"workspace":"ws-1","scope":"s","root_hash":"r"}`), false); err == nil {
		t.Error("MCP: a result missing a field validated")
	}
	if err := dli.Structured("author.open", []byte(`{"workspace":"ws-1","workspace_digest":"wd","scope":"s","root_hash":"r"}`), true); err == nil {
		t.Error("MCP: a result marked isError validated")
	}
	if err := dli.Structured("author.open", []byte(`{"id":"x","workspace":"ws-1","workspace_digest":"wd","scope":"s","root_hash":"r"}`), false); err == nil {
		t.Error("MCP: structured content with the frame's id validated")
	}

	const spec = `{"status":"success","text":"x"}`
	if err := dke.Structured("spec", []byte(spec), false); err != nil {
		t.Fatal(err)
	}
	if err := dke.Structured("spec", []byte(`{"error":{"class":"refused","code":"c","message":"m","diagnostics":[]}}`), true); err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]struct {
		doc     string
		isError bool
	}{
		"a field unknown":      {`{"status":"success","text":"x","extra":1}`, false},
		"text missing":         {`{"status":"success"}`, false},
		"a refusal as success": {`{"error":{"class":"refused","code":"c","message":"m"}}`, false},
		"a success as refusal": {spec, true},
		"an unknown class":     {`{"error":{"class":"oops","code":"c","message":"m"}}`, true},
	} {
		if err := dke.Structured("spec", []byte(bad.doc), bad.isError); err == nil {
			t.Errorf("DKE %s: %s validated", name, bad.doc)
		}
	}
	if err := dke.Line("spec", []byte(spec)); err == nil {
		t.Error("DKE schemas validated a stdio line")
	}
}

// TestBound: a wall-time bound stretches under the race detector only.
func TestBound(t *testing.T) {
	want := time.Second
	if raceEnabled {
		want *= RaceSlowdown
	}
	if got := Bound(time.Second); got != want {
		t.Fatalf("Bound(1s) = %v, want %v (race detector: %v)", got, want, raceEnabled)
	}
}
