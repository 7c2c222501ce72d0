package eval

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/check"
	"github.com/deloreis/deloreis/dke/keywords"
)

// TestLayered: a fork reads what its parent held (set, or filled as a
// model being built fills it), writes only its own layer, and a top
// grown past an eighth of the base is folded into a new base.
func TestLayered(t *testing.T) {
	show := func(l *layered[string, int]) string {
		var out []string
		for _, k := range []string{"a", "b", "c", "d"} {
			if v, ok := l.get(k); ok {
				out = append(out, fmt.Sprintf("%s=%d", k, v))
			}
		}
		return fmt.Sprintf("%s n=%d", strings.Join(out, " "), l.len())
	}
	set := newLayered[string, int]()
	set.set("a", 1)
	set.set("b", 2)
	filled := newLayeredSize[string, int](2) // as a model being built fills it
	filled.fill("a", 1)
	filled.fill("b", 2)
	cases := []struct {
		name       string
		edit       func(l *layered[string, int])
		fork, base string
	}{
		{"delete a base entry from an empty top", func(l *layered[string, int]) { l.del("a") }, "b=2 n=1", "a=1 b=2 n=2"},
		{"overwrite and add", func(l *layered[string, int]) { l.set("a", 9); l.set("c", 3) }, "a=9 b=2 c=3 n=3", "a=1 b=2 n=2"},
		{"add then delete", func(l *layered[string, int]) { l.set("c", 3); l.del("c"); l.del("d") }, "a=1 b=2 n=2", "a=1 b=2 n=2"},
		{"delete then add back", func(l *layered[string, int]) { l.del("b"); l.set("b", 5) }, "a=1 b=5 n=2", "a=1 b=2 n=2"},
	}
	for _, c := range cases {
		for how, base := range map[string]layered[string, int]{"set": set, "filled": filled} {
			t.Run(how+"/"+c.name, func(t *testing.T) {
				f := base.fork()
				c.edit(&f)
				if got := show(&f); got != c.fork {
					t.Errorf("fork %q, want %q", got, c.fork)
				}
				if got := show(&base); got != c.base {
					t.Errorf("base %q, want %q", got, c.base)
				}
				if g := f.fork(); show(&g) != c.fork {
					t.Errorf("fork of the fork %q, want %q", show(&g), c.fork)
				}
			})
		}
	}
	big := newLayered[string, int]()
	for i := range 300 {
		big.set(fmt.Sprint(i), i)
	}
	if f := big.fork(); len(f.top) != 0 || len(f.base) != 300 || f.len() != 300 {
		t.Errorf("a top of 300 over an empty base was not folded: top %d, base %d", len(f.top), len(f.base))
	}
}

// TestCarriedRulesFollowModules: a run handed the model of other rules
// (another version of a module) rebuilds it rather than answer by them;
// one handed the model of the same rules starts from it.
func TestCarriedRulesFollowModules(t *testing.T) {
	w := newWorld()
	compile := func(src string) {
		w.do(t, step{compile: "rules", lang: keywords.Eng, src: src})
	}
	run := func(src string, prior *Rules) *Result {
		f, _, errs := check.Source("", src, keywords.Eng, check.Options{Mode: check.Run, Env: w.env})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		return Run(f, Options{Store: w.store, Modules: w.mods, Rules: prior})
	}
	compile("@rule\ndef big(i, q):\n    if Item[i].qty == q and q > 97:\n        Item[i].big = True\n")
	r := run("remember(Item.i1.qty, 98, \"s\")\nremember(Item.i2.qty, 60, \"s\")\nprint(current(Item.i2.big).found)\n", nil)
	first := r.Rules()
	if first == nil || !strings.Contains(r.Transcript(), "print: False") {
		t.Fatalf("first run: %s (rules %v)", r.Transcript(), first)
	}
	if again := run("print(current(Item.i1.big).found)\n", first); again.Rules() != first || !strings.Contains(again.Transcript(), "print: True") {
		t.Errorf("a run over the same rules and claims: %s, rules carried: %v", again.Transcript(), again.Rules() == first)
	}
	compile("@rule\ndef big(i, q):\n    if Item[i].qty == q and q > 50:\n        Item[i].big = True\n")
	if r := run("print(current(Item.i2.big).found)\n", first); !strings.Contains(r.Transcript(), "print: True") || r.Rules() == first {
		t.Errorf("after the rule changed: %s", r.Transcript())
	}
}
