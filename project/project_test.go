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

func TestBranchPinAndCreate(t *testing.T) {
	dir := t.TempDir()
	if err := Create(dir, []string{"camelot", "broceliande"}); err != nil {
		t.Fatal(err)
	}
	if err := Create(dir, []string{"camelot"}); err == nil {
		t.Fatal("Create over an existing project file succeeded")
	}
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Documents) != 2 || p.Documents[0].Scope != "broceliande" || p.Branch != "main" || p.Pin != "" {
		t.Fatalf("loaded %+v", p)
	}
	for _, bad := range [][]string{{"not an id"}, {"a", "a"}} {
		if err := Create(t.TempDir(), bad); err == nil {
			t.Errorf("Create(%q) succeeded", bad)
		}
	}
	cases := []struct {
		toml string
		ok   bool
	}{
		{"branch = \"canon\"\npin = \"abcd1234\"\n", true},
		{"branch = \"../x\"\n", false},
		{"branch = \"a..b\"\n", false},
		{"pin = \"main\"\n", false},
		{"pin = \"abc\"\n", false},
	}
	for _, c := range cases {
		d := t.TempDir()
		if err := os.WriteFile(filepath.Join(d, FileName), []byte(c.toml), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := Load(d)
		if (err == nil) != c.ok {
			t.Errorf("%q: err %v", c.toml, err)
		}
		if c.ok && (p.Branch != "canon" || p.Pin != "abcd1234") {
			t.Errorf("%q: loaded %+v", c.toml, p)
		}
	}
}
