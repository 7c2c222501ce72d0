// This file holds the formatter tests: one case per row of the spacing
// table in docs/dli-grammar.md (including the cases the spec leaves open),
// the symbol-or-string rule, sets, purity, and invalid objects.

package dli

import (
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

var (
	prop  = objects.Proposed("session-7c9")
	hyp   = objects.Hypothetical("coast-runs-north")
	cited = objects.Cited(objects.CitedRatified, "dl-2", "dl-1", "dl-2")
)

func TestRenderSpacing(t *testing.T) {
	long := strings.Repeat("x", 30)
	cases := []struct {
		name string
		obj  objects.Object
		want []string
	}{
		// Entities: provenance at 0-based column 27, at least two spaces.
		{"entity 24 chars", ent("person", "galahad", "Galahad", prop), []string{`person galahad "Galahad"   proposed  session-7c9`}},
		{"entity 21 chars", ent("place", "logres", "Logres", prop), []string{`place logres "Logres"      proposed  session-7c9`}},
		{"entity 25 chars", ent("person", "galahad", "Galahadx", prop), []string{`person galahad "Galahadx"  proposed  session-7c9`}},
		{"entity 26 chars", ent("person", "galahad", "Galahadxx", prop), []string{`person galahad "Galahadxx"  proposed  session-7c9`}},
		{"entity long", ent("thing", "the-grail", long, prop), []string{`thing the-grail "` + long + `"  proposed  session-7c9`}},
		{"entity columns count characters", ent("person", "ñandú", "Ñandú", prop), []string{`person ñandú "Ñandú"       proposed  session-7c9`}},
		{"entity hypothesis", ent("era", "e", "E", hyp), []string{`era e "E"                  hypothesis  coast-runs-north`}},
		{"entity cited", ent("era", "e", "E", cited), []string{`era e "E"                  cited  dl-1, dl-2 ratified`}},
		// Facts and relations: five spaces, tabular provenance.
		{"fact", &objects.Fact{Entity: "mireth", Key: "tongue", Value: "low-saltish", Provenance: prop},
			[]string{`mireth.tongue = low-saltish     proposed  session-7c9`}},
		{"fact quoted value", &objects.Fact{Entity: "m", Key: "k", Value: "warden of the weir", Provenance: hyp},
			[]string{`m.k = "warden of the weir"     hypothesis  coast-runs-north`}},
		{"relation", &objects.Relation{Relation: "serves", From: "mireth", To: "the-warden", Provenance: cited},
			[]string{`serves(mireth, the-warden)     cited  dl-1, dl-2 ratified`}},
		{"relation named before", &objects.Relation{Relation: "before", From: "a", To: "b", Provenance: prop},
			[]string{`relation before(a, b)     proposed  session-7c9`}},
		{"relation named same-as", &objects.Relation{Relation: "same-as", From: "a", To: "b", Provenance: prop},
			[]string{`relation same-as(a, b)     proposed  session-7c9`}},
		{"relation named person", &objects.Relation{Relation: "person", From: "a", To: "b", Provenance: prop},
			[]string{`person(a, b)     proposed  session-7c9`}},
		// Prose lines: single spaces.
		{"event", &objects.Event{Ident: "the-drowning", Era: "the-salt-years", Provenance: cited},
			[]string{`event the-drowning during the-salt-years cited dl-1, dl-2 ratified`}},
		{"functional", &objects.Functional{Pred: "tongue", Provenance: prop}, []string{`functional tongue proposed session-7c9`}},
		{"inertial", &objects.Inertial{Pred: "holds-office", Provenance: hyp}, []string{`inertial holds-office hypothesis coast-runs-north`}},
		{"state bare", &objects.State{Entity: "m", Key: "mood", Value: "grim", Provenance: prop},
			[]string{`state m.mood = grim proposed session-7c9`}},
		{"state anchored", &objects.State{Entity: "m", Key: "office", Value: "warden of the weir", Since: "a", Until: "b", Provenance: prop},
			[]string{`state m.office = "warden of the weir" since a until b proposed session-7c9`}},
		{"state until only", &objects.State{Entity: "m", Key: "k", Value: "v", Until: "b", Provenance: prop},
			[]string{`state m.k = v until b proposed session-7c9`}},
		{"decision bare", &objects.Decision{Ident: "dl-1"}, []string{`decision dl-1`}},
		{"decision full", &objects.Decision{Ident: "dl-1", Rationale: "Because.", Provenance: cited},
			[]string{`decision dl-1 "Because." cited dl-1, dl-2 ratified`}},
		{"decision provenance only", &objects.Decision{Ident: "dl-1", Provenance: prop}, []string{`decision dl-1 proposed session-7c9`}},
		{"attack", &objects.Attack{Attacker: "dl-9", Target: "dl-1", Claim: idOf(0xab)},
			[]string{`attack dl-9 against dl-1 on ` + strings.Repeat("ab", 32)}},
		{"standing", &objects.Standing{Claim: idOf(0x01), Standing: objects.StandingDefeated, Decision: "dl-9"},
			[]string{`standing ` + strings.Repeat("01", 32) + ` defeated by dl-9`}},
		{"hypothesis", &objects.Hypothesis{Ident: "coast-runs-north", Statement: "The coast runs north."},
			[]string{`hypothesis coast-runs-north "The coast runs north."`}},
		// Provenance on an indented line of its own.
		{"before", &objects.Before{Earlier: "a", Later: "b", Provenance: hyp}, []string{`before(a, b)`, `  hypothesis coast-runs-north`}},
		{"same-as", &objects.SameAs{Left: "a", Right: "b", Provenance: prop}, []string{`same-as(a, b)`, `  proposed session-7c9`}},
		{"predicate-same-as", &objects.PredicateSameAs{Left: "a", Right: "b", Provenance: cited},
			[]string{`predicate-same-as(a, b)`, `  cited dl-1, dl-2 ratified`}},
		{"rule", &objects.Rule{Name: "r", Head: atom("kin", objects.Var("X"), objects.Var("y")),
			Body: []objects.Literal{{Atom: atom("p", objects.Const("X"), objects.Const("a b"), objects.Const("c"))},
				{Atom: atom("q"), Negated: true}}, Provenance: prop},
			[]string{`rule r: kin(X, ?y) :- p("X", "a b", c), not q()`, `  proposed session-7c9`}},
		// Indented part lines.
		{"question", &objects.Question{Ident: "q", Prompt: "Q?", Options: []objects.Option{
			{Ident: "a", Label: "A", Implies: &objects.GroundAtom{Pred: "p", Args: []string{"x", "Two words", "Upper"}}},
			{Ident: "b", Label: "B", Implies: &objects.GroundAtom{Pred: "flag"}}}},
			[]string{`question q "Q?"`, `  option a "A" implies p(x, "Two words", Upper)`, `  option b "B" implies flag()`}},
		{"ratify", &objects.Ratify{Decision: "dl-1", Claims: []objects.ID{idOf(0xab), idOf(0x01), idOf(0xab)}},
			[]string{`ratify dl-1`, `  claim ` + strings.Repeat("01", 32), `  claim ` + strings.Repeat("ab", 32)}},
	}
	for _, tc := range cases {
		got := RenderDecl(tc.obj)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
			continue
		}
		doc := mustParse(t, tc.name, []byte(joinLines(got)))
		assertSameObject(t, tc.name, doc.Decls[0].Object, tc.obj)
	}
}

