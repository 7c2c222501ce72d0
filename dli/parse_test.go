// This file holds the parser tests on document structure: the header,
// where comments and blank lines attach, positions, line endings, and the
// places where a keyword is an ordinary id.

package dli

import (
	"testing"

	"github.com/deloreis/deloreis/objects"
)

func TestParseStructure(t *testing.T) {
	src := "\uFEFF\n# grammar: v0 anything after the version\r\n" +
		"# lead\r\n" +
		"\n" +
		"scope camelot\n" +
		"# above a\n" +
		"\n" +
		"\n" +
		"person a \"A\"  proposed  s\n" +
		"question q \"Q?\"\n" +
		"  # inside q\n" +
		"\n" +
		"  option o \"O\"\n" +
		"# above b\n" +
		"x.y = z\n" +
		"    hypothesis h\n" +
		"\n" +
		"  # trailing, indented\n"
	doc := mustParse(t, "structure.dli", []byte(src))
	if doc.Grammar != "v0" || doc.HeaderPos != (Pos{2, 1}) {
		t.Errorf("header: %q at %v", doc.Grammar, doc.HeaderPos)
	}
	if len(doc.Leading) != 1 || doc.Leading[0].Text != " lead" || doc.Leading[0].Pos != (Pos{3, 1}) || doc.Leading[0].Blank {
		t.Errorf("leading: %+v", doc.Leading)
	}
	if doc.Scope != "camelot" || doc.ScopePos != (Pos{5, 1}) || !doc.ScopeBlank {
		t.Errorf("scope: %q at %v blank %v", doc.Scope, doc.ScopePos, doc.ScopeBlank)
	}
	if len(doc.Decls) != 3 {
		t.Fatalf("%d decls, want 3", len(doc.Decls))
	}
	a, q, f := doc.Decls[0], doc.Decls[1], doc.Decls[2]
	if a.Pos != (Pos{9, 1}) || !a.Blank || len(a.Comments) != 1 || a.Comments[0].Text != " above a" || a.Comments[0].Blank {
		t.Errorf("decl a: %+v", a)
	}
	if q.Pos != (Pos{10, 1}) || q.Blank || len(q.Comments) != 1 || q.Comments[0].Text != " inside q" || q.Comments[0].Pos != (Pos{11, 3}) {
		t.Errorf("decl q: %+v", q)
	}
	if f.Pos != (Pos{15, 1}) || len(f.Comments) != 1 || f.Comments[0].Text != " above b" {
		t.Errorf("decl f: %+v", f)
	}
	if fact := f.Object.(*objects.Fact); fact.Provenance.Kind != objects.ProvenanceHypothesis || fact.Provenance.Hyp != "h" {
		t.Errorf("fact provenance from the indented line: %+v", fact.Provenance)
	}
	if len(doc.Trailing) != 1 || doc.Trailing[0].Text != " trailing, indented" || !doc.Trailing[0].Blank {
		t.Errorf("trailing: %+v", doc.Trailing)
	}
	want := "# grammar: v0 (unfrozen; AST normative)\n# lead\n\nscope camelot\n# above a\n\n" +
		"person a \"A\"               proposed  s\n# inside q\nquestion q \"Q?\"\n  option o \"O\"\n" +
		"# above b\nx.y = z     hypothesis  h\n\n# trailing, indented\n"
	if got := string(Format(doc)); got != want {
		t.Errorf("Format:\n%s\nwant\n%s", got, want)
	}
}

