// Scale: a call-graph cycle is reported once, in a bounded message,
// whatever its length; the benchmarks print the cost of long cycles and of
// the other shapes that could make the checker super-linear (long call
// chains to a writer, many misspellings among many names, long
// expressions, many variables, many rules).

package check_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/check"
	"github.com/deloreis/deloreis/dke/diag"
	"github.com/deloreis/deloreis/dke/keywords"
)

// ringModule returns rings of scripts: ring r of size sizes[r] is
// f<r>_0 → f<r>_1 → … → f<r>_0; chord adds a call from each ring's last
// script back to its middle one, so a ring's component has more calls.
func ringModule(sizes []int, chord bool) string {
	var b strings.Builder
	for r, n := range sizes {
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "def f%d_%d(n: int):\n    f%d_%d(n)\n", r, i, r, (i+1)%n)
			if chord && i == n-1 && n > 2 {
				fmt.Fprintf(&b, "    f%d_%d(n)\n", r, n/2)
			}
		}
	}
	return b.String()
}

// maxRecursionMessage bounds a recursion diagnostic's length in bytes.
const maxRecursionMessage = 600

func TestRecursionShape(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sizes []int
		chord bool
	}{
		{"self", []int{1}, false},
		{"pair", []int{2}, false},
		{"ring of 9", []int{9}, false},
		{"ring of 300", []int{300}, false},
		{"three rings", []int{3, 50, 1}, false},
		{"rings with chords", []int{40, 7}, true},
		{"ring of 10000", []int{10000}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := ringModule(tc.sizes, tc.chord)
			_, _, errs := check.Source("ring", src, keywords.Eng, check.Options{Module: "m"})
			if len(errs) != len(tc.sizes) {
				t.Fatalf("%d diagnostics, want one per cycle (%d); first: %v", len(errs), len(tc.sizes), firstOf(errs))
			}
			for r, d := range errs {
				first := fmt.Sprintf("f%d_0", r)
				if !strings.HasPrefix(d.Message, "recursion: "+first+" → f") || d.Line != lineOf(src, first)+1 {
					t.Errorf("cycle %d reported as %s", r, d.Error())
				}
				if len(d.Message) > maxRecursionMessage {
					t.Errorf("cycle %d: message of %d bytes: %.200s…", r, len(d.Message), d.Message)
				}
				if n := tc.sizes[r]; n > 1 && n <= 8 && !strings.Contains(d.Message, fmt.Sprintf("f%d_%d → %s —", r, n-1, first)) {
					t.Errorf("cycle %d does not name its members in order: %s", r, d.Message)
				}
			}
		})
	}
}

func firstOf(errs diag.List) string {
	if len(errs) == 0 {
		return "none"
	}
	return fmt.Sprintf("%.300s", errs[0].Error())
}

// lineOf returns the 1-based line declaring name.
func lineOf(src, name string) int {
	i := strings.Index(src, "def "+name+"(")
	return strings.Count(src[:i], "\n") + 1
}

// BenchmarkRecursionCycle checks a module that is one cycle of n scripts
// (target: 10,000 under 0.5 s).
func BenchmarkRecursionCycle(b *testing.B) {
	for _, n := range []int{800, 3000, 10000} {
		src := ringModule([]int{n}, false)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, _, errs := check.Source("ring", src, keywords.Eng, check.Options{Module: "m"}); len(errs) != 1 {
					b.Fatalf("%d diagnostics", len(errs))
				}
			}
		})
	}
}

// shapes are module generators of size n for the scale tests.
var shapes = []struct {
	name string
	gen  func(n int) string
	errs func(n int) int // how many diagnostics a module of size n has
}{
	{"chain to a writer", func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "def f%d(n: int):\n    f%d(n)\n", i, i+1)
		}
		fmt.Fprintf(&b, "def f%d(n: int):\n    remember(Sensor.s1.room, \"x\", \"y\")\n", n)
		return b.String()
	}, func(int) int { return 0 }},
	{"misspelled calls", func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "def script%d(n: int):\n    scrpt%d(n)\n", i, i)
		}
		return b.String()
	}, func(n int) int { return n }},
	{"long expression", func(n int) string {
		return "def f(n: int) -> int:\n    return n" + strings.Repeat(" + n", n) + "\n"
	}, func(int) int { return 0 }},
	{"many variables", func(n int) string {
		var b strings.Builder
		b.WriteString("def f(n: int):\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "    v%d = n + %d\n", i, i)
		}
		return b.String()
	}, func(int) int { return 0 }},
	{"rule chain", func(n int) string {
		var b strings.Builder
		b.WriteString("class Room:\n")
		for i := 0; i <= n; i++ {
			fmt.Fprintf(&b, "    k%d: int\n", i)
		}
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "@rule\ndef r%d(s):\n    if Room[s].k%d == 1:\n        Room[s].k%d = 1\n", i, i, i+1)
		}
		return b.String()
	}, func(int) int { return 0 }},
}

// TestShapes checks the scale shapes: the expected diagnostics, and every
// script of a chain to a writer known to write.
func TestShapes(t *testing.T) {
	env := testEnv(t)
	for _, sh := range shapes {
		for _, n := range []int{3, 2000} {
			_, info, errs := check.Source("shape", sh.gen(n), keywords.Eng, check.Options{Module: "m", Env: env})
			if len(errs) != sh.errs(n) {
				t.Errorf("%s, n=%d: %d diagnostics, want %d; first: %s", sh.name, n, len(errs), sh.errs(n), firstOf(errs))
			}
			if sh.name != "chain to a writer" {
				continue
			}
			for _, s := range info.Scripts {
				if !s.Writes {
					t.Errorf("n=%d: %s calls a writer but is not known to write", n, s.Name)
					break
				}
			}
		}
	}
}

// BenchmarkShapes checks each scale shape at growing sizes: a time per
// operation growing about as n does is linear.
func BenchmarkShapes(b *testing.B) {
	env := testEnv(b)
	for _, sh := range shapes {
		for _, n := range []int{1000, 4000, 16000} {
			src := sh.gen(n)
			b.Run(fmt.Sprintf("%s/n=%d", strings.ReplaceAll(sh.name, " ", "-"), n), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					check.Source("shape", src, keywords.Eng, check.Options{Module: "m", Env: env})
				}
			})
		}
	}
}
