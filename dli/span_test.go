// This file holds the span tests: for a declaration of every object type,
// each part's span slices the source to exactly its token or clause, its
// line:col agrees with its offsets, and Parts names exactly the parts
// listed; comments, the header and the scope line have spans too.

package dli

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deloreis/deloreis/objects"
)

// spanPrefix puts every case below line 1, after a byte order mark, so
// lines and columns are not trivially offsets.
const spanPrefix = "\uFEFF# grammar: v0\nscope camelot\n# über alles\n\n"

var (
	hexA = strings.Repeat("a1", 32)
	hexB = strings.Repeat("b2", 32)
)

// spanCases are declarations of every type, each with every part it has
// and the text that part spans, in source order. decl is the text of the
// whole declaration.
var spanCases = []struct {
	name  string
	src   string // one declaration, after spanPrefix
	decl  string
	parts [][2]string // path, spanned text
}{
	{"entity", "person galahad \"Galahad\"   proposed  session-7c9\n", "person galahad \"Galahad\"   proposed  session-7c9",
		[][2]string{{"kind", "person"}, {"id", "galahad"}, {"name", `"Galahad"`}, {"provenance", "proposed  session-7c9"},
			{"provenance.kind", "proposed"}, {"provenance.origin", "session-7c9"}}},
	{"fact", "mïreth.tongue = \"low, saltish\"\n  cited dl-1, dl-2 ratified\n", "mïreth.tongue = \"low, saltish\"\n  cited dl-1, dl-2 ratified",
		[][2]string{{"entity", "mïreth"}, {"key", "tongue"}, {"value", `"low, saltish"`}, {"provenance", "cited dl-1, dl-2 ratified"},
			{"provenance.kind", "cited"}, {"provenance.decisions[0]", "dl-1"}, {"provenance.decisions[1]", "dl-2"},
			{"provenance.state", "ratified"}}},
	{"relation", "serves(mireth, the-warden)     hypothesis h1\n", "serves(mireth, the-warden)     hypothesis h1",
		[][2]string{{"relation", "serves"}, {"from", "mireth"}, {"to", "the-warden"}, {"provenance", "hypothesis h1"},
			{"provenance.kind", "hypothesis"}, {"provenance.hyp", "h1"}}},
	{"relation-explicit", "relation before(a, b) proposed s\n", "relation before(a, b) proposed s",
		[][2]string{{"relation", "before"}, {"from", "a"}, {"to", "b"}, {"provenance", "proposed s"},
			{"provenance.kind", "proposed"}, {"provenance.origin", "s"}}},
	{"event", "event the-drowning during the-salt-years proposed s\n", "event the-drowning during the-salt-years proposed s",
		[][2]string{{"id", "the-drowning"}, {"era", "the-salt-years"}, {"provenance", "proposed s"},
			{"provenance.kind", "proposed"}, {"provenance.origin", "s"}}},
	{"before", "before(the-drowning, the-reclaiming)\n  proposed s\n", "before(the-drowning, the-reclaiming)\n  proposed s",
		[][2]string{{"earlier", "the-drowning"}, {"later", "the-reclaiming"}, {"provenance", "proposed s"},
			{"provenance.kind", "proposed"}, {"provenance.origin", "s"}}},
	{"question", "question q \"Where?\"\n  option a \"A\"\n  # inside\n  option b \"B\" implies at(q, \"the mill\")\n",
		"question q \"Where?\"\n  option a \"A\"\n  # inside\n  option b \"B\" implies at(q, \"the mill\")",
		[][2]string{{"id", "q"}, {"prompt", `"Where?"`}, {"options[0]", `option a "A"`}, {"options[0].id", "a"},
			{"options[0].label", `"A"`}, {"options[1]", `option b "B" implies at(q, "the mill")`}, {"options[1].id", "b"},
			{"options[1].label", `"B"`}, {"options[1].implies", `at(q, "the mill")`}, {"options[1].implies.pred", "at"},
			{"options[1].implies.args[0]", "q"}, {"options[1].implies.args[1]", `"the mill"`}}},
	{"hypothesis", "hypothesis coast \"The coast runs north.\"\n", "hypothesis coast \"The coast runs north.\"",
		[][2]string{{"id", "coast"}, {"statement", `"The coast runs north."`}}},
	{"rule", "rule kin: kin(X, ?y) :- serves(X, ?y), not foe(?y, \"the warden\")\n  proposed s\n",
		"rule kin: kin(X, ?y) :- serves(X, ?y), not foe(?y, \"the warden\")\n  proposed s",
		[][2]string{{"name", "kin"}, {"head", "kin(X, ?y)"}, {"head.pred", "kin"}, {"head.args[0]", "X"}, {"head.args[1]", "?y"},
			{"body[0]", "serves(X, ?y)"}, {"body[0].atom", "serves(X, ?y)"}, {"body[0].atom.pred", "serves"},
			{"body[0].atom.args[0]", "X"}, {"body[0].atom.args[1]", "?y"}, {"body[1]", `not foe(?y, "the warden")`},
			{"body[1].atom", `foe(?y, "the warden")`}, {"body[1].atom.pred", "foe"}, {"body[1].atom.args[0]", "?y"},
			{"body[1].atom.args[1]", `"the warden"`}, {"provenance", "proposed s"}, {"provenance.kind", "proposed"},
			{"provenance.origin", "s"}}},
	{"functional", "functional tongue proposed s\n", "functional tongue proposed s",
		[][2]string{{"pred", "tongue"}, {"provenance", "proposed s"}, {"provenance.kind", "proposed"}, {"provenance.origin", "s"}}},
	{"inertial", "inertial mood\n\tproposed s\n", "inertial mood\n\tproposed s",
		[][2]string{{"pred", "mood"}, {"provenance", "proposed s"}, {"provenance.kind", "proposed"}, {"provenance.origin", "s"}}},
	{"same-as", "same-as(a, b) hypothesis h\n", "same-as(a, b) hypothesis h",
		[][2]string{{"left", "a"}, {"right", "b"}, {"provenance", "hypothesis h"}, {"provenance.kind", "hypothesis"},
			{"provenance.hyp", "h"}}},
	{"predicate-same-as", "predicate-same-as(serves, obeys) proposed s\n", "predicate-same-as(serves, obeys) proposed s",
		[][2]string{{"left", "serves"}, {"right", "obeys"}, {"provenance", "proposed s"}, {"provenance.kind", "proposed"},
			{"provenance.origin", "s"}}},
	{"state", "state m.mood = \"grim\" since e1 until e2 proposed s\n", "state m.mood = \"grim\" since e1 until e2 proposed s",
		[][2]string{{"entity", "m"}, {"key", "mood"}, {"value", `"grim"`}, {"since", "e1"}, {"until", "e2"},
			{"provenance", "proposed s"}, {"provenance.kind", "proposed"}, {"provenance.origin", "s"}}},
	{"decision", "decision dl-1 \"Because the tide rose.\"\n  cited dl-0 provisional\n",
		"decision dl-1 \"Because the tide rose.\"\n  cited dl-0 provisional",
		[][2]string{{"id", "dl-1"}, {"rationale", `"Because the tide rose."`}, {"provenance", "cited dl-0 provisional"},
			{"provenance.kind", "cited"}, {"provenance.decisions[0]", "dl-0"}, {"provenance.state", "provisional"}}},
	{"decision-bare", "decision dl-2\n", "decision dl-2", [][2]string{{"id", "dl-2"}}},
	{"attack", "attack dl-2 against dl-1 on " + hexA + "\n", "attack dl-2 against dl-1 on " + hexA,
		[][2]string{{"attacker", "dl-2"}, {"target", "dl-1"}, {"claim", hexA}}},
	{"standing", "standing " + hexA + " defeated by dl-2\n", "standing " + hexA + " defeated by dl-2",
		[][2]string{{"claim", hexA}, {"standing", "defeated"}, {"decision", "dl-2"}}},
	{"ratify", "ratify dl-1\n  claim " + hexB + "\n  claim " + hexA + "\n", "ratify dl-1\n  claim " + hexB + "\n  claim " + hexA,
		[][2]string{{"decision", "dl-1"}, {"claims[0]", hexB}, {"claims[1]", hexA}}},
}

