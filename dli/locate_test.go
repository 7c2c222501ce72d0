// This file holds the Locator tests: placing what cites object ids at the
// first cited declaration of a document, or at the part a path names.

package dli

import (
	"strings"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

func TestLocator(t *testing.T) {
	src := "scope camelot\n" +
		"person mireth \"Mireth\"   proposed  s\n" +
		"serves(mireth, the-warden)     proposed  s\n" +
		"mireth.tongue = low-saltish     proposed  s\n" +
		"person mireth \"Mireth\"   proposed  s\n"
	doc := mustParse(t, "locate.dli", []byte(src))
	id := func(i int) string {
		t.Helper()
		x, err := doc.Decls[i].Object.ID()
		if err != nil {
			t.Fatal(err)
		}
		return x.String()
	}
	other := (&objects.Hypothesis{Ident: "h", Statement: "Not in the file."})
	otherID, err := other.ID()
	if err != nil {
		t.Fatal(err)
	}
	l := NewLocator(doc)
	for _, tc := range []struct {
		name string
		ids  []string
		path string
		want string // the text the span slices; "" for not found
		line int    // the line it starts on
	}{
		{"one declaration", []string{id(1)}, "", "serves(mireth, the-warden)     proposed  s", 3},
		{"the first in the file wins", []string{id(2), id(1)}, "", "serves(mireth, the-warden)     proposed  s", 3},
		{"a part", []string{id(2), id(1)}, "to", "the-warden", 3},
		{"a part the first cited has not", []string{id(2)}, "to", "mireth.tongue = low-saltish     proposed  s", 4},
		{"a repeated object is at its first declaration", []string{id(3)}, "name", `"Mireth"`, 2},
		{"not in the file", []string{otherID.String()}, "", "", 0},
		{"not an id", []string{"mireth", "", strings.Repeat("z", 64)}, "", "", 0},
		{"not an id beside one", []string{"mireth", id(2)}, "key", "tongue", 4},
		{"no citations", nil, "", "", 0},
	} {
		s, ok := l.Place(tc.ids, tc.path)
		if tc.want == "" {
			if ok {
				t.Errorf("%s: placed at %v, want not found", tc.name, s)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: not found", tc.name)
			continue
		}
		checkSpan(t, src, tc.name, s, tc.want)
		if s.Start.Line != tc.line {
			t.Errorf("%s: placed on line %d, want %d", tc.name, s.Start.Line, tc.line)
		}
	}
	if d, ok := l.Decl(id(2)); !ok || d != &doc.Decls[2] {
		t.Errorf("Decl(%s) = %v %v, want decl 2", id(2), d, ok)
	}
	if _, ok := l.Decl(otherID.String()); ok {
		t.Error("Decl found an object the file does not declare")
	}
}

func TestLocatorDeclared(t *testing.T) {
	src := "scope camelot\n" +
		"person mireth \"Mireth\"   proposed  s\n" +
		"rule r1: h(X, Y) :- p(X)\n  proposed s\n" +
		"functional h proposed s\n" +
		"place mireth \"Mireth's Rest\"   proposed  s\n" +
		"rule r1: h(X) :- p(X)\n  proposed s\n" +
		"decision dl-1\n"
	doc := mustParse(t, "declared.dli", []byte(src))
	l := NewLocator(doc)
	for _, tc := range []struct {
		typ   objects.Type
		ident string
		want  int // the declaration, -1 for none
	}{
		{objects.TypeRule, "r1", 1},
		{objects.TypeEntity, "mireth", 0},
		{objects.TypeFunctional, "h", 2},
		{objects.TypeDecision, "dl-1", 5},
		{objects.TypeRule, "mireth", -1},
		{objects.TypeInertial, "h", -1},
		{objects.TypeFact, "mireth", -1},
	} {
		d, ok := l.Declared(tc.typ, tc.ident)
		switch {
		case tc.want < 0 && ok:
			t.Errorf("Declared(%s, %s) = line %d, want none", tc.typ, tc.ident, d.Pos.Line)
		case tc.want >= 0 && (!ok || d != &doc.Decls[tc.want]):
			t.Errorf("Declared(%s, %s) = %v %v, want decl %d", tc.typ, tc.ident, d, ok, tc.want)
		}
	}
}
