// This file extends a cached stratification by predicates that arrived
// with facts alone, so that a program staged one new predicate at a time
// does not compute its strata from scratch on every evaluation.

package datalog

import (
	"slices"
	"strings"
)

// growStrata returns st extended by the predicates p uses that st does not
// cover, each as a stratum of its own, in the order computeStrata gives;
// ok is false when p stopped using one of st's predicates. The caller
// holds that p's rules are st's: every predicate a rule names was in use
// when st was computed (AddRule fixes their arities), so one that came
// since has no rule defining or reading it, and no stratum of st reads it.
//
// computeStrata orders the components by Kahn's algorithm, the component
// of smallest name first among those ready. A component nothing reads and
// that reads nothing is ready from the start and moves no other, so it is
// taken just before the first of the others' order whose smallest name is
// greater than its own: the new strata are merged into st's by name.
func (p *Program) growStrata(st *stratification) (*stratification, bool) {
	var fresh []uint32
	for v, a := range p.arity {
		in := v < len(st.stratOf) && st.stratOf[v] >= 0
		switch {
		case a >= 0 && !in:
			fresh = append(fresh, uint32(v))
		case a < 0 && in:
			return nil, false
		}
	}
	names := p.preds.snapshot()
	slices.SortFunc(fresh, func(a, b uint32) int { return strings.Compare(names.at(a), names.at(b)) })
	out := &stratification{strata: make([]strat, 0, len(st.strata)+len(fresh)), stratOf: make([]int, len(p.arity))}
	moved := make([]int, len(st.strata)) // st's stratum index → out's
	at := make([]int, len(fresh))        // fresh[j]'s stratum
	j := 0
	take := func(bound string, all bool) {
		for ; j < len(fresh) && (all || names.at(fresh[j]) < bound); j++ {
			at[j] = len(out.strata)
			out.strata = append(out.strata, strat{preds: fresh[j : j+1 : j+1]})
		}
	}
	for k := range st.strata {
		take(names.at(st.strata[k].preds[0]), false)
		if j == len(fresh) {
			// The rest keeps its order, j places on: copied in one go.
			for i := k; i < len(st.strata); i++ {
				moved[i] = i + j
			}
			out.strata = append(out.strata, st.strata[k:]...)
			break
		}
		moved[k] = len(out.strata)
		out.strata = append(out.strata, st.strata[k])
	}
	take("", true)
	for v := range out.stratOf {
		out.stratOf[v] = -1
		if v < len(st.stratOf) && st.stratOf[v] >= 0 {
			out.stratOf[v] = moved[st.stratOf[v]]
		}
	}
	for j, v := range fresh {
		out.stratOf[v] = at[j]
	}
	for i := range out.strata {
		s := &out.strata[i]
		if len(s.inputs) == 0 {
			continue
		}
		ins := make([]int, len(s.inputs)) // the mapping keeps them sorted
		for k, d := range s.inputs {
			ins[k] = moved[d]
		}
		s.inputs = ins
	}
	return out, true
}
