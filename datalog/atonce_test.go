package datalog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// withAtOnce runs f with the strata of an evaluation from scratch run at
// once (force 1) or one after another (-1), restoring the engine's choice
// after.
func withAtOnce(force int32, f func()) {
	atOnceForce.Store(force)
	defer atOnceForce.Store(0)
	f()
}

// TestStrataAtOnceMatchSequential: over the random and shaped program
// generators, with provenance and bounds that cut and spill, a model whose
// strata ran at once, at GOMAXPROCS 1, 2 and 8 and with rounds split into
// tasks, is the sequential one: the same atoms and supports, the same
// grades, the same snapshot bytes. The race detector runs it in CI.
func TestStrataAtOnceMatchSequential(t *testing.T) {
	bounds := []Bounds{
		{MaxMonomials: 1 << 20, MaxMonomialSize: 1 << 20, MaxStratumMonomials: 1 << 30},
		{MaxMonomials: 2, MaxMonomialSize: 3},
		{MaxStratumMonomials: 4},
	}
	runs := []struct{ procs, chunk int }{{1, -1}, {2, -1}, {2, 1}, {8, 2}}
	before := atOnceRuns.Load()
	for i, np := range parPrograms() {
		v := randomValuation(rand.New(rand.NewPCG(uint64(i), 34)), 5)
		for _, b := range bounds {
			var want string
			withAtOnce(-1, func() { withParallel(1, -1, func() { want = fingerprint(t, np, b, v) }) })
			for _, run := range runs {
				var got string
				withAtOnce(1, func() { withParallel(run.procs, run.chunk, func() { got = fingerprint(t, np, b, v) }) })
				if got != want {
					t.Fatalf("program %d, bounds %+v, GOMAXPROCS %d, tasks of %d rows: strata at once differ from one after another\nat once:\n%s\nin turn:\n%s\nrules %v",
						i, b, run.procs, run.chunk, got, want, np.rules)
				}
			}
		}
	}
	if n := atOnceRuns.Load() - before; n < 100 {
		t.Fatalf("strata ran at once in %d evaluations: the test did not exercise it", n)
	}
}

// TestStrataAtOnceNegationsInOrder: two strata that read nothing of each
// other and each intern thousands of negated literals run one after the
// other, in their order, so the literals' ids, and the snapshot's bytes,
// are the sequential evaluation's, run after run.
func TestStrataAtOnceNegationsInOrder(t *testing.T) {
	build := func() *Program {
		p := NewProgram()
		for i := range 4000 {
			x := strconv.Itoa(i)
			must(t, p.AddFact("person", []string{x}, VarPoly("p"+x)))
			if i%2 == 0 {
				must(t, p.AddFact("housed", []string{x}, VarPoly("h"+x)))
			}
			if i%3 == 0 {
				must(t, p.AddFact("sworn", []string{x}, VarPoly("s"+x)))
			}
		}
		for _, r := range []string{"homeless(X) :- person(X), not housed(X)", "forsworn(X) :- person(X), not sworn(X)"} {
			must(t, p.AddRule(parseRule(r, r, One())))
		}
		return p
	}
	fp := func() string { return modelDigest(t, build(), "homeless", "forsworn") }
	var want string
	withAtOnce(-1, func() { want = fp() })
	before := atOnceRuns.Load()
	for range 5 {
		var got string
		withAtOnce(1, func() { withParallel(2, 0, func() { got = fp() }) })
		if got != want {
			t.Fatalf("at once %s, in turn %s", got, want)
		}
	}
	if atOnceRuns.Load()-before != 5 {
		t.Fatal("the strata did not run at once")
	}
}

