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

func TestCreateSettings(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		ok    bool
	}{
		{"empty-folder", func(*testing.T, string) {}, true},
		{"missing-folder", func(t *testing.T, dir string) {
			if err := os.Remove(dir); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"existing-settings", func(t *testing.T, dir string) { write(t, dir, "branch = \"canon\"\n") }, false},
		{"existing-project", func(t *testing.T, dir string) {
			if err := Create(dir, []string{"camelot"}); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "proj")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, dir)
			var before []byte
			if data, err := os.ReadFile(filepath.Join(dir, FileName)); err == nil {
				before = data
			}
			err := CreateSettings(dir)
			if !tc.ok {
				after, _ := os.ReadFile(filepath.Join(dir, FileName))
				if err == nil || !strings.Contains(err.Error(), "already exists") || string(after) != string(before) {
					t.Fatalf("CreateSettings over an existing file: %v; file now %q", err, after)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(dir, FileName))
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				if !strings.HasPrefix(line, "#") {
					t.Fatalf("the new settings file holds more than a comment: %q", line)
				}
			}
			p, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if p.Store != filepath.Join(dir, ".lore") || p.Branch != "main" || p.Pin != "" || len(p.Documents) != 0 || len(p.Dialects) != 0 {
				t.Fatalf("the new settings load as %+v", p)
			}
			if got, err := Find(filepath.Join(dir)); err != nil || got != dir {
				t.Fatalf("Find of the new project: %q, %v", got, err)
			}
		})
	}
}
