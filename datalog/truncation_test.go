// This file tests the polynomial bounds: which monomials a cut keeps, and
// that grades stay exact when supports are truncated, on a graph whose
// paths are exponentially many.

package datalog

import (
	"fmt"
	"reflect"
	"testing"
)

// ladder builds n diamonds in a row: v_i → l_i → v_{i+1} and v_i → r_i →
// v_{i+1}, each edge its own variable, so v0 reaches v_n by 2^n paths.
func ladder(t testing.TB, n int, b Bounds) *Program {
	var facts []tfact
	for i := range n {
		for _, side := range []string{"l", "r"} {
			mid := fmt.Sprintf("%s%d", side, i)
			facts = append(facts,
				tfact{fmt.Sprintf("edge(v%d, %s)", i, mid), VarPoly(mid + "a")},
				tfact{fmt.Sprintf("edge(%s, v%d)", mid, i+1), VarPoly(mid + "b")})
		}
	}
	p := build(t, facts, tcRules)
	p.SetBounds(b)
	return p
}

func TestTruncatedGradesAreExact(t *testing.T) {
	m := evalOK(t, ladder(t, 8, Bounds{}))
	sup := m.Support("path", "v0", "v8")
	if !sup.Truncated() || len(sup.Monomials()) != 64 {
		t.Fatalf("path(v0, v8): truncated %v with %d monomials, want 64 of 256 kept", sup.Truncated(), len(sup.Monomials()))
	}
	// The cut keeps the canonically smallest monomials: all 16 literals
	// long, so those taking the left side of the first two diamonds.
	for _, mo := range sup.Monomials() {
		if len(mo) != 16 || mo[0] != "l0a" || mo[2] != "l1a" {
			t.Fatalf("kept monomial %v is not among the smallest", mo)
		}
	}
	all := MapValuation{}
	for i := range 8 {
		for _, s := range []string{"l", "r"} {
			all[fmt.Sprintf("%s%da", s, i)] = True
			all[fmt.Sprintf("%s%db", s, i)] = True
		}
	}
	cases := []struct {
		name  string
		set   map[string]Truth
		grade Grade
	}{
		{"all true", nil, Certain},
		// l0a is in every kept monomial: the kept polynomial alone would say dead.
		{"l0a false: the right side still leads through", map[string]Truth{"l0a": False}, Certain},
		{"l0a false, r0a unknown", map[string]Truth{"l0a": False, "r0a": Unknown}, Possible},
		{"both sides of diamond 0 cut", map[string]Truth{"l0a": False, "r0b": False}, Dead},
		{"both sides of diamond 5 cut", map[string]Truth{"l5b": False, "r5a": False}, Dead},
		{"one side of every diamond unknown", map[string]Truth{"l0a": Unknown, "l1b": Unknown, "l2a": Unknown, "l3a": Unknown,
			"l4b": Unknown, "l5a": Unknown, "l6a": Unknown, "l7b": Unknown}, Certain},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := MapValuation{}
			for k, x := range all {
				v[k] = x
			}
			for k, x := range c.set {
				v[k] = x
			}
			if got := m.Grade("path", []string{"v0", "v8"}, v); got != c.grade {
				t.Errorf("grade %v, want %v", got, c.grade)
			}
			if got := sup.Eval(v); got != c.grade.Truth() {
				t.Errorf("Support.Eval %v, want %v", got, c.grade.Truth())
			}
			// What the kept polynomial alone would say, for contrast.
			kept := NewPoly(sup.Monomials()...)
			if c.name == "l0a false: the right side still leads through" && kept.Eval(v) != False {
				t.Errorf("the kept monomials alone should grade dead here, or the test shows nothing")
			}
			w := m.Why("path", []string{"v0", "v8"}, v)
			if !w.Truncated || w.Grade != c.grade || len(w.BlockingDefeats) != 0 {
				t.Errorf("Why: truncated %v grade %v defeats %v", w.Truncated, w.Grade, w.BlockingDefeats)
			}
		})
	}
	// Atoms below the cut are exact and untruncated.
	if s := m.Support("path", "v0", "v2"); s.Truncated() || len(s.Monomials()) != 4 {
		t.Errorf("path(v0, v2) = %v, want 4 exact monomials", s)
	}
}

