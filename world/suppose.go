// Supposition as a staging step: a fork's hypotheses pinned true move only
// the valuation, so the world with them is the same program graded anew,
// not a compile (koan 2: a fork is exploration over an unchanged store).

package world

import (
	"slices"
	"sort"
)

// Suppose returns the world with exactly hyps supposed true (in place of
// the hypotheses supposed before). The program, the index and every
// finding that does not read a grade are shared with w; the checks that
// read grades run again. It equals Compile with Input.Supposed = hyps.
func (w *World) Suppose(hyps []string) *World {
	supposed := slices.Clone(hyps)
	sort.Strings(supposed)
	supposed = slices.Compact(supposed)
	nw := w.share(w.ix)
	nw.supposed = supposed
	nw.val = nw.buildValuation()
	nw.groups = copyGroups(w.groups)
	nw.rerun(groupIdentity, nw.checkIdentity)
	nw.rerun(groupArity, nw.checkPredicateIdentity)
	nw.rerun(groupChronology, nw.checkChronology)
	nw.rerun(groupFunctional, nw.checkFunctional)
	nw.rerun(groupFluents, nw.checkFluents)
	return nw
}