// TestSpanCasesCoverEveryType keeps the table above complete.
func TestSpanCasesCoverEveryType(t *testing.T) {
	seen := map[objects.Type]bool{}
	for _, tc := range spanCases {
		doc := mustParse(t, tc.name, []byte(tc.src))
		seen[doc.Decls[0].Object.Type()] = true
	}
	for _, typ := range objects.Types() {
		if !seen[typ] {
			t.Errorf("no span case for type %s", typ)
		}
	}
}

func TestSpans(t *testing.T) {
	for _, tc := range spanCases {
		t.Run(tc.name, func(t *testing.T) {
			src := spanPrefix + tc.src + "# after\n"
			doc := mustParse(t, tc.name, []byte(src))
			if len(doc.Decls) != 1 {
				t.Fatalf("%d decls, want 1", len(doc.Decls))
			}
			d := &doc.Decls[0]
			checkSpan(t, src, "decl", d.Span(), tc.decl)
			if s, ok := d.Find(""); !ok || s != d.Span() {
				t.Errorf(`Find("") = %v %v, want the declaration's span %v`, s, ok, d.Span())
			}
			var paths []string
			for _, p := range d.Parts() {
				paths = append(paths, p.Path)
			}
			var want []string
			for _, p := range tc.parts {
				want = append(want, p[0])
				s, ok := d.Find(p[0])
				if !ok {
					t.Errorf("Find(%q): not found", p[0])
					continue
				}
				checkSpan(t, src, p[0], s, p[1])
			}
			if !slices.Equal(paths, want) {
				t.Errorf("Parts:\n got %q\nwant %q", paths, want)
			}
			if _, ok := d.Find("nosuch"); ok {
				t.Error(`Find("nosuch") found a part`)
			}
		})
	}
}

