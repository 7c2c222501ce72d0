package datalog

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestQueryPage: over random programs, pages of any size of any pattern
// (free, with a constant, with a repeated variable) read in turn give
// Query's answers in its order, with its total; and matchQuery agrees
// with bindQuery on every atom.
func TestQueryPage(t *testing.T) {
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 5))
		np := genProgram(r, incConfig)
		p, err := np.load(identity(len(np.facts)), identity(len(np.rules)), Bounds{})
		if err != nil {
			t.Fatal(err)
		}
		m, err := p.Eval()
		if err != nil {
			continue // unstratifiable
		}
		v := randomValuation(r, incConfig.vars)
		for _, gp := range genPreds(incConfig) {
			for _, q := range queryPatterns(gp) {
				all := m.Query(q, v)
				for _, size := range []int{1, 3, 7} {
					var got []Answer
					for from := 0; ; from += size {
						page, total := m.QueryPage(q, v, from, size)
						if total != len(all) {
							t.Fatalf("seed %d %v: total %d, want %d", seed, q, total, len(all))
						}
						got = append(got, page...)
						if len(page) < size {
							break
						}
					}
					if g, w := fmt.Sprint(got), fmt.Sprint(all); g != w {
						t.Fatalf("seed %d %v, pages of %d:\n%s\nwant\n%s", seed, q, size, g, w)
					}
				}
				for _, pred := range m.Preds() {
					for _, f := range m.Facts(pred) {
						if len(f.Args) != len(q.Args) {
							continue
						}
						_, ok := bindQuery(q, f.Args)
						if matchQuery(q, f.Args) != ok {
							t.Fatalf("%v against %v: matchQuery %v, bindQuery %v", q, f.Args, !ok, ok)
						}
					}
				}
			}
		}
	}
}

// queryPatterns are the patterns asked of a predicate: every argument
// free, the first a constant, the first two one variable.
func queryPatterns(gp genPred) []Atom {
	free := Atom{Pred: gp.name}
	for i := range gp.arity {
		free.Args = append(free.Args, Term{Var: fmt.Sprint("V", i)})
	}
	out := []Atom{free}
	if gp.arity > 0 {
		c := Atom{Pred: gp.name, Args: append([]Term{{Const: "c1"}}, free.Args[1:]...)}
		out = append(out, c)
	}
	if gp.arity > 1 {
		rep := Atom{Pred: gp.name, Args: append([]Term{{Var: "X"}, {Var: "X"}}, free.Args[2:]...)}
		out = append(out, rep)
	}
	return out
}