// TestParseKeywordsAsIDs checks that declaration words are ordinary ids
// wherever the grammar expects an id or a value.
func TestParseKeywordsAsIDs(t *testing.T) {
	cases := []struct {
		src  string
		want objects.Object
	}{
		{"event.date = during     proposed  proposed\n", &objects.Fact{Entity: "event", Key: "date", Value: "during", Provenance: objects.Proposed("proposed")}},
		{"scope(rule, person)     proposed  s\n", &objects.Relation{Relation: "scope", From: "rule", To: "person", Provenance: objects.Proposed("s")}},
		{"relation(a, b)     proposed  s\n", &objects.Relation{Relation: "relation", From: "a", To: "b", Provenance: objects.Proposed("s")}},
		{"relation before(a, b)     proposed  s\n", &objects.Relation{Relation: "before", From: "a", To: "b", Provenance: objects.Proposed("s")}},
		{"person proposed \"P\"        cited  ratified, cited provisional\n",
			&objects.Entity{Kind: "person", Ident: "proposed", Name: "P", Provenance: objects.Cited(objects.CitedProvisional, "cited", "ratified")}},
		{"event during during until proposed since\n", &objects.Event{Ident: "during", Era: "until", Provenance: objects.Proposed("since")}},
		{"state since.until = since since until until since proposed s\n",
			&objects.State{Entity: "since", Key: "until", Value: "since", Since: "until", Until: "since", Provenance: objects.Proposed("s")}},
		{"rule not: not(X) :- not not(X), not(?y)\n  proposed s\n", &objects.Rule{Name: "not",
			Head:       atom("not", objects.Var("X")),
			Body:       []objects.Literal{{Atom: atom("not", objects.Var("X")), Negated: true}, {Atom: atom("not", objects.Var("y"))}},
			Provenance: objects.Proposed("s")}},
		{"hypothesis hypothesis \"H\"\n", &objects.Hypothesis{Ident: "hypothesis", Statement: "H"}},
	}
	for _, tc := range cases {
		doc := mustParse(t, "kw.dli", []byte(tc.src))
		if len(doc.Decls) != 1 {
			t.Errorf("%q: %d decls", tc.src, len(doc.Decls))
			continue
		}
		assertSameObject(t, tc.src, doc.Decls[0].Object, tc.want)
	}
}

// TestParseProvenancePlacement checks that a provenance is read at the end
// of the line or on the indented line below, for every kind that takes one.
func TestParseProvenancePlacement(t *testing.T) {
	heads := []string{
		`person a "A"`, `x.y = z`, `r(a, b)`, `event e during era`, `before(a, b)`, `rule r: h(X) :- b(X)`,
		`functional p`, `inertial p`, `same-as(a, b)`, `predicate-same-as(p, q)`, `state x.y = z since e`, `decision d "D"`,
	}
	for _, h := range heads {
		one := mustParse(t, "inline.dli", []byte(h+" cited d1, d2 provisional\n"))
		two := mustParse(t, "below.dli", []byte(h+"\n\t cited d2, d1, d1 provisional\n"))
		if d := sameDoc(one, two); d != "" {
			t.Errorf("%s: %s", h, d)
		}
		if string(Format(one)) != string(Format(two)) {
			t.Errorf("%s: the two placements format differently", h)
		}
	}
}

// TestParseSharesProvenance checks that declarations with equal
// provenances hold one pointer and different ones do not (DL-0352).
func TestParseSharesProvenance(t *testing.T) {
	src := "person a \"A\" proposed s1\n" +
		"person b \"B\" proposed s1\n" +
		"a.k = v proposed s1\n" +
		"decision d \"D\" proposed s1\n" +
		"b.k = v proposed s2\n" +
		"a.j = v cited d1, d2 ratified\n" +
		"b.j = v\n\tcited d1, d2 ratified\n" +
		"a.m = v cited d1, d2 provisional\n" +
		"b.m = v hypothesis h1\n" +
		"rule r: h(X) :- b(X) hypothesis h1\n"
	doc := mustParse(t, "share.dli", []byte(src))
	var got []*objects.Provenance
	for _, d := range doc.Decls {
		p, ok := objects.ProvenanceOf(d.Object)
		if x, dec := d.Object.(*objects.Decision); dec {
			p, ok = x.Provenance, true
		}
		if !ok || p == nil {
			t.Fatalf("%T has no provenance", d.Object)
		}
		got = append(got, p)
	}
	groups := []int{0, 0, 0, 0, 1, 2, 2, 3, 4, 4} // declarations by the provenance they share
	if len(got) != len(groups) {
		t.Fatalf("parsed %d declarations, want %d", len(got), len(groups))
	}
	for i := range got {
		for j := range got {
			if (got[i] == got[j]) != (groups[i] == groups[j]) {
				t.Errorf("declarations %d and %d: shared %v, want %v (%+v, %+v)", i, j, got[i] == got[j], groups[i] == groups[j], got[i], got[j])
			}
		}
	}
}
