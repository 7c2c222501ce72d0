package datalog

import (
	"fmt"
	"testing"
)

// TestDirtyEvalReachesDownstream stages facts one program version at a
// time, each evaluated from the last model, where the change reaches a
// stratum far downstream only through a negation (and a stratum that
// reads nothing changed stays untouched), next to a predicate of its own
// each time: every model must equal a fresh evaluation, and the visited
// path must have been taken.
func TestDirtyEvalReachesDownstream(t *testing.T) {
	rules := []trule{
		{"b", "b(X) :- a(X)", Poly{}},
		{"c", "c(X) :- d(X), not b(X)", Poly{}},
		{"e", "e(X) :- c(X), f(X)", Poly{}},
		{"g", "g(X) :- e(X)", Poly{}},
		{"h", "h(X) :- k(X)", Poly{}},
	}
	steps := []struct {
		name string
		add  func(p *Program) error
	}{
		{"a(x) blocks c(x), e(x), g(x)", func(p *Program) error { return p.AddFact("a", []string{"x"}, One()) }},
		{"d(z) with f(z) derives g(z)", func(p *Program) error {
			if err := p.AddFact("d", []string{"z"}, One()); err != nil {
				return err
			}
			return p.AddFact("f", []string{"z"}, VarPoly("fz"))
		}},
		{"a(z) under a variable makes g(z) conditional", func(p *Program) error { return p.AddFact("a", []string{"z"}, VarPoly("az")) }},
		{"removing a(x) brings g(x) back", func(p *Program) error {
			if !p.RemoveFact("a", []string{"x"}) {
				return fmt.Errorf("a(x) not there")
			}
			return nil
		}},
		{"k(w) touches only h", func(p *Program) error { return p.AddFact("k", []string{"w"}, One()) }},
	}
	p := NewProgram()
	for _, f := range []string{"d(x)", "d(y)", "f(x)", "f(y)", "k(v)"} {
		at := parseAtom(f)
		must(t, p.AddFact(at.Pred, []string{at.Args[0].Const}, One()))
	}
	for _, r := range rules {
		must(t, p.AddRule(parseRule(r.name, r.text, One())))
	}
	m := evalOK(t, p)
	for i, st := range steps {
		p = p.Clone()
		must(t, st.add(p))
		must(t, p.AddFact(fmt.Sprintf("own%d", i), []string{"x"}, One())) // a stratum of its own, inserted
		before := dirtyEvals.Load()
		next, err := p.EvalFrom(m)
		must(t, err)
		if dirtyEvals.Load() == before {
			t.Fatalf("%s: evaluated every stratum", st.name)
		}
		fresh := p.Clone()
		fresh.strat, fresh.last = nil, nil
		if got, want := fullDump(next), fullDump(evalOK(t, fresh)); got != want {
			t.Fatalf("%s: incremental\n%s\nfresh\n%s", st.name, got, want)
		}
		if st.name == "k(w) touches only h" && next.rel(m.preds.mustLookup(t, "g")) != m.rel(m.preds.mustLookup(t, "g")) {
			t.Fatalf("%s: g was evaluated again", st.name)
		}
		m = next
	}
}

func (in *interner) mustLookup(t *testing.T, name string) uint32 {
	t.Helper()
	id, ok := in.lookup(name)
	if !ok {
		t.Fatalf("no predicate %s", name)
	}
	return id
}
