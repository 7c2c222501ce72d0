// This file holds hand-computed golden tests: polynomials through
// recursion, negation over possible supports, and the static checks.

package datalog

import (
	"errors"
	"reflect"
	"testing"
)

func TestRecursivePolynomials(t *testing.T) {
	// a→b (e1), b→c (e2), a→c (e3), c→a (e4): a cycle with a shortcut.
	m := evalOK(t, build(t, []tfact{
		{"edge(a, b)", VarPoly("e1")}, {"edge(b, c)", VarPoly("e2")},
		{"edge(a, c)", VarPoly("e3")}, {"edge(c, a)", VarPoly("e4")},
	}, tcRules))
	cases := []struct {
		from, to string
		want     [][]string
	}{
		{"a", "b", [][]string{{"e1"}}},
		{"a", "c", [][]string{{"e3"}, {"e1", "e2"}}},
		{"a", "a", [][]string{{"e3", "e4"}, {"e1", "e2", "e4"}}},
		{"c", "c", [][]string{{"e3", "e4"}, {"e1", "e2", "e4"}}},
		{"c", "b", [][]string{{"e1", "e4"}}},
		{"b", "a", [][]string{{"e2", "e4"}}},
		{"b", "b", [][]string{{"e1", "e2", "e4"}}},
		{"b", "c", [][]string{{"e2"}}},
	}
	for _, c := range cases {
		got := m.Support("path", c.from, c.to)
		if !reflect.DeepEqual(got.Monomials(), c.want) || got.Truncated() {
			t.Errorf("path(%s, %s) = %v, want %v", c.from, c.to, got, c.want)
		}
	}
	if n := m.Len("path"); n != 9 {
		t.Errorf("%d path atoms, want 9 (every pair)", n)
	}
}

func TestRuleSupportMultipliesThroughRecursion(t *testing.T) {
	m := evalOK(t, build(t, []tfact{
		{"edge(a, b)", VarPoly("e1")}, {"edge(b, c)", One()},
	}, []trule{
		{"base", "path(X, Y) :- edge(X, Y)", VarPoly("h:base")},
		{"step", "path(X, Z) :- path(X, Y), edge(Y, Z)", VarPoly("h:step")},
	}))
	want := [][]string{{"e1", "h:base", "h:step"}}
	if got := m.Support("path", "a", "c").Monomials(); !reflect.DeepEqual(got, want) {
		t.Errorf("path(a, c) = %v, want %v", got, want)
	}
	if got := m.Support("path", "b", "c").Monomials(); !reflect.DeepEqual(got, [][]string{{"h:base"}}) {
		t.Errorf("path(b, c) = %v, want {h:base}", got)
	}
}

func TestNegationWithPossibleSupports(t *testing.T) {
	m := evalOK(t, build(t, []tfact{
		{"cand(a)", One()}, {"cand(b)", One()}, {"cand(c)", VarPoly("d:c")}, {"cand(d)", One()},
		{"blocked(a)", VarPoly("h:1")}, // possible: the negation carries a literal
		{"blocked(d)", One()},          // unconditional: the negation fails outright
	}, []trule{
		{"open", "open(X) :- cand(X), not blocked(X)", Poly{}},
		{"shut", "shut(X) :- cand(X), not open(X)", Poly{}},
	}))
	supports := []struct {
		atom string
		want [][]string
	}{
		{"open(a)", [][]string{{"not blocked(a)"}}},
		{"open(b)", [][]string{{}}},
		{"open(c)", [][]string{{"d:c"}}},
		{"open(d)", [][]string{}},
		{"shut(a)", [][]string{{"not open(a)"}}},
		{"shut(b)", [][]string{}},
		{"shut(c)", [][]string{{"d:c", "not open(c)"}}},
		{"shut(d)", [][]string{{}}},
	}
	for _, s := range supports {
		a := parseAtom(s.atom)
		if got := m.Support(a.Pred, a.Args[0].Const).Monomials(); !reflect.DeepEqual(got, s.want) {
			t.Errorf("%s = %v, want %v", s.atom, got, s.want)
		}
	}
	grades := []struct {
		h1, dc     Truth
		openA      Grade
		shutA      Grade
		shutC      Grade
		shutCTruth Truth
	}{
		{True, True, Dead, Certain, Dead, False},
		{Unknown, True, Possible, Possible, Dead, False},
		{False, True, Certain, Dead, Dead, False},
		{False, Unknown, Certain, Dead, Possible, Unknown},
		{False, False, Certain, Dead, Dead, False},
	}
	for _, g := range grades {
		v := MapValuation{"h:1": g.h1, "d:c": g.dc}
		gr := m.Grader(v)
		if got := gr.Grade("open", "a"); got != g.openA {
			t.Errorf("h:1=%v: open(a) %v, want %v", g.h1, got, g.openA)
		}
		if got := gr.Grade("shut", "a"); got != g.shutA {
			t.Errorf("h:1=%v: shut(a) %v, want %v", g.h1, got, g.shutA)
		}
		if got := gr.Grade("shut", "c"); got != g.shutC {
			t.Errorf("d:c=%v: shut(c) %v, want %v", g.dc, got, g.shutC)
		}
		if got := m.Support("shut", "c").Eval(v); got != g.shutCTruth {
			t.Errorf("d:c=%v: Eval(shut(c)) %v, want %v", g.dc, got, g.shutCTruth)
		}
	}
	if got := m.Grade("open", []string{"d"}, MapValuation{}); got != Dead {
		t.Errorf("open(d) %v, want dead (not derived)", got)
	}
	w := m.Why("shut", []string{"a"}, MapValuation{"h:1": Unknown})
	if !reflect.DeepEqual(w.Blocked, []BlockedPath{{[]string{"not open(a)"}, []string{"not open(a)"}}}) {
		t.Errorf("Why(shut(a)).Blocked = %v", w.Blocked)
	}
}

