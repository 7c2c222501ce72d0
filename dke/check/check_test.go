// Golden tests: every testdata chunk checks with exactly the diagnostics
// written beside its lines; every fix, applied, removes its diagnostic;
// every chunk checks identically on the other surface.

package check_test

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/check"
	"github.com/deloreis/deloreis/dke/diag"
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

func TestChunks(t *testing.T) {
	env := testEnv(t)
	n := 0
	for _, file := range chunkFiles(t) {
		for _, c := range readChunks(t, file) {
			n++
			matchExpectations(t, c, checkChunk(c, c.src, c.lang, env))
		}
	}
	t.Logf("%d chunks", n)
}

// placeholders are what the fix test writes for each placeholder.
func placeholders(l keywords.Lang) map[string]string {
	return map[string]string{
		diag.VarPlaceholder:        "item",
		diag.CollectionPlaceholder: keywords.Word(l, keywords.ListScripts) + "()",
		diag.SourcePlaceholder:     `"fix"`,
	}
}

// TestFixes applies every fix of every testdata chunk and requires that
// the fixed source has no diagnostic the original did not have: the fixed
// one is gone and nothing new appears (other diagnostics may go too).
func TestFixes(t *testing.T) {
	env := testEnv(t)
	fixes, clean := 0, 0
	for _, file := range chunkFiles(t) {
		for _, c := range readChunks(t, file) {
			before := checkChunk(c, c.src, c.lang, env)
			for _, d := range before {
				if d.Fix == "" {
					continue
				}
				fixes++
				if fixOK(t, c, before, d, env) {
					clean++
				}
			}
		}
	}
	if fixes == 0 {
		t.Fatal("no fixes found in testdata")
	}
	if clean != fixes {
		t.Errorf("%d of %d fixes leave the module without a new diagnostic", clean, fixes)
	}
	t.Logf("%d fixes applied and re-checked", fixes)
}

// fixOK applies d's fix to the chunk and reports whether the result has
// neither d nor any diagnostic absent from before.
func fixOK(t *testing.T, c chunk, before diag.List, d diag.Diagnostic, env check.Env) bool {
	t.Helper()
	fixed := diag.ApplyFix(c.src, diag.Diagnostic{Line: d.Line, Col: d.Col, Fix: diag.Fill(d.Fix, placeholders(c.lang))})
	if fixed == c.src {
		t.Errorf("%s: fix %q of %s changed nothing", c, d.Fix, d.Error())
		return false
	}
	had := map[string]bool{}
	for _, e := range before {
		if e != d {
			had[diagKey(e)] = true
		}
	}
	ok := true
	for _, e := range checkChunk(c, fixed, c.lang, env) {
		switch {
		case e == d:
			t.Errorf("%s: applying fix %q left %s\n%s", c, d.Fix, e.Error(), fixed)
			ok = false
		case !had[diagKey(e)]:
			t.Errorf("%s: applying fix %q of %s introduced %s\n%s", c, d.Fix, d.Error(), e.Error(), fixed)
			ok = false
		}
	}
	return ok
}

// diagKey identifies a diagnostic by line, class and message: a fix may
// move later diagnostics of its own line to other columns.
func diagKey(d diag.Diagnostic) string {
	return strconv.Itoa(d.Line) + "|" + string(d.Class) + "|" + d.Message
}

var wordRE = regexp.MustCompile(`[\p{L}_][\p{L}\p{N}_]*`)

// toEng maps every reserved word of surface l in text to its eng word,
// leaving every other word as it is.
func toEng(text string, l keywords.Lang) string {
	return wordRE.ReplaceAllStringFunc(text, func(w string) string {
		if id, ok := keywords.Lookup(l, w); ok {
			return keywords.Word(keywords.Eng, id)
		}
		return w
	})
}

// canonical renders diagnostics without columns, in eng words, sorted.
func canonical(errs diag.List, l keywords.Lang) []string {
	var out []string
	for _, d := range errs {
		fix, _, _ := strings.Cut(d.Fix, " ###") // the test's own markers are not translated
		out = append(out, strings.Join([]string{strconv.Itoa(d.Line), string(d.Class), toEng(d.Message, l), toEng(fix, l)}, " | "))
	}
	sort.Strings(out)
	return out
}

func TestSurfaces(t *testing.T) {
	env := testEnv(t)
	n := 0
	for _, file := range chunkFiles(t) {
		for _, c := range readChunks(t, file) {
			if !c.translate {
				continue
			}
			other := keywords.Nob
			if c.lang == keywords.Nob {
				other = keywords.Eng
			}
			src2, err := syntax.Translate(c.src, c.lang, other)
			if err != nil {
				t.Errorf("%s: translate to %s: %v", c, other, err)
				continue
			}
			back, err := syntax.Translate(src2, other, c.lang)
			if err != nil || back != c.src {
				t.Errorf("%s: translation does not round-trip: %v\n%s", c, err, back)
			}
			n++
			got := canonical(checkChunk(c, src2, other, env), other)
			want := canonical(checkChunk(c, c.src, c.lang, env), c.lang)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s: checks differently on %s:\n%s\n--- got\n%s\n--- want\n%s", c, other, src2,
					strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
	t.Logf("%d chunks translated and re-checked", n)
}

// TestFixOffered checks which diagnostics carry a fix: one where the edit
// makes a valid program, none where it would bring a new diagnostic.
func TestFixOffered(t *testing.T) {
	env := testEnv(t)
	for _, tc := range []struct {
		src, want string // want: the fix of the first diagnostic
		mode      check.Mode
	}{
		{"def f(n: int):\n    return n\n", "def f(n: int) -> int:", check.Compile},
		{"def f(n: int):\n    if n > 0:\n        return\n    return n\n", "", check.Compile},
		{"def f(n: int):\n    if n > 0:\n        return n\n", "", check.Compile},
		{"remember(Sensor.s1.room, \"x\")\n", "remember(Sensor.s1.room, \"x\", <source>)", check.Run},
		{"remember(Sensor.s1.room, 1)\n", "remember(Sensor.s1.room, 1, <source>)", check.Run},
		{"Sensor.s1.room = \"x\"\n", "remember(Sensor.s1.room, \"x\", <source>)", check.Run},
		{"def f(ys: string_list):\n    ys.append(\"a\")\n", "ys = ys + [\"a\"]", check.Compile},
		{"def f(ys: string_list):\n    ys.append(1)\n", "", check.Compile},
		{"skriv(1)\n", "print(1)", check.Run},
		{"p = skriv\n", "", check.Run},
		{"x = Sann\n", "True", check.Run},
	} {
		_, _, errs := check.Source("p", tc.src, keywords.Eng, check.Options{Module: "p", Mode: tc.mode, Env: env})
		if len(errs) == 0 {
			t.Errorf("%q: no diagnostic", tc.src)
			continue
		}
		if errs[0].Fix != tc.want {
			t.Errorf("%q: fix %q, want %q (%s)", tc.src, errs[0].Fix, tc.want, errs[0].Error())
		}
	}
}
