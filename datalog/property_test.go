// This file holds the property tests over seeded random programs: semi-naive
// equals the naive oracle, results do not depend on insertion order,
// polynomials stay absorbed, and grades match a brute-force three-valued
// fixpoint, also when small bounds truncate the polynomials.

package datalog

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// propertyCases is how many random programs each property test draws
// (race_test.go lowers it: under the race detector a program costs about
// ten times as much, and these tests run on one goroutine).
var propertyCases = 300

func isUnstratifiable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == CodeUnstratifiable
}

// evalMatchesNaive evaluates p (loaded from np) and fails unless its
// model is the naive oracle's; ok is false when both find np
// unstratifiable.
func evalMatchesNaive(t *testing.T, seed uint64, np nProgram, p *Program) (*Model, bool) {
	t.Helper()
	m, err := p.Eval()
	sup, args, ok := naiveEval(np)
	if !ok {
		if !isUnstratifiable(err) {
			t.Fatalf("seed %d: oracle says unstratifiable, engine says %v", seed, err)
		}
		return nil, false
	}
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	if got, want := dump(m), dumpNaive(sup, args); got != want {
		t.Fatalf("seed %d: the engine and the naive oracle differ\nengine:\n%s\noracle:\n%s\nrules %v", seed, got, want, np.rules)
	}
	return m, true
}

func TestSemiNaiveMatchesNaive(t *testing.T) {
	checked := 0
	for seed := range uint64(propertyCases) {
		r := rand.New(rand.NewPCG(seed, 1))
		np := genProgram(r, genDefault)
		p, err := np.load(identity(len(np.facts)), identity(len(np.rules)), Bounds{MaxMonomials: 1 << 20, MaxMonomialSize: 1 << 20})
		if err != nil {
			t.Fatalf("seed %d: load: %v", seed, err)
		}
		if _, ok := evalMatchesNaive(t, seed, np, p); !ok {
			continue
		}
		checked++
	}
	if checked < propertyCases/2 {
		t.Fatalf("only %d stratifiable programs", checked)
	}
}

func TestOrderIndependence(t *testing.T) {
	for seed := range uint64(propertyCases) {
		r := rand.New(rand.NewPCG(seed, 2))
		np := genProgram(r, genDefault)
		// Small bounds too: the cut, and the spill past the stratum
		// budget, must not depend on the order.
		for _, b := range []Bounds{{}, {MaxMonomials: 2, MaxMonomialSize: 3}, {MaxStratumMonomials: 4}, {MaxMonomials: 3, MaxStratumMonomials: 9}} {
			var first string
			for k := range 4 {
				fo, ro := identity(len(np.facts)), identity(len(np.rules))
				if k > 0 {
					r.Shuffle(len(fo), func(i, j int) { fo[i], fo[j] = fo[j], fo[i] })
					r.Shuffle(len(ro), func(i, j int) { ro[i], ro[j] = ro[j], ro[i] })
				}
				p, err := np.load(fo, ro, b)
				if err != nil {
					t.Fatal(err)
				}
				m, err := p.Eval()
				got := fmt.Sprint(err)
				if err == nil {
					got = dump(m)
				}
				if k == 0 {
					first = got
				} else if got != first {
					t.Fatalf("seed %d bounds %+v: order %v/%v gives\n%s\nwant\n%s", seed, b, fo, ro, got, first)
				}
			}
		}
	}
}

func TestAbsorptionInvariant(t *testing.T) {
	for seed := range uint64(propertyCases) {
		r := rand.New(rand.NewPCG(seed, 3))
		np := genProgram(r, genDefault)
		p, _ := np.load(identity(len(np.facts)), identity(len(np.rules)), Bounds{})
		m, err := p.Eval()
		if err != nil {
			continue
		}
		for _, pred := range m.Preds() {
			for _, f := range m.Facts(pred) {
				ms := f.Support.Monomials()
				if len(ms) == 0 && !f.Support.Truncated() {
					t.Fatalf("seed %d: %s(%v) derived with the zero support", seed, pred, f.Args)
				}
				for i, a := range ms {
					for j, b := range ms {
						if i != j && subsetStrings(a, b) {
							t.Fatalf("seed %d: %s(%v) = %v: %v absorbs %v", seed, pred, f.Args, f.Support, a, b)
						}
					}
				}
			}
		}
	}
}

func subsetStrings(a, b []string) bool {
	set := map[string]bool{}
	for _, x := range b {
		set[x] = true
	}
	for _, x := range a {
		if !set[x] {
			return false
		}
	}
	return true
}

func randomValuation(r *rand.Rand, nvars int) MapValuation {
	v := MapValuation{}
	for i := range nvars {
		v[fmt.Sprintf("x%d", i)] = Truth(r.IntN(3))
	}
	return v
}

