package datalog

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// stagedLine is one line of staged versions: the program, its last model
// and the facts a fresh evaluation is given.
type stagedLine struct {
	p     *Program
	m     *Model
	facts []nFact
	preds []FactPred // the predicates the line brought, each of its own
	dirty int        // steps that visited only the strata their change reached
}

// TestLongStagedSequenceMatchesFresh stages 1,500 changes one program
// version at a time, as a workspace stages its adds, each evaluated from
// the last model: mostly a fact of a predicate no other fact has (the
// tables by predicate then span three levels of their trie), beside facts
// the rules read (recursion, negation, a rule under a variable), further
// facts of the new predicates, and removals. At checkpoints the model must
// equal a fresh evaluation of the facts (atoms, supports, grades under a
// valuation, the strata in order); a line forked halfway goes on apart,
// and the version it forked from must be unchanged at the end.
func TestLongStagedSequenceMatchesFresh(t *testing.T) {
	steps := 1500
	if testing.Short() {
		steps = 300
	}
	p := build(t, nil, []trule{
		{"reach", "reach(X, Y) :- e(X, Y)", Poly{}},
		{"reach2", "reach(X, Z) :- reach(X, Y), e(Y, Z)", Poly{}},
		{"ok", "ok(X) :- node(X), not blocked(X)", Poly{}},
		{"flag", "flag(X) :- reach(X, X), ok(X)", VarPoly("r")},
	})
	rules := p.Rules()
	r := rand.New(rand.NewPCG(34, 5))
	main := &stagedLine{p: p, m: evalOK(t, p)}
	var fork, forkedFrom *stagedLine
	for step := range steps {
		main.step(t, r, step)
		if step == steps/2 {
			forkedFrom = &stagedLine{p: main.p, m: main.m, facts: slices.Clone(main.facts), preds: slices.Clone(main.preds)}
			fork = &stagedLine{p: main.p, m: main.m, facts: slices.Clone(main.facts), preds: slices.Clone(main.preds)}
		}
		if fork != nil && step%3 == 0 {
			fork.step(t, r, 100_000+step)
		}
		if step%150 == 0 || step == steps-1 {
			main.matchFresh(t, fmt.Sprintf("step %d", step), rules)
			if fork != nil {
				fork.matchFresh(t, fmt.Sprintf("step %d, forked line", step), rules)
			}
		}
	}
	forkedFrom.matchFresh(t, "the version forked from, at the end", rules)
	if main.dirty < steps*9/10 {
		t.Fatalf("%d of %d steps visited only the strata they reached", main.dirty, steps)
	}
}

// step applies one random change to a clone of the line's program and
// evaluates it from the line's model.
func (l *stagedLine) step(t *testing.T, r *rand.Rand, step int) {
	t.Helper()
	l.p = l.p.Clone()
	c := func() string { return fmt.Sprintf("c%d", r.IntN(12)) }
	sup := func() Poly {
		if r.IntN(3) == 0 {
			return One()
		}
		return VarPoly(fmt.Sprintf("v%d", r.IntN(9)))
	}
	var f nFact
	switch k := r.IntN(20); {
	case k < 9 || len(l.facts) == 0:
		args := []string{c()}
		if k%2 == 0 {
			args = append(args, c())
		}
		f = nFact{fmt.Sprintf("k%05d", step), args, sup()}
		fp, err := l.p.FactPred(f.pred, len(args))
		must(t, err)
		l.preds = append(l.preds, fp)
	case k < 13:
		f = nFact{"e", []string{c(), c()}, sup()}
	case k < 15:
		f = nFact{[]string{"node", "blocked"}[k%2], []string{c()}, sup()}
	case k < 17 && len(l.preds) > 0:
		fp := l.preds[r.IntN(len(l.preds))]
		f = nFact{fp.name, []string{c(), c()}[:fp.arity], sup()}
	default:
		gone := l.facts[r.IntN(len(l.facts))]
		if !l.p.RemoveFact(gone.pred, gone.args) {
			t.Fatalf("step %d: %s not there to remove", step, renderAtom(gone.pred, gone.args))
		}
		l.facts = slices.DeleteFunc(slices.Clip(l.facts), func(x nFact) bool {
			return x.pred == gone.pred && slices.Equal(x.args, gone.args)
		})
		l.eval(t)
		return
	}
	must(t, l.p.AddFact(f.pred, f.args, f.sup))
	l.facts = append(slices.Clip(l.facts), f)
	l.eval(t)
}

// eval evaluates the line's program from its model.
func (l *stagedLine) eval(t *testing.T) {
	t.Helper()
	before := dirtyEvals.Load()
	m, err := l.p.EvalFrom(l.m)
	must(t, err)
	if dirtyEvals.Load() > before {
		l.dirty++
	}
	l.m = m
}

// matchFresh holds the line's model to a fresh evaluation of its facts.
func (l *stagedLine) matchFresh(t *testing.T, where string, rules []Rule) {
	t.Helper()
	fresh := freshModel(t, rules, l.facts, Bounds{})
	if got, want := fullDump(l.m), fullDump(fresh); got != want {
		t.Fatalf("%s: staged and fresh differ:\n--- staged\n%s\n--- fresh\n%s", where, got, want)
	}
	v := ValuationFunc(func(name string) Truth { return Truth(len(name) % 3) })
	g, fg := l.m.Grader(v), fresh.Grader(v)
	for _, pred := range fresh.Preds() {
		for _, f := range fresh.Facts(pred) {
			if a, b := g.GradeFact(f), fg.GradeFact(f); a != b {
				t.Fatalf("%s: %s graded %v, fresh %v", where, renderAtom(pred, f.Args), a, b)
			}
		}
	}
	fp, err := freshProgram(t, rules, l.facts, l.preds).Strata()
	must(t, err)
	sp, err := l.p.Strata()
	must(t, err)
	if !reflect.DeepEqual(sp, fp) {
		t.Fatalf("%s: strata differ:\n%+v\n%+v", where, sp, fp)
	}
}

// freshProgram is the program freshModel evaluates, with preds in use
// (a predicate stays in use once its arity is fixed, its facts gone or
// not: a stratum of its own).
func freshProgram(t *testing.T, rules []Rule, facts []nFact, preds []FactPred) *Program {
	t.Helper()
	p, err := nProgram{facts: facts, rules: rules}.load(identity(len(facts)), identity(len(rules)), Bounds{})
	must(t, err)
	for _, fp := range preds {
		_, err := p.FactPred(fp.name, fp.arity)
		must(t, err)
	}
	return p
}
