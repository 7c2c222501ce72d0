package datalog

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestNewPredicatesGrowStrata: a program given facts of new predicates one
// evaluation at a time, each in a clone of the last as a staged world
// does, extends its strata rather than computing them again, and the
// strata and the model equal those of a fresh evaluation at every step;
// the previous model's strata are found by position, not looked up.
func TestNewPredicatesGrowStrata(t *testing.T) {
	negRules := []trule{
		{"lieged", "lieged(X) :- liege(X, Y)", Poly{}},
		{"free", "free(X) :- person(X), not lieged(X)", Poly{}},
		{"far", "far(X, Z) :- liege(X, Y), liege(Y, Z)", Poly{}},
	}
	base := []tfact{{"edge(a, b)", One()}, {"edge(b, c)", One()}, {"liege(a, b)", One()}, {"person(a)", One()}, {"person(c)", One()}}
	tests := []struct {
		name  string
		rules []trule
		preds []string // the new predicates, in order of arrival
	}{
		{"recursion, names after", tcRules, []string{"q1", "q2", "zz", "q0"}},
		{"recursion, names before and between", tcRules, []string{"a", "edge0", "path1", "b", "aa", "pat"}},
		{"negation, names everywhere", negRules, []string{"fre", "a", "lieged0", "zzz", "m", "free0", "far0", "person1"}},
		{"no rules", nil, []string{"k3", "k1", "k2", "k10"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := build(t, base, tc.rules)
			m := evalOK(t, p)
			computed, byMap := strataComputed.Load(), oldByMap.Load()
			for i, pred := range tc.preds {
				p = p.Clone()
				must(t, p.AddFact(pred, []string{"a", fmt.Sprint(i)}, One()))
				added := 1
				if i%3 == 2 { // three at once, one named before every other
					added = 3
					must(t, p.AddFact(pred+"b", []string{"a"}, One()))
					must(t, p.AddFact("A"+pred, []string{"a"}, One()))
				}
				if i%2 == 1 {
					must(t, p.AddFact("edge", []string{"c", fmt.Sprint(i)}, One())) // and a fact of a known one
				}
				next, err := p.EvalFrom(m)
				must(t, err)
				if n := strataComputed.Load() - computed; n != 0 {
					t.Fatalf("after %s: the strata were computed %d times", pred, n)
				}
				if n := oldByMap.Load() - byMap; n != 0 {
					t.Fatalf("after %s: the previous strata were looked up by predicates %d times", pred, n)
				}
				grown, err := p.stratify()
				must(t, err)
				fresh, err := p.computeStrata()
				must(t, err)
				computed++
				names := p.preds.snapshot()
				if g, f := renderStrata(grown, names), renderStrata(fresh, names); !slices.Equal(g, f) {
					t.Fatalf("after %s: grown strata differ from computed:\n%v\n%v", pred, g, f)
				}
				scratch := p.Clone()
				scratch.strat, scratch.last = nil, nil
				want := evalOK(t, scratch)
				computed++
				if got, w := fullDump(next), fullDump(want); got != w {
					t.Fatalf("after %s: model differs from a fresh evaluation:\n%s\n---\n%s", pred, got, w)
				}
				if s := next.Stats(); s.Reused+s.Maintained < s.Strata-added {
					t.Fatalf("after %s: only %d of %d strata reused or maintained", pred, s.Reused+s.Maintained, s.Strata)
				}
				m = next
			}
		})
	}
}

// renderStrata lists st's strata in the order it gives them, each with its
// predicates, rules, recursion and the strata it reads (by their first
// predicate): what a stratification says, whatever its indices.
func renderStrata(st *stratification, names nameList) []string {
	var out []string
	for _, i := range st.order(names) {
		s := st.strata.at(i)
		var b strings.Builder
		for _, pred := range s.preds {
			b.WriteString(names.at(pred) + " ")
		}
		for _, r := range s.rules {
			b.WriteString(r.rule.Name + " ")
		}
		fmt.Fprintf(&b, "rec=%v reads", s.recursive)
		for _, k := range s.inputs {
			b.WriteString(" " + names.at(st.strata.at(k).preds[0]))
		}
		if st.of(s.preds[0]) != i {
			b.WriteString(" misplaced")
		}
		out = append(out, b.String())
	}
	return out
}