func TestGradesMatchBruteForce(t *testing.T) {
	bounds := []Bounds{{}, {MaxMonomials: 1, MaxMonomialSize: 2}, {MaxMonomials: 2, MaxMonomialSize: 1 << 10, MaxStratumMonomials: 3}, {MaxStratumMonomials: 1}}
	truncated := 0
	for seed := range uint64(propertyCases) {
		r := rand.New(rand.NewPCG(seed, 4))
		np := genProgram(r, genDefault)
		oracleSup, oracleArgs, ok := naiveEval(np)
		for _, b := range bounds {
			p, _ := np.load(identity(len(np.facts)), identity(len(np.rules)), b)
			m, err := p.Eval()
			if err != nil || !ok {
				continue
			}
			truncated += m.Stats().Truncated
			if d := oracleMismatch(m, oracleSup, oracleArgs); d != "" {
				t.Fatalf("seed %d bounds %+v: %s: truncation changed an atom\n%s", seed, b, d, dump(m))
			}
			for range 4 {
				v := randomValuation(r, genDefault.vars)
				want := bruteGrades(np, v)
				g := m.Grader(v)
				for _, pred := range m.Preds() {
					for _, f := range m.Facts(pred) {
						k := atomKey(pred, f.Args)
						if got := g.Grade(pred, f.Args...); got.Truth() != want[k] {
							t.Fatalf("seed %d bounds %+v: %s(%v) = %v graded %v, brute force %v under %v",
								seed, b, pred, f.Args, f.Support, got, want[k], v)
						}
						if got := f.Support.Eval(v); got != want[k] {
							t.Fatalf("seed %d bounds %+v: Eval of %s(%v) = %v is %v, brute force %v",
								seed, b, pred, f.Args, f.Support, got, want[k])
						}
					}
					// EachAtom yields every atom once, graded as above.
					seen := map[string]bool{}
					m.Grader(v).EachAtom(pred, func(args []string, got Grade) bool {
						k := atomKey(pred, args)
						if seen[k] || got.Truth() != want[k] {
							t.Fatalf("seed %d bounds %+v: EachAtom yields %s(%v) graded %v (again: %v), brute force %v", seed, b, pred, args, got, seen[k], want[k])
						}
						seen[k] = true
						return true
					})
					if len(seen) != m.Len(pred) {
						t.Fatalf("seed %d bounds %+v: EachAtom yields %d atoms of %s, the model holds %d", seed, b, len(seen), pred, m.Len(pred))
					}
				}
				for k, tr := range want {
					if tr != False {
						if _, ok := findAtom(m, k); !ok {
							t.Fatalf("seed %d: brute force derives %q, the model does not", seed, k)
						}
					}
				}
			}
		}
	}
	if truncated == 0 {
		t.Fatal("no case was truncated: the small bounds test nothing")
	}
}

func findAtom(m *Model, key string) (GroundFact, bool) {
	for _, pred := range m.Preds() {
		for _, f := range m.Facts(pred) {
			if atomKey(pred, f.Args) == key {
				return f, true
			}
		}
	}
	return GroundFact{}, false
}

func TestIncrementalMatchesFresh(t *testing.T) {
	for seed := range uint64(propertyCases / 2) {
		r := rand.New(rand.NewPCG(seed, 5))
		np := genProgram(r, genDefault)
		b := []Bounds{{}, {MaxMonomials: 2, MaxMonomialSize: 3}, {MaxStratumMonomials: 3}}[seed%3]
		p, _ := np.load(identity(len(np.facts)), identity(len(np.rules)), b)
		cur := nProgram{facts: slices.Clone(np.facts), rules: slices.Clone(np.rules)}
		for step := range 6 {
			switch r.IntN(4) {
			case 0:
				f := genProgram(r, genDefault).facts[0]
				must(t, p.AddFact(f.pred, f.args, f.sup))
				cur.facts = append(cur.facts, f)
			case 1:
				if len(cur.facts) > 0 {
					f := cur.facts[r.IntN(len(cur.facts))]
					p.RemoveFact(f.pred, f.args)
					cur.facts = slices.DeleteFunc(cur.facts, func(g nFact) bool {
						return g.pred == f.pred && slices.Equal(g.args, f.args)
					})
				}
			case 2:
				ps := genPreds(genDefault)
				ru := genRule(r, genDefault, ps, fmt.Sprintf("n%d", step), func() string { return fmt.Sprintf("c%d", r.IntN(3)) })
				must(t, p.AddRule(ru))
				cur.rules = append(cur.rules, ru)
			case 3:
				if len(cur.rules) > 0 {
					name := cur.rules[r.IntN(len(cur.rules))].Name
					p.RemoveRule(name)
					cur.rules = slices.DeleteFunc(cur.rules, func(ru Rule) bool { return ru.Name == name })
				}
			}
			m, err := p.Eval()
			fresh, _ := cur.load(identity(len(cur.facts)), identity(len(cur.rules)), b)
			fm, ferr := fresh.Eval()
			if (err == nil) != (ferr == nil) {
				t.Fatalf("seed %d step %d: incremental error %v, fresh error %v", seed, step, err, ferr)
			}
			if err != nil {
				continue
			}
			if got, want := dump(m), dump(fm); got != want {
				t.Fatalf("seed %d step %d: incremental\n%s\nfresh\n%s", seed, step, got, want)
			}
			v := randomValuation(r, genDefault.vars)
			g, fg := m.Grader(v), fm.Grader(v)
			for _, pred := range fm.Preds() {
				for _, f := range fm.Facts(pred) {
					if g.GradeFact(f) != fg.GradeFact(f) {
						t.Fatalf("seed %d step %d: %s%v graded %v incrementally, %v fresh", seed, step, pred, f.Args, g.GradeFact(f), fg.GradeFact(f))
					}
				}
			}
		}
	}
}

