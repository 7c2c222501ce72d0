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

func TestFixes(t *testing.T) {
	env := testEnv(t)
	fixes := 0
	for _, file := range chunkFiles(t) {
		for _, c := range readChunks(t, file) {
			for _, d := range checkChunk(c, c.src, c.lang, env) {
				if d.Fix == "" {
					continue
				}
				fixes++
				fixed := diag.ApplyFix(c.src, diag.Diagnostic{Line: d.Line, Col: d.Col, Fix: diag.Fill(d.Fix, placeholders(c.lang))})
				if fixed == c.src {
					t.Errorf("%s: fix %q of %s changed nothing", c, d.Fix, d.Error())
					continue
				}
				for _, e := range checkChunk(c, fixed, c.lang, env) {
					if e.Line == d.Line && e.Col == d.Col && e.Class == d.Class && e.Message == d.Message {
						t.Errorf("%s: applying fix %q left %s\n%s", c, d.Fix, e.Error(), fixed)
					}
				}
			}
		}
	}
	if fixes < 10 {
		t.Errorf("only %d fixes tested", fixes)
	}
	t.Logf("%d fixes applied and re-checked", fixes)
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
