// Tests of loading deloreis.toml: defaults, documents, and refused paths.

package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	p, err := Load(dir)
	if err != nil || p.Store != filepath.Join(dir, ".lore") || len(p.Documents) != 0 {
		t.Fatalf("no project file: %+v, %v", p, err)
	}
	write(t, dir, "store = \"data/lore\"\n\n[[document]]\nscope = \"camelot\"\nsource = \"lore/camelot.dli\"\n\n[[document]]\nscope = \"avalon\"\n")
	p, err = Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Store != filepath.Join(dir, "data/lore") || len(p.Documents) != 2 || p.Documents[0].Scope != "avalon" {
		t.Fatalf("%+v", p)
	}
	d, ok := p.Document("camelot")
	if !ok || d.Source != filepath.Join(dir, "lore/camelot.dli") {
		t.Fatalf("%+v %v", d, ok)
	}
}

func TestLoadRefuses(t *testing.T) {
	for _, tc := range []struct{ body, msg string }{
		{"store = \"../elsewhere\"\n", "leaves the project folder"},
		{"store = \"/etc\"\n", "must be relative"},
		{"[[document]]\nscope = \"a\"\nsource = \"../../x.dli\"\n", "leaves the project folder"},
		{"[[document]]\nscope = \"../x\"\n", "not an id"},
		{"[[document]]\nscope = \"a\"\n[[document]]\nscope = \"a\"\n", "declared twice"},
		{"stoer = \"x\"\n", "unknown key"},
		{"store = \n", "project"},
	} {
		dir := t.TempDir()
		write(t, dir, tc.body)
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: %v, want %q", tc.body, err, tc.msg)
		}
	}
}
