// This file holds FuzzParse. Its seed corpus — the testdata files (this
// package's and the module's), the .dli texts of the contract fixtures,
// the spec examples and a few generated documents — runs with every plain
// go test. Besides the round trip it checks every span of what parsed: inside
// the source, ordered, and at the line:col its offsets say.

package dli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.dli"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no testdata files: %v", err)
	}
	shared, err := filepath.Glob(filepath.Join("..", "testdata", "dli", "*.dli"))
	if err != nil || len(shared) == 0 {
		f.Fatalf("no testdata files in the module's testdata/dli: %v", err)
	}
	files = append(files, shared...)
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	for _, text := range fixtureTexts(f) {
		f.Add([]byte(text))
	}
	f.Add([]byte(specDiffBlock))
	for _, tc := range specRendered {
		f.Add([]byte(tc.quote))
	}
	g := newGen(3)
	for i := 0; i < 20; i++ {
		f.Add(Format(g.document(4)))
	}
	for _, s := range []string{
		"", "\n\n", "\uFEFF# grammar: v0\n", "#\r\n", "a\r", "x.y = \"\\q\"", "person a \"\n",
		"question q \"Q\"\n  # c\n  option a \"A\"\n# d\n", "rule r: h(?x) :- not not(X)\n  proposed s\n",
		"scope a\nscope b\n", "  option a \"A\"\n", "ratify d\n", "decision d\n  cited a, b ratified\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		doc, err := Parse("fuzz.dli", src)
		if doc == nil {
			t.Fatal("Parse returned a nil Document")
		}
		checkDocSpans(t, string(src), doc)
		if err != nil {
			return
		}
		out := Format(doc)
		back, err := Parse("fuzz-formatted.dli", out)
		if err != nil {
			t.Fatalf("formatted output does not parse: %v\ninput:\n%q\noutput:\n%s", err, src, out)
		}
		if d := sameDoc(doc, back); d != "" {
			t.Fatalf("format changed the AST: %s\ninput:\n%q\noutput:\n%s", d, src, out)
		}
		if again := Format(back); !bytes.Equal(again, out) {
			t.Fatalf("Format is not idempotent:\n%s\nthen\n%s", out, again)
		}
	})
}

// fixtureTexts are the .dli texts the DLI contract fixtures send (the
// text params of dli.check, dli.fmt, dli.parse, dli.import and dli.diff),
// a framing fixture's with its benign and its tainted string.
func fixtureTexts(f *testing.F) []string {
	files, err := filepath.Glob(filepath.Join("..", "contracts", "dli-worker", "fixtures", "*", "dli.*.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no contract fixtures: %v", err)
	}
	var texts []string
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		var fx struct {
			Benign, Tainted string
			Request         struct {
				Params struct {
					Text *string
				}
			}
		}
		if err := json.Unmarshal(data, &fx); err != nil {
			f.Fatalf("%s: %v", name, err)
		}
		if fx.Request.Params.Text == nil {
			continue
		}
		text := *fx.Request.Params.Text
		if fx.Benign == "" {
			texts = append(texts, text)
			continue
		}
		for _, s := range []string{fx.Benign, fx.Tainted} {
			texts = append(texts, strings.ReplaceAll(text, "{S}", s))
		}
	}
	if len(texts) == 0 {
		f.Fatal("no .dli text in the contract fixtures")
	}
	return texts
}

// checkDocSpans checks the spans of a parsed document: each lies inside
// the source with line:col matching its offsets; declarations follow one
// another; each part lies inside its declaration, and parts start in
// source order.
func checkDocSpans(t *testing.T, src string, doc *Document) {
	t.Helper()
	inSource := func(what string, s Span) {
		if !s.IsValid() || s.StartOffset < 0 || s.StartOffset > s.EndOffset || s.EndOffset > len(src) {
			t.Fatalf("%s: span %v [%d, %d) not inside the %d-byte source %q", what, s, s.StartOffset, s.EndOffset, len(src), src)
		}
		if posAt(src, s.StartOffset) != s.Start || posAt(src, s.EndOffset) != s.End {
			t.Fatalf("%s: span %v does not match offsets [%d, %d) of %q", what, s, s.StartOffset, s.EndOffset, src)
		}
	}
	comments := func(what string, cs []Comment) {
		for _, c := range cs {
			inSource(what, c.Span())
		}
	}
	if doc.Grammar != "" {
		inSource("header", doc.HeaderSpan)
	}
	if doc.Scope != "" {
		inSource("scope line", doc.ScopeSpan)
		inSource("scope id", doc.ScopeIDSpan)
	}
	comments("leading comment", doc.Leading)
	comments("trailing comment", doc.Trailing)
	prevEnd := 0
	for i := range doc.Decls {
		d := &doc.Decls[i]
		ds := d.Span()
		inSource("decl "+itoa(i), ds)
		if ds.Start != d.Pos || ds.StartOffset < prevEnd {
			t.Fatalf("decl %d: span %v overlaps the one before or does not start at %v", i, ds, d.Pos)
		}
		prevEnd = ds.EndOffset
		comments("comment of decl "+itoa(i), d.Comments)
		start := ds.StartOffset
		for _, part := range d.Parts() {
			inSource("decl "+itoa(i)+" "+part.Path, part.Span)
			if part.Span.StartOffset < start || part.Span.EndOffset > ds.EndOffset || part.Span.StartOffset == part.Span.EndOffset {
				t.Fatalf("decl %d: part %s %v out of order or outside %v", i, part.Path, part.Span, ds)
			}
			start = part.Span.StartOffset
		}
	}
}