// ent returns an entity.
func ent(kind, id, name string, p *objects.Provenance) *objects.Entity {
	return &objects.Entity{Kind: objects.EntityKind(kind), Ident: id, Name: name, Provenance: p}
}

// atom returns a rule atom.
func atom(pred string, args ...objects.Term) objects.Atom {
	return objects.Atom{Pred: pred, Args: args}
}

// idOf returns an object id whose bytes are all b.
func idOf(b byte) objects.ID {
	var id objects.ID
	for i := range id {
		id[i] = b
	}
	return id
}

func TestSymbolOrString(t *testing.T) {
	cases := map[string]string{
		"low-saltish": `low-saltish`,
		"Ωmega_2":     `Ωmega_2`,
		"proposed":    `proposed`,
		"7c9":         `7c9`,
		"3.5":         `"3.5"`,
		"two words":   `"two words"`,
		"-x":          `"-x"`,
		"a:b":         `"a:b"`,
		"say \"hi\"":  `"say \"hi\""`,
		`C:\marsh`:    `"C:\\marsh"`,
		"#":           `"#"`,
		"e\u0301":     `e` + "\u0301",
		"\u0301e":     `"` + "\u0301" + `e"`,
	}
	for in, want := range cases {
		if got := string(appendSym(nil, in)); got != want {
			t.Errorf("appendSym(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestSymbolIsID checks the parser's quick id test against objects.ValidID
// on every symbol the scanner can make from a sample of characters.
func TestSymbolIsID(t *testing.T) {
	g := newGen(4)
	runes := []rune("aZ09-_éΩ日\u0301\u0308٣")
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := g.r.IntN(6); n >= 0; n-- {
			b.WriteRune(pickOf(g, runes))
		}
		s := b.String()
		if i%500 == 0 {
			s = strings.Repeat("a", 120+g.r.IntN(20))
		}
		if symbolIsID(s) != objects.ValidID(s) {
			t.Fatalf("symbolIsID(%q) = %v, ValidID = %v", s, symbolIsID(s), objects.ValidID(s))
		}
	}
}

// TestFormatIsPure checks that formatting leaves the AST as it was: the
// cited decisions and ratified claims are sorted in a copy.
func TestFormatIsPure(t *testing.T) {
	f := &objects.Fact{Entity: "m", Key: "k", Value: "v", Provenance: objects.Cited(objects.CitedProvisional, "z", "a", "z")}
	r := &objects.Ratify{Decision: "d", Claims: []objects.ID{idOf(2), idOf(1)}}
	doc := &Document{Decls: []Decl{{Object: f}, {Object: r}}}
	a := Format(doc)
	b := Format(doc)
	if string(a) != string(b) {
		t.Errorf("two Formats differ:\n%s\n%s", a, b)
	}
	if !slices.Equal(f.Provenance.Decisions, []string{"z", "a", "z"}) || r.Claims[0] != idOf(2) {
		t.Errorf("Format changed the AST: %v %v", f.Provenance.Decisions, r.Claims)
	}
}

func TestFormatDocumentParts(t *testing.T) {
	doc := &Document{
		Grammar:  "v7",
		Leading:  []Comment{{Text: " lead  \t"}},
		Scope:    "s",
		Decls:    []Decl{{Object: nil}, {Object: &objects.Decision{Ident: "d"}, Blank: true, Comments: []Comment{{Text: "c\nd", Blank: true}}}},
		Trailing: []Comment{{Text: "", Blank: true}},
	}
	want := "# grammar: v7\n# lead\nscope s\n\n#c\uFFFDd\n\ndecision d\n\n#\n"
	if got := string(Format(doc)); got != want {
		t.Errorf("Format:\n%q\nwant\n%q", got, want)
	}
	if got := string(Format(&Document{Decls: []Decl{{Object: &objects.Decision{Ident: "d"}, Blank: true}}})); got != "decision d\n" {
		t.Errorf("a blank line opened the file: %q", got)
	}
}

// TestRenderInvalid checks that invalid objects render without panicking,
// as one line per part with no control characters.
func TestRenderInvalid(t *testing.T) {
	objs := []objects.Object{
		&objects.Entity{},
		&objects.Entity{Kind: "person", Ident: "a\nb", Name: "x\x00y\u0085z\xff", Provenance: &objects.Provenance{Kind: "bogus"}},
		&objects.Fact{Provenance: objects.Cited("", "")},
		&objects.Rule{},
		&objects.Rule{Head: atom("p", objects.Term{}, objects.Var("a b"), objects.Var("-x"))},
		&objects.Question{Options: []objects.Option{{Implies: &objects.GroundAtom{Args: []string{""}}}}},
		&objects.Decision{Provenance: &objects.Provenance{}},
		&objects.Ratify{}, &objects.Standing{}, &objects.Attack{}, &objects.State{}, &objects.SameAs{},
		nil,
	}
	for _, o := range objs {
		for _, line := range RenderDecl(o) {
			for _, r := range line {
				if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
					t.Errorf("RenderDecl(%#v) wrote control character %U in %q", o, r, line)
				}
			}
		}
	}
	if got := RenderDecl(nil); len(got) != 0 {
		t.Errorf("RenderDecl(nil) = %q", got)
	}
	if got := RenderDecl(&objects.Entity{Ident: "a", Name: "x\ty", Kind: "person", Provenance: prop}); !strings.Contains(got[0], `"x`+"\uFFFD"+`y"`) {
		t.Errorf("control character not replaced: %q", got)
	}
}
