// This file holds test helpers: a tiny parser for rules written as text
// ("path(X, Z) :- path(X, Y), edge(Y, Z), not cut(Z)"; a term starting with
// an upper-case letter is a variable) and program builders.

package datalog

import (
	"strings"
	"testing"
	"unicode"
)

// parseAtom parses "pred(a, X)"; "pred" alone has no arguments.
func parseAtom(s string) Atom {
	s = strings.TrimSpace(s)
	name, rest, ok := strings.Cut(s, "(")
	a := Atom{Pred: strings.TrimSpace(name)}
	if !ok {
		return a
	}
	rest = strings.TrimSuffix(strings.TrimSpace(rest), ")")
	if strings.TrimSpace(rest) == "" {
		return a
	}
	for _, t := range strings.Split(rest, ",") {
		t = strings.TrimSpace(t)
		if t != "" && (unicode.IsUpper(rune(t[0])) || t == "_") {
			a.Args = append(a.Args, V(t))
		} else {
			a.Args = append(a.Args, C(t))
		}
	}
	return a
}

// splitTop splits on commas outside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// parseCmp parses a comparison "X < n:3" (operators ==, !=, <, <=, >, >=
// between spaces).
func parseCmp(s string) (Literal, bool) {
	for _, op := range []CmpOp{CmpLe, CmpGe, CmpNe, CmpEq, CmpLt, CmpGt} {
		if x, y, ok := strings.Cut(s, " "+op.String()+" "); ok {
			a := parseAtom("c(" + x + ", " + y + ")")
			return Cmp(op, a.Args[0], a.Args[1]), true
		}
	}
	return Literal{}, false
}

// parseRule parses "head :- lit, not lit, X < Y" with the given support.
func parseRule(name, text string, support Poly) Rule {
	head, body, _ := strings.Cut(text, ":-")
	r := Rule{Name: name, Head: parseAtom(head), Support: support}
	if strings.TrimSpace(body) == "" {
		return r
	}
	for _, l := range splitTop(body) {
		l = strings.TrimSpace(l)
		if c, ok := parseCmp(l); ok {
			r.Body = append(r.Body, c)
			continue
		}
		neg := strings.HasPrefix(l, "not ")
		r.Body = append(r.Body, Literal{Atom: parseAtom(strings.TrimPrefix(l, "not ")), Negated: neg})
	}
	return r
}

// build makes a program from facts ("edge(a, b)" → support) and rules.
type tfact struct {
	atom string
	sup  Poly
}

type trule struct {
	name, text string
	sup        Poly
}

func build(t testing.TB, facts []tfact, rules []trule) *Program {
	t.Helper()
	p := NewProgram()
	for _, f := range facts {
		a := parseAtom(f.atom)
		args := make([]string, len(a.Args))
		for i, x := range a.Args {
			args[i] = x.Const + x.Var
		}
		if err := p.AddFact(a.Pred, args, f.sup); err != nil {
			t.Fatalf("AddFact %s: %v", f.atom, err)
		}
	}
	for _, r := range rules {
		sup := r.sup
		if sup.IsZero() {
			sup = One()
		}
		if err := p.AddRule(parseRule(r.name, r.text, sup)); err != nil {
			t.Fatalf("AddRule %s: %v", r.name, err)
		}
	}
	return p
}

func evalOK(t testing.TB, p *Program) *Model {
	t.Helper()
	m, err := p.Eval()
	if err != nil {
		t.Fatalf("Eval: %v", err)
	}
	return m
}

var tcRules = []trule{
	{"base", "path(X, Y) :- edge(X, Y)", Poly{}},
	{"step", "path(X, Z) :- path(X, Y), edge(Y, Z)", Poly{}},
}

func P(monos ...[]string) Poly { return NewPoly(monos...) }

func M(lits ...string) []string { return lits }

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
