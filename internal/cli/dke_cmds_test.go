package cli

import (
	"path/filepath"
	"testing"
)

// TestDKECheckGolden: `deloreis dke check` over modules that import one
// another, in both keyword surfaces, compiler-style and as JSON.
func TestDKECheckGolden(t *testing.T) {
	f := func(name string) string { return filepath.Join("testdata", "dke", name) }
	for _, tc := range []struct {
		golden string
		args   []string
		code   int
	}{
		{"watch", []string{f("watch.dpy")}, 1},
		{"watch-json", []string{"--format", "json", f("watch.dpy")}, 1},
		{"reflexes", []string{f("reflexes.dpy")}, 1},
		{"reflexes-json", []string{f("reflexes.dpy"), "--format", "json"}, 1},
		{"ping-pong", []string{f("ping.dpy"), f("pong.dpy")}, 1},
		{"shop", []string{f("shop.dpy"), f("inventory.dpy")}, 0},
		{"lager-nob", []string{"--language", "nob", f("lager.dpy")}, 0},
		{"lager-eng", []string{f("lager.dpy")}, 1},
		{"program", []string{f("inventory.dpy"), f("program.dpy")}, 0},
		{"bad-name", []string{f("bad-name.dpy")}, 1},
		{"clean-json", []string{"--format", "json", f("inventory.dpy")}, 0},
	} {
		out, errs, code := deloreis(t, append([]string{"dke", "check"}, tc.args...)...)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d (stderr %s)", tc.golden, code, tc.code, errs)
		}
		golden(t, "dke/"+tc.golden, out)
	}
}