func TestRuleErrors(t *testing.T) {
	cases := []struct {
		name    string
		facts   []tfact
		rules   []trule
		atAdd   bool // the error comes from AddRule, not Eval
		want    Error
		message string
	}{
		{name: "unbound head variable", rules: []trule{{"r", "p(X, Y) :- q(X)", Poly{}}}, atAdd: true,
			want:    Error{Code: CodeUnboundVariable, Rule: "r", Var: "Y"},
			message: "datalog: rule.unbound-variable: variable Y in the head of rule \"r\" is bound by no positive body atom; add a positive body atom that binds Y, or use a constant"},
		{name: "unbound negated variable", rules: []trule{{"r", "p(X) :- q(X), not s(X, Z)", Poly{}}}, atAdd: true,
			want:    Error{Code: CodeUnboundVariable, Rule: "r", Var: "Z"},
			message: "datalog: rule.unbound-variable: variable Z in the negated literal not s of rule \"r\" is bound by no positive body atom; add a positive body atom that binds Z, or use a constant"},
		{name: "variable bound only under negation", rules: []trule{{"r", "p(X) :- not q(X)", Poly{}}}, atAdd: true,
			want: Error{Code: CodeUnboundVariable, Rule: "r", Var: "X"}},
		{name: "arity mismatch against a fact", facts: []tfact{{"q(a, b)", One()}}, rules: []trule{{"r", "p(X) :- q(X)", Poly{}}}, atAdd: true,
			want:    Error{Code: CodeArityMismatch, Rule: "r", Pred: "q"},
			message: "datalog: rule.arity-mismatch: predicate \"q\" is used with 1 arguments here and 2 elsewhere; use one arity per predicate or rename one of the uses"},
		{name: "arity mismatch inside a rule", rules: []trule{{"r", "p(X) :- q(X), q(X, X)", Poly{}}}, atAdd: true,
			want: Error{Code: CodeArityMismatch, Rule: "r", Pred: "q"}},
		{name: "negation cycle of two", rules: []trule{{"r1", "p(X) :- d(X), not q(X)", Poly{}}, {"r2", "q(X) :- p(X)", Poly{}}},
			want:    Error{Code: CodeUnstratifiable, Rule: "r1", Pred: "p", Cycle: []string{"p", "q"}},
			message: "datalog: rule.unstratifiable: rule \"r1\" negates q, but p depends on itself through it (p -> q -> p); remove the negation or break the cycle"},
		{name: "negation cycle of three, rotated to the smallest name",
			rules: []trule{{"z1", "zeta(X) :- d(X), not beta(X)", Poly{}}, {"a1", "beta(X) :- alpha(X)", Poly{}}, {"a2", "alpha(X) :- zeta(X)", Poly{}}},
			want:  Error{Code: CodeUnstratifiable, Rule: "z1", Pred: "zeta", Cycle: []string{"alpha", "zeta", "beta"}}},
		{name: "self negation", rules: []trule{{"r", "p(X) :- d(X), not p(X)", Poly{}}},
			want:    Error{Code: CodeUnstratifiable, Rule: "r", Pred: "p", Cycle: []string{"p"}},
			message: "datalog: rule.unstratifiable: rule \"r\" negates p, but p depends on itself through it (p -> p); remove the negation or break the cycle"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := build(t, c.facts, nil)
			var err error
			for _, r := range c.rules {
				sup := r.sup
				if sup.IsZero() {
					sup = One()
				}
				if err = p.AddRule(parseRule(r.name, r.text, sup)); err != nil {
					break
				}
			}
			if (err != nil) != c.atAdd {
				t.Fatalf("AddRule error %v, want one: %v", err, c.atAdd)
			}
			if err == nil {
				if cerr := p.Check(); cerr == nil {
					t.Fatal("Check passed")
				}
				_, err = p.Eval()
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			got := *e
			got.Message = ""
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("error %+v, want %+v", got, c.want)
			}
			if c.message != "" && e.Error() != c.message {
				t.Errorf("message\n%s\nwant\n%s", e.Error(), c.message)
			}
		})
	}
}