// TestFindTermSuffix checks that the FieldError path of a term's var or
// const finds the term.
func TestFindTermSuffix(t *testing.T) {
	src := "rule r: h(X) :- b(X, \"c\")\n  proposed s\n"
	d := &mustParse(t, "suffix.dli", []byte(src)).Decls[0]
	for path, want := range map[string]string{"head.args[0].var": "X", "body[0].atom.args[1].const": `"c"`} {
		s, ok := d.Find(path)
		if !ok {
			t.Errorf("Find(%q): not found", path)
			continue
		}
		checkSpan(t, src, path, s, want)
	}
}

// TestSpansOfLines checks the header, the scope line, and comments above,
// inside and after declarations.
func TestSpansOfLines(t *testing.T) {
	src := spanPrefix + "person a \"Ä\" proposed s\nquestion q \"Q\"\n  #   inside, ünïcode \t\n  option o \"O\"\n# trailing\n"
	doc := mustParse(t, "lines.dli", []byte(src))
	checkSpan(t, src, "header", doc.HeaderSpan, "# grammar: v0")
	checkSpan(t, src, "scope line", doc.ScopeSpan, "scope camelot")
	checkSpan(t, src, "scope id", doc.ScopeIDSpan, "camelot")
	if len(doc.Decls) != 2 || len(doc.Decls[0].Comments) != 1 || len(doc.Decls[1].Comments) != 1 || len(doc.Trailing) != 1 {
		t.Fatalf("unexpected structure: %+v", doc)
	}
	checkSpan(t, src, "comment above", doc.Decls[0].Comments[0].Span(), "# über alles")
	checkSpan(t, src, "comment inside", doc.Decls[1].Comments[0].Span(), "#   inside, ünïcode")
	checkSpan(t, src, "trailing comment", doc.Trailing[0].Span(), "# trailing")
	checkSpan(t, src, "question", doc.Decls[1].Span(), "question q \"Q\"\n  #   inside, ünïcode \t\n  option o \"O\"")
}

// TestSpansOfHandBuiltDecl checks that a Decl not made by Parse has no
// spans rather than wrong ones.
func TestSpansOfHandBuiltDecl(t *testing.T) {
	d := Decl{Object: &objects.Hypothesis{Ident: "h", Statement: "S"}}
	if d.Span().IsValid() || d.Parts() != nil || (Comment{Text: "x"}).Span().IsValid() {
		t.Error("a hand-built Decl or Comment has a span")
	}
	if _, ok := d.Find("id"); ok {
		t.Error("Find found a part of a hand-built Decl")
	}
}

// TestSpansOfChangedObject checks that a declaration whose object gained
// a part after the parse names no parts rather than wrong ones, and keeps
// its own span.
func TestSpansOfChangedObject(t *testing.T) {
	src := "question q \"Q\"\n  option a \"A\"\n"
	d := &mustParse(t, "changed.dli", []byte(src)).Decls[0]
	q := d.Object.(*objects.Question)
	q.Options = append(q.Options, objects.Option{Ident: "b", Label: "B"})
	if _, ok := d.Find("options[1].id"); ok {
		t.Error("Find found a part added after the parse")
	}
	if _, ok := d.Find("id"); ok {
		t.Error("Find trusted offsets recorded for another shape of the object")
	}
	if d.Parts() != nil {
		t.Error("Parts listed the parts of a changed object")
	}
	checkSpan(t, src, "decl", d.Span(), "question q \"Q\"\n  option a \"A\"")
}

// checkSpan checks that s slices src to want and that its line:col
// agree with its offsets.
func checkSpan(t *testing.T, src, what string, s Span, want string) {
	t.Helper()
	if !s.IsValid() || s.StartOffset < 0 || s.StartOffset > s.EndOffset || s.EndOffset > len(src) {
		t.Errorf("%s: span %v [%d, %d) is not in the source", what, s, s.StartOffset, s.EndOffset)
		return
	}
	if got := src[s.StartOffset:s.EndOffset]; got != want {
		t.Errorf("%s: span slices %q, want %q", what, got, want)
	}
	if p := posAt(src, s.StartOffset); p != s.Start {
		t.Errorf("%s: start %v, but offset %d is at %v", what, s.Start, s.StartOffset, p)
	}
	if p := posAt(src, s.EndOffset); p != s.End {
		t.Errorf("%s: end %v, but offset %d is at %v", what, s.End, s.EndOffset, p)
	}
}

// posAt is the position of byte offset off in src, counted from the start
// of the source: the reference the lazily computed positions must match.
func posAt(src string, off int) Pos {
	before := src[:off]
	line := 1 + strings.Count(before, "\n")
	start := strings.LastIndexByte(before, '\n') + 1
	if line == 1 && strings.HasPrefix(src, "\uFEFF") {
		start = len("\uFEFF")
	}
	return Pos{Line: line, Col: 1 + utf8.RuneCountInString(src[start:off])}
}