func TestGraderUpdateMatchesFresh(t *testing.T) {
	for seed := range uint64(propertyCases) {
		r := rand.New(rand.NewPCG(seed, 6))
		np := genProgram(r, genDefault)
		b := []Bounds{{}, {MaxMonomials: 1, MaxMonomialSize: 2}, {MaxStratumMonomials: 2}}[seed%3]
		p, _ := np.load(identity(len(np.facts)), identity(len(np.rules)), b)
		m, err := p.Eval()
		if err != nil {
			continue
		}
		v1 := randomValuation(r, genDefault.vars)
		g1 := m.Grader(v1)
		var all []GroundFact
		for _, pred := range m.Preds() {
			all = append(all, m.Facts(pred)...)
		}
		for _, f := range all {
			g1.GradeFact(f)
		}
		x := fmt.Sprintf("x%d", r.IntN(genDefault.vars))
		v2 := MapValuation{}
		for k, tr := range v1 {
			v2[k] = tr
		}
		v2[x] = (v1[x] + 1 + Truth(r.IntN(2))) % 3
		g2 := g1.Update(v2, x)
		fresh := m.Grader(v2)
		affected := map[string]bool{}
		for _, f := range m.Affected(x) {
			affected[atomKey(f.Pred, f.Args)] = true
		}
		for _, f := range all {
			got, want := g2.GradeFact(f), fresh.GradeFact(f)
			if got != want {
				t.Fatalf("seed %d: %s%v = %v after Update(%s), %v fresh", seed, f.Pred, f.Args, got, x, want)
			}
			if want != g1.GradeFact(f) && !affected[atomKey(f.Pred, f.Args)] {
				t.Fatalf("seed %d: %s%v changed grade when %s changed but is not in Affected(%s)", seed, f.Pred, f.Args, x, x)
			}
		}
	}
}

func TestForeignSupportsGradeExactly(t *testing.T) {
	// A support from one model (with a negated atom and a truncation) is the
	// support of a fact in another program; grades follow the first model.
	a := evalOK(t, build(t, []tfact{{"cand(k)", One()}, {"bad(k)", VarPoly("h")}},
		[]trule{{"ok", "ok(X) :- cand(X), not bad(X)", Poly{}}}))
	trunc := evalOK(t, ladder(t, 7, Bounds{}))
	b := NewProgram()
	must(t, b.AddFact("imported", []string{"k"}, a.Support("ok", "k")))
	must(t, b.AddFact("far", []string{"v0"}, trunc.Support("path", "v0", "v7")))
	must(t, b.AddRule(parseRule("lift", "lifted(X) :- imported(X)", VarPoly("g"))))
	must(t, b.AddRule(parseRule("lift2", "reach(X) :- far(X)", One())))
	m := evalOK(t, b)
	for _, c := range []struct {
		h, g Truth
		want Grade
	}{{False, True, Certain}, {True, True, Dead}, {Unknown, True, Possible}, {False, Unknown, Possible}} {
		v := MapValuation{"h": c.h, "g": c.g}
		if got := m.Grade("lifted", []string{"k"}, v); got != c.want {
			t.Errorf("h=%v g=%v: lifted(k) %v, want %v", c.h, c.g, got, c.want)
		}
	}
	if got := m.Support("lifted", "k").String(); got != "{g, not bad(k)}" {
		t.Errorf("lifted(k) = %s", got)
	}
	v := MapValuation{"l0a": False}
	for i := range 7 {
		for _, s := range []string{"l", "r"} {
			for _, e := range []string{"a", "b"} {
				if k := fmt.Sprintf("%s%d%s", s, i, e); k != "l0a" {
					v[k] = True
				}
			}
		}
	}
	if got := m.Grade("reach", []string{"v0"}, v); got != Certain {
		t.Errorf("reach(v0) %v, want certain (through the right side of diamond 0)", got)
	}
}
