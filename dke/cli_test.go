// Tests of `deloreis dke check`: output compared with golden files
// (go test -update rewrites them) and exit codes.

package dke

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func cli(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := CheckMain(args, &out, &errb)
	return out.String(), errb.String(), code
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "cli", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

func f(name string) string { return filepath.Join("testdata", "cli", name) }

func TestCheckGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
		code   int
	}{
		{"watch", []string{f("watch.dpy")}, 1},
		{"watch-json", []string{"--json", f("watch.dpy")}, 1},
		{"reflexes", []string{f("reflexes.dpy")}, 1},
		{"reflexes-json", []string{f("reflexes.dpy"), "--json"}, 1},
		{"ping-pong", []string{f("ping.dpy"), f("pong.dpy")}, 1},
		{"shop", []string{f("shop.dpy"), f("inventory.dpy")}, 0},
		{"lager-nob", []string{"--language", "nob", f("lager.dpy")}, 0},
		{"lager-eng", []string{f("lager.dpy")}, 1},
		{"program", []string{f("inventory.dpy"), f("program.dpy")}, 0},
		{"bad-name", []string{f("bad-name.dpy")}, 1},
		{"clean-json", []string{"--json", f("inventory.dpy")}, 0},
	} {
		out, errs, code := cli(t, tc.args...)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d (stderr %s)", tc.golden, code, tc.code, errs)
		}
		golden(t, tc.golden, out)
	}
}

func TestCheckUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--language", "nno", f("watch.dpy")},
		{"--bogus", f("watch.dpy")},
		{f("missing.dpy")},
	} {
		out, errs, code := cli(t, args...)
		if code != 2 || out != "" || !strings.HasPrefix(errs, "deloreis dke check: ") {
			t.Errorf("%v: exit %d, out %q, err %q", args, code, out, errs)
		}
	}
}
