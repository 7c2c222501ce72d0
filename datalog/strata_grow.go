// This file extends a cached stratification by predicates that arrived
// with facts alone, so that a program staged one new predicate at a time
// does not compute its strata from scratch on every evaluation.

package datalog

import (
	"slices"
	"sort"
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
	// at[j]: the place in st's order fresh[j] goes before.
	at := make([]int, len(fresh))
	for j, v := range fresh {
		name := names.at(v)
		at[j] = sort.Search(len(st.upto), func(k int) bool { return st.upto[k] > name })
	}
	n := len(st.strata) + len(fresh)
	out := &stratification{strata: make([]*strat, 0, n), stratOf: make([]int, len(p.arity)), upto: make([]string, 0, n),
		id: versionClock.Add(1), base: st.id, at: at, readers: st.readers}
	from := 0
	for j, v := range fresh {
		out.strata = append(out.strata, st.strata[from:at[j]]...)
		out.upto = append(out.upto, st.upto[from:at[j]]...)
		out.strata = append(out.strata, &strat{preds: fresh[j : j+1 : j+1]})
		out.upto = append(out.upto, names.at(v)) // greater than all before it, less than the next
		from = at[j]
	}
	out.strata = append(out.strata, st.strata[from:]...)
	out.upto = append(out.upto, st.upto[from:]...)
	// moved gives st's k-th stratum its place in out: k and the number of
	// new ones before it.
	moved := func(k int) int { return k + sort.SearchInts(at, k+1) }
	for v := range out.stratOf {
		out.stratOf[v] = -1
		if v < len(st.stratOf) && st.stratOf[v] >= 0 {
			out.stratOf[v] = moved(st.stratOf[v])
		}
	}
	for j, v := range fresh {
		out.stratOf[v] = at[j] + j
	}
	for _, k := range st.ruled {
		out.ruled = append(out.ruled, moved(k))
		i := len(out.ruled) - 1
		s := st.strata[k]
		if len(s.inputs) == 0 || moved(s.inputs[len(s.inputs)-1]) == s.inputs[len(s.inputs)-1] {
			continue // nothing it reads moved
		}
		c := *s
		c.inputs = make([]int, len(s.inputs)) // the mapping keeps them sorted
		for k, d := range s.inputs {
			c.inputs[k] = moved(d)
		}
		out.strata[out.ruled[i]] = &c
	}
	return out, true
}
