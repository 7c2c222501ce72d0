// This file holds FuzzEvalFrom: a program decoded from bytes, then a few
// changes decoded from the same bytes read backwards, each evaluated from
// the previous model. Its seed corpus runs in plain go test.

package datalog

import (
	"fmt"
	"slices"
	"testing"
)

// FuzzEvalFrom: after every change (a fact added, removed or taken back,
// a rule removed or put back), the model EvalFrom derives must equal a
// from-scratch evaluation of the same program — atoms, supports,
// truncation flags — and fail exactly when that one fails.
func FuzzEvalFrom(f *testing.F) {
	for _, seed := range programSeeds {
		f.Add(seed)
	}
	f.Add([]byte("recursion, negation and a few removals"))
	f.Add([]byte{1, 1, 3, 0, 2, 2, 1, 0, 0, 1, 4, 2, 2, 1, 3, 0, 1, 2, 4, 4, 3, 2, 1, 0, 0, 2, 2, 3, 1, 0, 4, 1, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 512 {
			return
		}
		p, cur, b := loadFuzzed(t, data)
		prev, err := p.Eval()
		if err != nil {
			return
		}
		back := slices.Clone(data)
		slices.Reverse(back)
		s := &byteSource{b: back}
		var removed []Rule
		for step := 0; step < 6 && !s.done(); step++ {
			what := incrStep(s, p, &cur, &removed)
			m, err := p.EvalFrom(prev)
			fp, ferr := cur.load(identity(len(cur.facts)), identity(len(cur.rules)), b)
			if ferr != nil {
				t.Fatalf("step %d (%s): the program's own facts and rules do not load: %v", step, what, ferr)
			}
			fm, ferr := fp.Eval()
			if (err == nil) != (ferr == nil) {
				t.Fatalf("step %d (%s): EvalFrom error %v, from scratch %v", step, what, err, ferr)
			}
			if err != nil {
				requireTyped(t, err)
				continue
			}
			if got, want := fullDump(m), fullDump(fm); got != want {
				t.Fatalf("step %d (%s): EvalFrom\n%s\nfrom scratch\n%s", step, what, got, want)
			}
			prev = m
		}
	})
}

// incrStep applies one change decoded from s to p and to its plain form,
// and says what it did.
func incrStep(s *byteSource, p *Program, cur *nProgram, removed *[]Rule) string {
	switch k := s.next(5); {
	case k == 0 || len(cur.facts) == 0:
		fa := nFact{pred: fmt.Sprintf("q%d", s.next(5))}
		for range s.next(4) {
			fa.args = append(fa.args, fmt.Sprintf("k%d", s.next(4)))
		}
		fa.sup = One()
		if s.next(2) == 0 {
			fa.sup = VarPoly(fmt.Sprintf("x%d", s.next(5)))
		}
		if p.AddFact(fa.pred, fa.args, fa.sup) != nil {
			return "add refused"
		}
		cur.facts = append(cur.facts, fa)
		return fmt.Sprintf("add %s = %v", renderAtom(fa.pred, fa.args), fa.sup)
	case k == 1:
		fa := cur.facts[s.next(len(cur.facts))]
		p.RemoveFact(fa.pred, fa.args)
		cur.facts = slices.DeleteFunc(cur.facts, func(g nFact) bool { return g.pred == fa.pred && slices.Equal(g.args, fa.args) })
		return "remove " + renderAtom(fa.pred, fa.args)
	case k == 2:
		i := s.next(len(cur.facts))
		fa := cur.facts[i]
		p.RemoveSupport(fa.pred, fa.args, fa.sup)
		cur.facts = slices.Delete(cur.facts, i, i+1)
		return fmt.Sprintf("take back %s -= %v", renderAtom(fa.pred, fa.args), fa.sup)
	case k == 3 && len(cur.rules) > 0:
		i := s.next(len(cur.rules))
		r := cur.rules[i]
		p.RemoveRule(r.Name)
		cur.rules = slices.Delete(cur.rules, i, i+1)
		*removed = append(*removed, r)
		return "remove rule " + r.Name
	case len(*removed) > 0:
		i := s.next(len(*removed))
		r := (*removed)[i]
		if p.AddRule(r) != nil {
			return "put back refused"
		}
		*removed = slices.Delete(*removed, i, i+1)
		cur.rules = append(cur.rules, r)
		return "put back rule " + r.Name
	}
	return "nothing"
}
