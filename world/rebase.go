// A compiled world moved onto its entries where they are kept (DL-0532):
// a first compile decodes every committed entry to lower it, and once it
// is lowered the entries are needed only as a restored world needs them,
// a few at a time. Moved onto the world file written beside the compile,
// the decoded ones are let go before the evaluation, whose peak they
// would otherwise raise by about a third at 10M objects.

package world

import "github.com/deloreis/deloreis/base/phases"

// PhaseRebase is the phase (DL-0503) of moving a lowered world's entries
// onto the base written beside it, from asking for the base to telling
// the caller whether it was taken: the wait for its writer, and what the
// caller does once told (a collection), are in it.
const PhaseRebase = "compile: entries moved onto the world file"

// rebaser returns the step that moves w onto the base get gives, once
// the entry checks, which read w's index, are done (checks, nil when none
// run).
func (w *World) rebaser(get func(int) (EntryBase, func(bool)), checks func() ([]Finding, []Finding)) func() {
	return func() {
		end := phases.Start(PhaseRebase)
		defer end()
		base, done := get(w.ix.entries.n)
		if base == nil {
			return
		}
		taken := false
		if done != nil {
			defer func() { done(taken) }()
		}
		if checks != nil {
			checks()
		}
		taken = w.rebaseOnto(base)
	}
}

// rebaseOnto points w's index at base, which must hold w's committed
// entries (and w no staged ones): the same count and, at both ends, the
// same ids. It reports whether it did; a base that does not fit is
// refused and w left as it was.
func (w *World) rebaseOnto(base EntryBase) bool {
	old := w.ix
	n := old.entries.n
	if old.stagedFrom.entries != n || base.Len() != n {
		return false
	}
	if n > 0 && (base.ID(0) != old.entries.id(0) || base.ID(n-1) != old.entries.id(n-1)) {
		return false
	}
	ix, err := newLazyIndex(base)
	if err != nil {
		return false
	}
	w.ix = ix
	if w.lowered != nil && w.lowered.ix == old {
		w.lowered.ix = ix
	}
	return true
}