func TestInvalidInputs(t *testing.T) {
	p := NewProgram()
	checks := []struct {
		name string
		err  error
		code string
	}{
		{"zero fact support", p.AddFact("f", []string{"a"}, Poly{}), CodeZeroSupport},
		{"empty predicate", p.AddFact("", nil, One()), CodeInvalidTerm},
		{"zero rule support", p.AddRule(parseRule("r", "p(X) :- q(X)", Poly{})), CodeZeroSupport},
		{"term with both set", p.AddRule(Rule{Name: "r", Head: Atom{"p", []Term{{Var: "X", Const: "a"}}}, Support: One()}), CodeInvalidTerm},
		{"term with neither set", p.AddRule(Rule{Name: "r", Head: Atom{"p", []Term{{}}}, Support: One()}), CodeInvalidTerm},
		{"fact arity mismatch", func() error { p.AddFact("g", []string{"a"}, One()); return p.AddFact("g", nil, One()) }(), CodeArityMismatch},
	}
	for _, c := range checks {
		var e *Error
		if !errors.As(c.err, &e) || e.Code != c.code {
			t.Errorf("%s: error %v, want code %s", c.name, c.err, c.code)
		}
	}
	if n := len(p.Rules()); n != 0 {
		t.Errorf("%d rules added by failed AddRule calls", n)
	}
}

func TestGroundRuleAndPropositions(t *testing.T) {
	m := evalOK(t, build(t, []tfact{{"rain", VarPoly("w")}}, []trule{
		{"wet", "wet :- rain", Poly{}},
		{"dry", "dry :- not rain", Poly{}},
		{"sun", "sun(today) :- ", VarPoly("s")},
	}))
	for _, c := range []struct {
		pred string
		args []string
		want string
	}{{"wet", nil, "{w}"}, {"dry", nil, "{not rain()}"}, {"sun", []string{"today"}, "{s}"}} {
		if got := m.Support(c.pred, c.args...).String(); got != c.want {
			t.Errorf("%s = %s, want %s", c.pred, got, c.want)
		}
	}
}

func TestAnonymousVariable(t *testing.T) {
	p := build(t, []tfact{{"edge(a, b)", One()}, {"edge(a, c)", VarPoly("x")}, {"edge(c, c)", One()}}, []trule{
		{"src", "source(X) :- edge(X, _)", Poly{}},
		{"two", "both(X) :- edge(X, _), edge(_, X)", Poly{}},
	})
	m := evalOK(t, p)
	if got := m.Support("source", "a").String(); got != "{}" {
		t.Errorf("source(a) = %s, want {} (the anonymous variables must not join)", got)
	}
	if got := m.Support("both", "c").String(); got != "{}" {
		t.Errorf("both(c) = %s, want {}", got)
	}
	if got := m.Len("both"); got != 1 {
		t.Errorf("%d both atoms, want 1", got)
	}
	if got := len(m.Query(parseAtom("edge(_, _)"), MapValuation{})); got != 3 {
		t.Errorf("edge(_, _) matched %d atoms, want 3", got)
	}
	var e *Error
	if err := p.AddRule(parseRule("bad", "out(_) :- edge(_, _)", One())); !errors.As(err, &e) || e.Code != CodeUnboundVariable || e.Var != "_" {
		t.Errorf("anonymous head variable: %v", err)
	}
	if err := p.AddRule(parseRule("bad", "out(X) :- edge(X, Y), not edge(Y, _)", One())); !errors.As(err, &e) || e.Code != CodeUnboundVariable {
		t.Errorf("anonymous negated variable: %v", err)
	}
}
