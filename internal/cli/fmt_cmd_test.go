// This file holds the tests of the fmt command: printing, -w (atomic, only
// when the file changes, keeping permissions, through symbolic links), -d,
// exit statuses, errors printed compiler-style, directories and standard
// input.

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	messySrc     = "person galahad \"Galahad\" proposed session-7c9\n"
	canonicalSrc = "person galahad \"Galahad\"   proposed  session-7c9\n"
)

// writeFile writes a file under dir and returns its path.
func writeFile(t *testing.T, dir, name, content string, perm os.FileMode) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
	return path
}

// readFile reads a file or fails the test.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFmtPrints(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "a.dli", messySrc, 0o644)
	code, stdout, stderr := runFmt(path)
	if code != 0 || stdout != canonicalSrc || stderr != "" {
		t.Errorf("fmt: %d %q %q", code, stdout, stderr)
	}
	if readFile(t, path) != messySrc {
		t.Error("fmt without -w changed the file")
	}
}

func TestFmtWrite(t *testing.T) {
	dir := t.TempDir()
	messy := writeFile(t, dir, "messy.dli", messySrc, 0o640)
	canon := writeFile(t, dir, "canon.dli", canonicalSrc, 0o644)
	before, _ := os.Stat(canon)
	code, stdout, stderr := runFmt("-w", messy, canon)
	if code != 0 || stdout != "" || stderr != "" {
		t.Fatalf("fmt -w: %d %q %q", code, stdout, stderr)
	}
	if got := readFile(t, messy); got != canonicalSrc {
		t.Errorf("fmt -w wrote %q", got)
	}
	info, _ := os.Stat(messy)
	if info.Mode().Perm() != 0o640 {
		t.Errorf("fmt -w changed the permissions to %v", info.Mode().Perm())
	}
	after, _ := os.Stat(canon)
	if !os.SameFile(before, after) {
		t.Error("fmt -w rewrote a file that was already canonical")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("fmt -w left files behind: %v", entries)
	}
}

func TestFmtWriteSymlink(t *testing.T) {
	dir := t.TempDir()
	target := writeFile(t, dir, "target.dli", messySrc, 0o644)
	link := filepath.Join(dir, "link.dli")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runFmt("-w", link); code != 0 {
		t.Fatalf("fmt -w link: %d %s", code, stderr)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("fmt -w replaced the symbolic link")
	}
	if readFile(t, target) != canonicalSrc {
		t.Error("fmt -w did not write through the link")
	}
}

func TestFmtDiff(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "a.dli", messySrc, 0o644)
	want := "diff " + path + ".orig " + path + "\n--- " + path + ".orig\n+++ " + path + "\n" +
		"@@ -1 +1 @@\n-" + messySrc + "+" + canonicalSrc
	code, stdout, stderr := runFmt("-d", path)
	if code != 0 || stdout != want || stderr != "" {
		t.Errorf("fmt -d: %d\n%s\nwant\n%s\nstderr %q", code, stdout, want, stderr)
	}
	code, stdout, _ = runFmt("-d", "-w", path)
	if code != 0 || stdout != want || readFile(t, path) != canonicalSrc {
		t.Errorf("fmt -d -w: %d %q", code, stdout)
	}
	if code, stdout, _ = runFmt("-d", path); code != 0 || stdout != "" {
		t.Errorf("fmt -d on a canonical file: %d %q", code, stdout)
	}
}

func TestFmtErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.dli", "person a \"A\"\nx.y = z     proposed  s\nserves(a, b, c)     proposed  s\n", 0o644)
	good := writeFile(t, dir, "good.dli", messySrc, 0o644)
	code, stdout, stderr := runFmt("-w", bad, good)
	want := bad + ":1:1: error: missing provenance for entity: expected `proposed`, `hypothesis` or `cited` " +
		"at the end of the line or on an indented line below it\n" +
		bad + ":3:12: error: expected `)` after relation arguments, found `,`\n"
	if code != 1 || stdout != "" || stderr != want {
		t.Errorf("fmt bad good: %d %q\n%s\nwant\n%s", code, stdout, stderr, want)
	}
	if readFile(t, good) != canonicalSrc {
		t.Error("a bad file stopped the good one from being formatted")
	}
	if readFile(t, bad) != "person a \"A\"\nx.y = z     proposed  s\nserves(a, b, c)     proposed  s\n" {
		t.Error("fmt -w wrote a file that does not parse")
	}
	missing := filepath.Join(dir, "missing.dli")
	if code, _, stderr = runFmt(missing); code != 1 || stderr != missing+": error: no such file or directory\n" {
		t.Errorf("missing file: %d %q", code, stderr)
	}
}

