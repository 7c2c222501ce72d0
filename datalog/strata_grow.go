// This file extends a cached stratification by predicates that arrived
// with facts alone, so that a program staged one new predicate at a time
// does not compute its strata from scratch on every evaluation, and
// gives the order a fresh computation would list the strata in.

package datalog

import (
	"slices"
	"sort"
	"strings"
)

// growStrata returns st extended by the predicates p began to use after
// the first used (p.uses), each as a stratum of its own appended to st's,
// sharing st's tables. The caller holds that p's rules are st's: every
// predicate a rule names was in use when st was computed (AddRule fixes
// their arities), so one that came since has no rule defining or reading
// it, and no stratum of st reads it. A predicate never falls out of use
// (an arity, once fixed, stays).
func (p *Program) growStrata(st *stratification, used int) *stratification {
	gen := versionClock.Add(1)
	out := &stratification{strata: st.strata.clone(), stratOf: st.stratOf.clone(), ncomp: st.ncomp,
		upto: st.upto, ruled: st.ruled, id: gen, base: st.id, readers: st.readers}
	out.stratOf.grow(p.npred(), -1, gen)
	for k := used; k < p.uses.len(); k++ {
		v := p.uses.at(k)
		out.stratOf.set(int(v), out.strata.len(), gen)
		out.strata.push(&strat{preds: []uint32{v}}, gen)
	}
	return out
}

// order returns the indices of st's strata in the order computeStrata
// would give them (names: the predicates' names). computeStrata orders
// the components by Kahn's algorithm, the component of smallest name
// first among those ready. A component nothing reads and that reads
// nothing is ready from the start and moves no other, so it is taken just
// before the first of the others' order whose smallest name is greater
// than its own: the grown strata are merged into the computed ones by
// name (DL-0481).
func (st *stratification) order(names nameList) []int {
	grown := make([]int, 0, st.strata.len()-st.ncomp)
	for i := st.ncomp; i < st.strata.len(); i++ {
		grown = append(grown, i)
	}
	name := func(i int) string { return names.at(st.strata.at(i).preds[0]) }
	slices.SortFunc(grown, func(a, b int) int { return strings.Compare(name(a), name(b)) })
	out := make([]int, 0, st.strata.len())
	k := 0
	for _, g := range grown {
		at := sort.Search(len(st.upto), func(j int) bool { return st.upto[j] > name(g) })
		for ; k < at; k++ {
			out = append(out, k)
		}
		out = append(out, g)
	}
	for ; k < st.ncomp; k++ {
		out = append(out, k)
	}
	return out
}
