// This file holds the regression tests of a stratum that runs out of its
// monomial budget (MaxStratumMonomials) while it evaluates round by round:
// the derivation that passes the budget must keep its unconditional
// support like every derivation after it, or a "not" over the stratum lets
// atoms through that the program does not derive.

package datalog

import (
	"fmt"
	"strings"
	"testing"
)

// ring returns the facts of a directed ring of n nodes c0…c{n-1}, every
// edge e0 and node e1 unconditional.
func ring(n int) []nFact {
	var fs []nFact
	for i := range n {
		fs = append(fs, nFact{"e0", []string{fmt.Sprintf("c%d", i), fmt.Sprintf("c%d", (i+1)%n)}, One()})
	}
	for i := range n {
		fs = append(fs, nFact{"e1", []string{fmt.Sprintf("c%d", i)}, One()})
	}
	return fs
}

// rules parses rules "head :- body", named r0, r1, …, with support One,
// or the variable named after a trailing " @".
func rules(texts ...string) []Rule {
	var out []Rule
	for i, s := range texts {
		sup := One()
		if k := strings.LastIndex(s, " @"); k >= 0 {
			s, sup = s[:k], VarPoly(s[k+2:])
		}
		out = append(out, parseRule(fmt.Sprintf("r%d", i), s, sup))
	}
	return out
}

// spillCases are small programs whose strata pass a small budget in the
// middle of a round, with the atoms of each predicate the program derives.
var spillCases = []struct {
	name  string
	prog  nProgram
	atoms map[string]int // by predicate; the rest are compared with the oracle
}{
	{
		// t1 reads the spilled t0 (t0(c0, c0) and t0(c1, c1) lost their
		// {x0}), so it is evaluated round by round; its first round passes
		// the budget on an unconditional derivation.
		name: "nonlinear closure over a spilled stratum",
		prog: nProgram{facts: ring(2), rules: rules(
			"t0(X, Y) :- e0(X, Y)",
			"t0(X, Z) :- t0(X, Y), e0(Y, Z) @x0",
			"t1(X, Y) :- t0(X, Y)",
			"t1(X, Z) :- t1(X, Y), t1(Y, Z)",
			"n(X, Y) :- e1(X), e1(Y), not t1(X, Y) @x1",
		)},
		atoms: map[string]int{"t1": 4, "n": 0},
	},
	{
		// The reproduction reported with issue 8: 90 atoms instead of 84.
		name: "right recursion over a spilled left recursion, on a ring",
		prog: nProgram{facts: ring(6), rules: rules(
			"t1(X, Y) :- e0(X, Y)",
			"t1(X, Z) :- t1(X, Y), e0(Y, Z) @x1",
			"t(X, Y) :- t1(X, Y)",
			"t(X, Z) :- e0(X, Y), t(Y, Z)",
			"n(X, Y) :- e1(X), e1(Y), not t(X, Y)",
		)},
		atoms: map[string]int{"t": 36, "n": 0},
	},
	{
		// No truncated input: the stratum of t leaves the exact path on a
		// per-atom bound (t(a, a) has two monomials), and its first round
		// generates more monomials than the budget before its last
		// unconditional derivation.
		name: "per-atom bound first, then the budget within a round",
		prog: nProgram{facts: []nFact{
			{"e", []string{"a", "a"}, VarPoly("x")}, {"g", []string{"a", "a"}, VarPoly("y")},
			{"e", []string{"p", "q"}, VarPoly("u").Mul(VarPoly("v"))},
			{"e", []string{"r", "s"}, VarPoly("u").Mul(VarPoly("w"))},
			{"e", []string{"a", "b"}, One()}, {"e", []string{"b", "c"}, One()},
			{"e", []string{"c", "d"}, One()}, {"e", []string{"d", "f"}, One()},
			{"k", []string{"d", "f"}, One()}, {"k", []string{"p", "q"}, One()},
		}, rules: rules(
			"t(X, Y) :- e(X, Y)",
			"t(X, Y) :- g(X, Y)",
			"n(X, Y) :- k(X, Y), not t(X, Y)",
		)},
		atoms: map[string]int{"t": 7, "n": 1},
	},
}

