// This file holds the golden tests over testdata/: every good/*.dli file
// formats to its .golden file and `fmt -d` prints its .diff file (none for
// a file already canonical); every bad/*.dli file makes `fmt` exit 1 and
// print its .err file. Run `go test -update` to rewrite the golden files.

package dli

import (
	"bytes"
	"flag"
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

// runFmt runs fmtMain with args and returns its status, stdout and stderr.
func runFmt(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := fmtMain(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
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
		code, stdout, stderr := runFmt(name)
		if code != 0 || stderr != "" || stdout != string(out) {
			t.Errorf("fmt %s: status %d, stderr %q; stdout equals Format: %v", name, code, stderr, stdout == string(out))
		}
		code, stdout, stderr = runFmt("-d", name)
		if code != 0 || stderr != "" {
			t.Errorf("fmt -d %s: status %d, stderr %q", name, code, stderr)
		}
		golden(t, base+".diff", []byte(stdout))
	}
}

func TestGoldenBad(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "bad", "*.dli"))
	if len(files) == 0 {
		t.Fatal("no testdata/bad files")
	}
	for _, name := range files {
		code, stdout, stderr := runFmt(name)
		if code != 1 || stdout != "" {
			t.Errorf("fmt %s: status %d, stdout %q; want 1 and nothing", name, code, stdout)
		}
		golden(t, strings.TrimSuffix(name, ".dli")+".err", []byte(stderr))
	}
}
