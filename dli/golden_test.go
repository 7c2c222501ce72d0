// This file holds the golden tests over testdata/: every good/*.dli file
// formats to its .golden file; every bad/*.dli file fails to parse with
// the errors of its .err file, printed compiler-style. Run `go test
// -update` to rewrite the golden files. (`deloreis fmt` itself, -d and its
// diffs included, is tested in internal/cli.)

package dli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with the file at path, or rewrites the file under
// -update; an empty want is no file.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if len(got) == 0 {
			if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			return
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// parseErrors parses the file at name and returns its errors, one
// `file:line:col: error: message` line each, as `deloreis fmt` prints them.
func parseErrors(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse(name, src)
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("%s: parse error %v is no ErrorList", name, err)
	}
	var b strings.Builder
	for _, e := range list {
		fmt.Fprintf(&b, "%s:%d:%d: error: %s\n", e.Filename, e.Pos.Line, e.Pos.Col, e.Msg)
	}
	return b.String()
}

func TestGoldenGood(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "good", "*.dli"))
	if len(files) == 0 {
		t.Fatal("no testdata/good files")
	}
	for _, name := range files {
		base := strings.TrimSuffix(name, ".dli")
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		doc := mustParse(t, name, src)
		out := Format(doc)
		golden(t, base+".golden", out)
		if again := Format(mustParse(t, base+".golden", out)); !bytes.Equal(again, out) {
			t.Errorf("%s: formatting the formatted text changed it", name)
		}
	}
}

func TestGoldenBad(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "bad", "*.dli"))
	if len(files) == 0 {
		t.Fatal("no testdata/bad files")
	}
	for _, name := range files {
		golden(t, strings.TrimSuffix(name, ".dli")+".err", []byte(parseErrors(t, name)))
	}
}