// spillBounds spill a stratum or cut it, with small budgets.
var spillBounds = []Bounds{
	{MaxStratumMonomials: 1}, {MaxStratumMonomials: 3}, {MaxStratumMonomials: 4},
	{MaxMonomials: 1, MaxStratumMonomials: 6},
	{MaxMonomials: 2, MaxMonomialSize: 1 << 10, MaxStratumMonomials: 3},
}

func TestBudgetPassedInARound(t *testing.T) {
	for _, c := range spillCases {
		sup, args, ok := naiveEval(c.prog)
		if !ok {
			t.Fatalf("%s: the oracle cannot stratify it", c.name)
		}
		for _, b := range spillBounds {
			t.Run(fmt.Sprintf("%s/%+v", c.name, b), func(t *testing.T) {
				p, err := c.prog.load(identity(len(c.prog.facts)), identity(len(c.prog.rules)), b)
				must(t, err)
				m := evalOK(t, p)
				for pred, n := range c.atoms {
					if got := m.Len(pred); got != n {
						t.Errorf("%d %s atoms, want %d: %v", got, pred, n, m.Facts(pred))
					}
				}
				checkAgainstOracle(t, m, c.prog, sup, args)
			})
		}
	}
}

// checkAgainstOracle requires m to hold the oracle's atoms, each
// unconditional exactly when the oracle's is, an untruncated support equal
// to the oracle's, and every grade the brute-force one.
func checkAgainstOracle(t *testing.T, m *Model, np nProgram, sup map[string]Poly, args map[string][]string) {
	t.Helper()
	if d := oracleMismatch(m, sup, args); d != "" {
		t.Errorf("%s\n%s", d, dump(m))
	}
	vals := []MapValuation{{}, {"x": True, "x0": True, "x1": True, "y": True, "u": True, "v": True, "w": True},
		{"x0": Unknown, "x1": Unknown, "x": False, "y": Unknown, "u": True, "v": Unknown, "w": False}}
	for _, v := range vals {
		want := bruteGrades(np, v)
		g := m.Grader(v)
		for _, pred := range m.Preds() {
			for _, f := range m.Facts(pred) {
				k := atomKey(pred, f.Args)
				if got := g.Grade(pred, f.Args...); got.Truth() != want[k] {
					t.Errorf("%s%v graded %v under %v, brute force %v", pred, f.Args, got, v, want[k])
				}
			}
		}
	}
}

// TestBudgetPassedInARoundIncremental builds each case's model from one
// without its last fact, and from one with an extra fact removed again,
// and requires what a fresh evaluation gives.
func TestBudgetPassedInARoundIncremental(t *testing.T) {
	for _, c := range spillCases {
		for _, b := range spillBounds {
			t.Run(fmt.Sprintf("%s/%+v", c.name, b), func(t *testing.T) {
				fresh, err := c.prog.load(identity(len(c.prog.facts)), identity(len(c.prog.rules)), b)
				must(t, err)
				want := dump(evalOK(t, fresh))
				n := len(c.prog.facts)
				p, err := c.prog.load(identity(n-1), identity(len(c.prog.rules)), b)
				must(t, err)
				evalOK(t, p)
				last := c.prog.facts[n-1]
				must(t, p.AddFact(last.pred, last.args, last.sup))
				m := evalOK(t, p)
				if got := dump(m); got != want {
					t.Fatalf("after adding %s%v incrementally:\n%s\nfresh:\n%s", last.pred, last.args, got, want)
				}
				if st := m.Stats(); st.Reused+st.Maintained == 0 {
					t.Fatalf("no stratum reused or maintained (%+v): the evaluation was not incremental", st)
				}
				must(t, p.AddFact("e0", []string{"z0", "z1"}, VarPoly("x1")))
				evalOK(t, p)
				p.RemoveFact("e0", []string{"z0", "z1"})
				if got := dump(evalOK(t, p)); got != want {
					t.Fatalf("after adding and removing e0(z0, z1) incrementally:\n%s\nfresh:\n%s", got, want)
				}
			})
		}
	}
}
