package check_test

import (
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/check"
	"github.com/deloreis/deloreis/dke/keywords"
)

// TestOneDiagnosticPerFault holds the issue 33 row "dke check": a fault
// is reported once, where it is, and `.append` on a name nothing defines
// says both what is wrong (the name) and what to write instead (the list
// hint). Each case lists every diagnostic the source must give, as
// line:col and a piece of its message.
func TestOneDiagnosticPerFault(t *testing.T) {
	env := testEnv(t)
	const hint = "a list has no `.append` either: lists are values"
	cases := []struct {
		name, src string
		want      []string
	}{
		{"append on an undefined name", "xs.append(1)\n", []string{"1:1 undefined: xs, and " + hint}},
		{"beside a near name", "x = [\"a\"]\nxs.append(\"b\")\n", []string{"2:1 undefined: xs (did you mean x?), and " + hint}},
		{"in a loop over a near name", "def f(x: string):\n    for y in list attributes of x:\n        xs.append(y)\n",
			[]string{"3:9 undefined: xs (did you mean x?), and " + hint}},
		{"extend", "xs.extend(ys)\n", []string{"1:1 undefined: xs, and a list has no `.extend` either", "1:11 undefined: ys"}},
		{"a list's append keeps its own message", "xs = [\"a\"]\nxs.append(\"b\")\n", []string{"2:1 a list has no `.append`: lists are values — build a new one"}},
		{"a module not imported", "inventory.append(1)\n", []string{"1:1 module inventory is not imported"}},
		{"a receiver that is itself wrong", "f(1).append(2)\n", []string{"1:1 undefined: f"}},
		{"a method of no list on an undefined name", "xs.upper()\n", []string{"1:1 undefined: xs"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, errs := check.Source("t.dpy", c.src, keywords.Eng, check.Options{Module: "t", Mode: check.Compile, Env: env})
			var got []string
			for _, d := range errs {
				got = append(got, strings.TrimPrefix(d.Error(), "t.dpy:"))
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %d diagnostics, want %d:\n%s", len(got), len(c.want), strings.Join(got, "\n"))
			}
			for i, w := range c.want {
				at, msg, _ := strings.Cut(w, " ")
				if !strings.HasPrefix(got[i], at+":") || !strings.Contains(got[i], msg) {
					t.Errorf("diagnostic %d is %q, want %s … %q", i, got[i], at, msg)
				}
			}
		})
	}
}