func TestFmtUsage(t *testing.T) {
	if code, _, stderr := runFmt("-x"); code != 2 || !strings.Contains(stderr, "unknown shorthand flag: 'x'") {
		t.Errorf("bad flag: %d %q", code, stderr)
	}
	if code, stdout, _ := runFmt("-h"); code != 0 || !strings.Contains(stdout, "-w, --write") || !strings.Contains(stdout, "-l, --list") {
		t.Errorf("-h: %d %q", code, stdout)
	}
	if code, _, stderr := runFmt("-w"); code != 2 || !strings.Contains(stderr, "standard input") {
		t.Errorf("-w with stdin: %d %q", code, stderr)
	}
}

// fmtStdin runs fmt on standard input.
func fmtStdin(src string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	root := newRoot(&stdout, &stderr)
	root.SetIn(strings.NewReader(src))
	code := execute(root, []string{"fmt"}, &stderr)
	return code, stdout.String(), stderr.String()
}

// runFmt runs fmt with args and returns its status, stdout and stderr.
func runFmt(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"fmt"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestFmtStdin(t *testing.T) {
	code, stdout, stderr := fmtStdin(messySrc)
	if code != 0 || stdout != canonicalSrc {
		t.Errorf("stdin: %d %q %q", code, stdout, stderr)
	}
	code, _, stderr = fmtStdin("frob\n")
	if code != 1 || !strings.HasPrefix(stderr, "<standard input>:1:1: error: expected a declaration") {
		t.Errorf("stdin error: %d %q", code, stderr)
	}
}

func TestFmtDirectory(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	a := writeFile(t, dir, "a.dli", messySrc, 0o644)
	b := writeFile(t, sub, "b.dli", messySrc, 0o644)
	other := writeFile(t, dir, "notes.txt", messySrc, 0o644)
	if code, _, stderr := runFmt("-w", dir); code != 0 {
		t.Fatalf("fmt -w dir: %d %s", code, stderr)
	}
	if readFile(t, a) != canonicalSrc || readFile(t, b) != canonicalSrc || readFile(t, other) != messySrc {
		t.Error("fmt -w on a directory formats exactly its .dli files")
	}
}

// TestFmtGoldenDiff: `fmt -d` over dli's good samples prints
// testdata/fmt/<name>.diff (no file for a sample already canonical), and
// `fmt` prints what dli.Format gives, the .golden file beside the sample.
func TestFmtGoldenDiff(t *testing.T) {
	const dir = "../../dli/"
	files, _ := filepath.Glob(filepath.Join(dir, "testdata", "good", "*.dli"))
	if len(files) == 0 {
		t.Fatal("no ../../dli/testdata/good files")
	}
	for _, name := range files {
		base := strings.TrimSuffix(filepath.Base(name), ".dli")
		code, stdout, stderr := runFmt("-d", name)
		if code != 0 || stderr != "" {
			t.Errorf("fmt -d %s: status %d, stderr %q", name, code, stderr)
		}
		goldenFile(t, filepath.Join("testdata", "fmt", base+".diff"), strings.ReplaceAll(stdout, dir, ""))
		code, stdout, stderr = runFmt(name)
		want := readFile(t, strings.TrimSuffix(name, ".dli")+".golden")
		if code != 0 || stderr != "" || stdout != want {
			t.Errorf("fmt %s: status %d, stderr %q; stdout equals the .golden file: %v", name, code, stderr, stdout == want)
		}
	}
}

// goldenFile compares got with the file at path (an empty got: no file),
// or rewrites it under -update.
func goldenFile(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if got == "" {
			if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			return
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run go test -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