func TestSizeCapKeepsAtomsAndGrades(t *testing.T) {
	var facts []tfact
	for i := range 6 {
		facts = append(facts, tfact{fmt.Sprintf("edge(n%d, n%d)", i, i+1), VarPoly(fmt.Sprintf("e%d", i))})
	}
	p := build(t, facts, tcRules)
	p.SetBounds(Bounds{MaxMonomialSize: 3})
	m := evalOK(t, p)
	if n := m.Len("path"); n != 21 {
		t.Fatalf("%d path atoms, want 21: the cap must not lose atoms", n)
	}
	s := m.Support("path", "n0", "n5")
	if !s.IsZero() || !s.Truncated() {
		t.Fatalf("path(n0, n5) = %v, want zero and truncated (its one monomial has 5 literals)", s)
	}
	if got := m.Support("path", "n0", "n3"); got.Truncated() || !reflect.DeepEqual(got.Monomials(), [][]string{{"e0", "e1", "e2"}}) {
		t.Errorf("path(n0, n3) = %v, want {e0, e1, e2}", got)
	}
	for _, c := range []struct {
		v    MapValuation
		want Grade
	}{
		{MapValuation{"e0": True, "e1": True, "e2": True, "e3": True, "e4": True}, Certain},
		{MapValuation{"e0": True, "e1": True, "e2": True, "e3": True}, Possible},
		{MapValuation{"e0": True, "e1": True, "e2": True, "e3": False, "e4": True}, Dead},
	} {
		if got := m.Grade("path", []string{"n0", "n5"}, c.v); got != c.want {
			t.Errorf("path(n0, n5) under %v: %v, want %v", c.v, got, c.want)
		}
	}
}

func TestStratumBudget(t *testing.T) {
	p := ladder(t, 6, Bounds{MaxStratumMonomials: 100})
	m := evalOK(t, p)
	full := evalOK(t, ladder(t, 6, Bounds{MaxMonomials: 1000}))
	if m.Len("path") != full.Len("path") {
		t.Fatalf("%d path atoms under the budget, %d without", m.Len("path"), full.Len("path"))
	}
	if m.Stats().Truncated == 0 {
		t.Fatal("the budget truncated nothing")
	}
	v := MapValuation{"l0a": False, "r3b": Unknown, "l4a": True}
	for _, f := range full.Facts("path") {
		if got, want := m.Grade("path", f.Args, v), full.Grade("path", f.Args, v); got != want {
			t.Errorf("path%v: %v under the budget, %v without", f.Args, got, want)
		}
	}
}

func TestBudgetKeepsUnconditionalSupports(t *testing.T) {
	// The stratum of path runs out of budget at once (one monomial), yet
	// path(a, d) is unconditional, so "not path(a, d)" must fail outright.
	p := build(t, []tfact{
		{"edge(a, b)", One()}, {"edge(b, c)", One()}, {"edge(c, d)", One()}, {"edge(x, y)", VarPoly("e")},
		{"pair(a, d)", One()}, {"pair(x, y)", One()},
	}, append(tcRules[:2:2], trule{"gap", "gap(X, Y) :- pair(X, Y), not path(X, Y)", Poly{}}))
	p.SetBounds(Bounds{MaxStratumMonomials: 1})
	m := evalOK(t, p)
	if s := m.Support("path", "a", "d"); !s.IsOne() || s.Truncated() {
		t.Errorf("path(a, d) = %v, want unconditional and exact", s)
	}
	if got := m.Len("gap"); got != 1 {
		t.Errorf("%d gap atoms, want 1 (gap(x, y)): %v", got, m.Facts("gap"))
	}
	if got := m.Grade("gap", []string{"x", "y"}, MapValuation{"e": False}); got != Certain {
		t.Errorf("gap(x, y) with e false: %v, want certain", got)
	}
}
