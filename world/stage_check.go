// The checks of a staged world: the per-entry findings of what arrived,
// and a re-run of each check group the change can reach.

package world

import (
	"slices"

	"github.com/deloreis/deloreis/objects"
)

// copyGroups copies the finding groups so that appends never write into
// the original's arrays.
func copyGroups(gs map[string][]Finding) map[string][]Finding {
	out := make(map[string][]Finding, len(gs))
	for g, fs := range gs {
		out[g] = fs[:len(fs):len(fs)]
	}
	return out
}

// checkDelta re-runs the checks the new atoms can reach and extends the
// per-entry ones with the new entries' findings.
func (nw *World) checkDelta(w *World, fresh []Entry, changed map[string]bool, names bool) {
	groups := copyGroups(w.groups)
	nw.groups = groups
	if names {
		// New entities or events may resolve references reported before.
		// The rest get their candidates again: a new name may be closer.
		kept := []Finding{}
		for _, f := range groups[groupReferences] {
			if f.Code != CodeEntityUnknown {
				kept = append(kept, f)
				continue
			}
			id, _ := f.Data["entity"].(string)
			if nw.ix.known(id) {
				// An event's era that is known now may be no era.
				kept = append(kept, nw.eraAgain(f)...)
				continue
			}
			f.Repair = &Repair{Kind: "resolve-entity", Candidates: nw.candidates(id)}
			kept = append(kept, f)
		}
		groups[groupReferences] = kept
	}
	if opensQuestion(fresh) {
		// An answer staged before its question named an unknown entity.
		nw.rereference(func(f Finding) bool {
			id, _ := f.Data["entity"].(string)
			_, q := nw.ix.questions[id]
			return q
		})
	}
	if revalues(fresh) {
		// Claims citing a decision recorded now no longer cite an unknown one.
		groups[groupCitations] = slices.DeleteFunc(slices.Clone(groups[groupCitations]), func(f Finding) bool {
			d, _ := f.Data["decision"].(string)
			_, known := nw.ix.decisions[d]
			return f.Code == CodeCitationUnknownDecision && known
		})
	}
	// Ledger records naming a claim staged now no longer name an unknown one.
	groups[groupCitations] = slices.DeleteFunc(slices.Clone(groups[groupCitations]), func(f Finding) bool {
		if f.Code != CodeCitationUnknownClaim {
			return false
		}
		id, err := objects.ParseID(f.Data["claim"].(string))
		known := nw.ix.byID.has(id)
		return err == nil && known
	})
	for _, e := range fresh {
		groups[groupCitations] = append(groups[groupCitations], nw.citationsOf(e)...)
		groups[groupReferences] = append(groups[groupReferences], nw.referencesOf(e)...)
	}
	nw.rerunReached(changed, fresh, true)
}

func opensQuestion(entries []Entry) bool {
	for _, e := range entries {
		if _, ok := e.Object.(*objects.Question); ok {
			return true
		}
	}
	return false
}

// rereference checks again the references of the entries cited by the
// reference findings stale selects.
func (nw *World) rereference(stale func(Finding) bool) {
	again := map[string]bool{}
	for _, f := range nw.groups[groupReferences] {
		if stale(f) && len(f.Citations) == 1 {
			again[f.Citations[0]] = true
		}
	}
	if len(again) == 0 {
		return
	}
	kept := slices.DeleteFunc(slices.Clone(nw.groups[groupReferences]), func(f Finding) bool {
		return len(f.Citations) == 1 && again[f.Citations[0]]
	})
	for cite := range again {
		id, err := objects.ParseID(cite)
		if err != nil {
			continue
		}
		if e, ok := nw.ix.byID.get(id); ok {
			kept = append(kept, nw.referencesOf(*e)...)
		}
	}
	nw.groups[groupReferences] = kept
}

// revalues reports whether entries move the valuation (record a
// decision, attack one, open a question or answer one, cite a decision
// from a rule or a predicate identity).
func revalues(entries []Entry) bool {
	for _, e := range entries {
		switch o := e.Object.(type) {
		case *objects.Decision, *objects.Attack, *objects.Question:
			return true
		case *objects.Rule, *objects.PredicateSameAs:
			// Their decisions are claim-scoped variables (scopedSupport),
			// which the valuation must name.
			if p, ok := objects.ProvenanceOf(o); ok && p.Kind == objects.ProvenanceCited {
				return true
			}
		case *objects.Fact:
			if o.Key == answerKey {
				return true
			}
		}
	}
	return false
}

// rerunReached re-runs the checks that the changed entries (staged, or
// discarded when staged is false), and atoms of the changed predicates,
// can reach.
func (nw *World) rerunReached(changed map[string]bool, entries []Entry, staged bool) {
	states, identity, declared, kinds := false, false, false, false
	var links []Entry
	for _, e := range entries {
		switch e.Object.(type) {
		case *objects.State:
			states = true
		case *objects.SameAs:
			identity = true
			links = append(links, e)
		case *objects.PredicateSameAs:
			identity = true
		case *objects.Entity, *objects.Event:
			// Kinds and the chronology decide what identity may join.
			kinds = kinds || nw.ix.sameAs.n > 0
		case *objects.Functional, *objects.Inertial:
			declared = true
		}
	}
	switch {
	case kinds || !staged && len(links) > 0:
		nw.rerun(groupIdentity, nw.checkIdentity)
	case len(links) > 0:
		// A staged link's findings are its own: the others stand.
		nw.checkIdentityOf(slices.Values(links))
	}
	revalued := revalues(entries)
	// The entity classes the functional and fluent checks compare values
	// under move with identity, kinds, and (which claims are certain) the
	// valuation.
	identity = identity || kinds || revalued
	var preds []string
	for p := range changed {
		preds = append(preds, p)
	}
	deps := nw.prog.Dependents(preds...)
	reaches := func(p string) bool { _, ok := slices.BinarySearch(deps, p); return ok }
	nw.rerun(groupArity, nw.checkPredicateIdentity)
	if revalued || reaches(predBefore) {
		nw.rerun(groupChronology, nw.checkChronology)
	}
	if declared || len(nw.ix.functional) > 0 && (identity || nw.policyReaches(deps)) {
		nw.rerun(groupFunctional, nw.checkFunctional)
	}
	if declared || len(nw.ix.inertial) > 0 && (states || identity || reaches(predBefore) || nw.policyReaches(deps)) {
		nw.rerun(groupFluents, nw.checkFluents)
	}
	nw.rerunLanguage(entries, staged, revalued) // language.go
}

// policyReaches reports whether any of preds belongs to a predicate
// identity component, or is declared functional or inertial.
func (w *World) policyReaches(preds []string) bool {
	declared := map[string]bool{}
	for _, e := range append(append([]Entry(nil), w.ix.functional...), w.ix.inertial...) {
		declared[declPred(e.Object)] = true
	}
	for _, c := range w.predicateComponents(false) {
		for _, m := range c.members {
			declared[m] = true
		}
	}
	for _, p := range preds {
		if declared[p] {
			return true
		}
	}
	return false
}

// eraAgain checks again the era of the event an entity.unknown finding
// cites, once the id it named is known.
func (nw *World) eraAgain(f Finding) []Finding {
	if len(f.Citations) != 1 {
		return nil
	}
	id, err := objects.ParseID(f.Citations[0])
	if err != nil {
		return nil
	}
	if e, ok := nw.ix.byID.get(id); ok {
		if ev, ok := e.Object.(*objects.Event); ok {
			return nw.eraOf(*e, ev)
		}
	}
	return nil
}