// TestStrataAtOnceBudget: a budget's stop in a stratum running beside
// another reaches the caller as the budget error, and no model is made.
func TestStrataAtOnceBudget(t *testing.T) {
	withAtOnce(1, func() {
		withParallel(2, 0, func() {
			p := NewProgram()
			for i := range 300 {
				must(t, p.AddFact("a", []string{strconv.Itoa(i), strconv.Itoa(i + 1)}, One()))
				must(t, p.AddFact("b", []string{strconv.Itoa(i), strconv.Itoa(i + 1)}, One()))
			}
			must(t, p.AddRule(parseRule("ra", "pa(X, Y) :- a(X, Y)", One())))
			must(t, p.AddRule(parseRule("ra2", "pa(X, Z) :- pa(X, Y), a(Y, Z)", One())))
			must(t, p.AddRule(parseRule("rb", "pb(X, Y) :- b(X, Y)", One())))
			must(t, p.AddRule(parseRule("rb2", "pb(X, Z) :- pb(X, Y), b(Y, Z)", One())))
			before := atOnceRuns.Load()
			m, err := p.EvalContext(context.Background(), Limits{MaxDerivations: 5000})
			if code, ok := IsBudget(err); !ok || code != CodeBudgetDerivations || m != nil {
				t.Fatalf("got %v (model %v), want the derivations budget error and no model", err, m != nil)
			}
			if atOnceRuns.Load() == before {
				t.Fatal("the strata did not run at once")
			}
		})
	})
}

// TestPlanStrataStartsChainsFirst: of the strata ready at once, the one
// the longest chain waits on starts first, before strata that come
// earlier: zq is read by a negation that another negation waits on.
func TestPlanStrataStartsChainsFirst(t *testing.T) {
	p := NewProgram()
	must(t, p.AddFact("a", []string{"1"}, One()))
	must(t, p.AddFact("b", []string{"1"}, One()))
	for _, r := range []string{"a1(X) :- a(X)", "zq(X) :- b(X)", "s(X) :- a(X), not zq(X)", "u(X) :- s(X), not a1(X)"} {
		must(t, p.AddRule(parseRule(r, r, One())))
	}
	st, err := p.stratify()
	if err != nil {
		t.Fatal(err)
	}
	sc := planStrata(st)
	var order []string
	for len(sc.ready) > 0 {
		i := sc.next()
		order = append(order, p.preds.snapshot().at(st.strata.at(i).preds[0]))
		sc.done(i)
	}
	if got := fmt.Sprint(order); got != "[zq a1 s u]" {
		t.Fatalf("started %s, want [zq a1 s u]", got)
	}
}

// TestStrataAtOnceShapes: a chain of 400 strata (each reads the one
// before), a star of 400 (each reads only the facts) and a star with a
// hub (one stratum reads all 400), every third with a negation, give the
// sequential model byte for byte with their strata at once.
func TestStrataAtOnceShapes(t *testing.T) {
	const n = 400
	rule := func(k int, body string) string {
		r := fmt.Sprintf("p%d(X) :- %s", k, body)
		if k%3 == 0 {
			r += ", not h(X)"
		}
		return r
	}
	shapes := map[string]func(k int) string{
		"chain": func(k int) string {
			if k == 0 {
				return rule(k, "e(X)")
			}
			return rule(k, fmt.Sprintf("p%d(X)", k-1))
		},
		"star": func(k int) string { return rule(k, "e(X)") },
	}
	for name, shape := range shapes {
		for _, hub := range []bool{false, true} {
			build := func() *Program {
				p := NewProgram()
				for i := range 50 {
					x := strconv.Itoa(i)
					must(t, p.AddFact("e", []string{x}, VarPoly("e"+x)))
					if i%4 == 0 {
						must(t, p.AddFact("h", []string{x}, VarPoly("h"+x)))
					}
				}
				var all []string
				for k := range n {
					r := shape(k)
					must(t, p.AddRule(parseRule(r, r, One())))
					all = append(all, fmt.Sprintf("p%d(X)", k))
				}
				if hub {
					r := "hub(X) :- " + strings.Join(all, ", ")
					must(t, p.AddRule(parseRule(r, r, One())))
				}
				return p
			}
			fp := func() string { return modelDigest(t, build(), "p0") }
			var want, got string
			withAtOnce(-1, func() { want = fp() })
			withAtOnce(1, func() { withParallel(2, 0, func() { got = fp() }) })
			if got != want {
				t.Fatalf("%s, hub %v: at once %s, in turn %s", name, hub, got, want)
			}
		}
	}
}
