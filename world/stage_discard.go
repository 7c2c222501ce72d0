// Discarding staged objects from a compiled world: the supports the gone
// claims gave are taken back from a clone of the program, attacked claims
// get their supports back, and the findings the gone entries carried go
// with them.

package world

import (
	"context"
	"maps"
	"slices"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// discardAtoms is the incremental path of a discard; ok is false when it
// does not apply.
func (w *World) discardAtoms(ctx context.Context, discard []objects.ID) (*World, bool, error) {
	ix, gone, ok := w.ix.discard(discard)
	if !ok {
		return nil, false, nil
	}
	nw := w.share(ix)
	nw.evalCtx = ctx
	defer func() { nw.evalCtx = nil }()
	if len(gone) == 0 {
		return nw, true, nil
	}
	prog := nw.prog.Clone()
	changed := map[string]bool{}
	if ok, err := nw.takeBack(w, prog, gone, changed); !ok || err != nil {
		return nil, ok, err
	}
	if claims := attackedClaims(gone); len(claims) > 0 {
		nw.attacks = ix.attacksByClaim()
		nw.attacked = attackedDecisions(nw.attacks)
		if !nw.resupport(prog, w.attacked, claims, nil, changed) {
			return nil, false, nil
		}
	}
	if !nw.reidentify(prog, changed, w, namesOf(gone), ix.sameAs) || nw.identityRulesStale(prog, nw.arity) {
		return nil, false, nil
	}
	m, err := nw.eval(prog)
	if err != nil {
		return nil, true, err
	}
	nw.prog, nw.model = prog, m
	if revalues(gone) {
		nw.val = nw.buildValuation()
	}
	nw.forgetFindings(w, gone)
	nw.rerunReached(changed, gone, false)
	incrementalDiscards.Add(1)
	return nw, true, nil
}

// takeBack takes the atoms and rules of the gone entries out of prog (the
// supports they had in w). ok is false when that is not exact: an atom is
// not where its claim says, a predicate identity rules are made for is
// left with no facts (its arity, and the rules, may change), or a rule's
// going could change which others a compile leaves out.
func (nw *World) takeBack(w *World, prog *datalog.Program, gone []Entry, changed map[string]bool) (bool, error) {
	exact := true
	emptied := map[string]bool{}
	take := func(_ objects.ID, s datalog.Poly, pred string, args ...string) error {
		changed[pred] = true
		removed, empty := prog.RemoveSupport(pred, args, s)
		exact = exact && removed
		if empty {
			emptied[pred] = true
		}
		return nil
	}
	var identities, rules int64
	for _, e := range gone {
		switch o := e.Object.(type) {
		case *objects.SameAs:
			identities++
			if args, ok := nw.sameAsAtom(e); ok {
				_ = take(e.ID, w.support(e.ID, o.Provenance), predSameAs, args...)
			}
		case *objects.PredicateSameAs:
			if len(w.droppedRules) > 0 {
				return false, nil
			}
			for _, r := range nw.predIdentityRulesOf(e, nw.arity) {
				nw.predIdentityRules -= prog.RemoveRule(r.Name)
				changed[r.Head.Pred] = true
			}
			identities++
		case *objects.Rule:
			// What is left of a world with no rule left out is stratified
			// and names each rule once.
			if len(w.droppedRules) > 0 || w.identityActive || len(w.ix.predSameAs) > 0 || prog.RemoveRule(o.Name) != 1 {
				return false, nil
			}
			changed[o.Head.Pred] = true
			rules++
			// The arities the rule noted go with it, unless used elsewhere.
			emptied[o.Head.Pred] = true
			for _, l := range o.Body {
				emptied[l.Atom.Pred] = true
			}
		case *objects.Question:
			// No atoms of its own: its implications are swapped below.
		default:
			if err := w.lowerOne(e, take); err != nil {
				return true, err
			}
		}
	}
	if qs := questionsOf(gone); len(qs) > 0 {
		// The current version of a question may fall back to an older one.
		if !nw.reimply(prog, changed, w, qs, func(p string, _ int) { emptied[p] = true }, emptied) {
			return false, nil
		}
	}
	if !exact || !nw.forgetArities(prog, emptied) {
		return false, nil
	}
	incrementalIdentity.Add(identities)
	incrementalRules.Add(rules)
	return true, nil
}

// forgetArities recomputes the arities of the predicates that lost their
// last fact or a rule's use: those of their facts in prog, and those the
// remaining rules and options use. ok is false when that moves a
// predicate a predicate identity names (its rules would change: a
// recompile; entity identity's are judged by identityRulesStale).
func (nw *World) forgetArities(prog *datalog.Program, emptied map[string]bool) bool {
	if len(emptied) == 0 {
		return true
	}
	named := map[string]bool{}
	for _, e := range nw.ix.predSameAs {
		ps := e.Object.(*objects.PredicateSameAs)
		named[ps.Left], named[ps.Right] = true, true
	}
	arity := nw.arity
	for p := range emptied {
		ns := nw.declaredArity(p)
		if n, ok := prog.FactArity(p); ok {
			ns[n] = true
		}
		if old, _ := arity.get(p); maps.Equal(ns, old) {
			continue
		}
		if named[p] {
			return false
		}
		arity = arity.with(p, ns)
	}
	nw.arity = arity
	return true
}

// forgetFindings drops the per-entry findings of the gone entries, and
// re-checks the citations of claims that cite a decision no longer
// recorded.
func (nw *World) forgetFindings(w *World, gone []Entry) {
	nw.groups = copyGroups(w.groups)
	cited := map[string]bool{}
	unrecorded := map[string]bool{}
	for _, e := range gone {
		cited[e.ID.String()] = true
		if d, ok := e.Object.(*objects.Decision); ok {
			if _, still := nw.ix.decisions[d.Ident]; !still {
				unrecorded[d.Ident] = true
			}
		}
	}
	for _, g := range []string{groupCitations, groupReferences} {
		nw.groups[g] = slices.DeleteFunc(slices.Clone(nw.groups[g]), func(f Finding) bool {
			return len(f.Citations) == 1 && cited[f.Citations[0]]
		})
	}
	if len(unrecorded) > 0 || len(gone) > 0 && nw.hasLedger() {
		nw.recite(unrecorded, gone)
	}
	if len(namesOf(gone)) > 0 || len(questionsOf(gone)) > 0 {
		// Claims may name what is gone, and candidates may be gone: the
		// references are checked again (one pass over the entries).
		var refs []Finding
		for e := range nw.ix.entries.all() {
			refs = append(refs, nw.referencesOf(e)...)
		}
		nw.groups[groupReferences] = refs
	}
}

// recite checks again the citations of every entry that names one of the
// decisions no longer recorded, and of every ledger record that names a
// claim now gone (one scan of the entries).
func (nw *World) recite(decisions map[string]bool, gone []Entry) {
	goneIDs := map[objects.ID]bool{}
	for _, e := range gone {
		goneIDs[e.ID] = true
	}
	var again []Entry
	cites := map[string]bool{}
	consider := func(e Entry) {
		if cites[e.ID.String()] {
			return
		}
		if slices.ContainsFunc(decisionsNamed(e.Object), func(d string) bool { return decisions[d] }) ||
			slices.ContainsFunc(claimsNamed(e.Object), func(c objects.ID) bool { return goneIDs[c] }) {
			again = append(again, e)
			cites[e.ID.String()] = true
		}
	}
	if len(decisions) > 0 {
		for e := range nw.ix.entries.all() {
			consider(e)
		}
	} else {
		// Only claims went: only the ledger records can name them.
		for _, es := range [][]Entry{nw.ix.attacks, nw.ix.standing, nw.ix.ratify} {
			for _, e := range es {
				consider(e)
			}
		}
	}
	kept := slices.DeleteFunc(slices.Clone(nw.groups[groupCitations]), func(f Finding) bool {
		return len(f.Citations) == 1 && cites[f.Citations[0]]
	})
	for _, e := range again {
		kept = append(kept, nw.citationsOf(e)...)
	}
	nw.groups[groupCitations] = kept
}

// hasLedger reports whether the world holds records that name claims.
func (nw *World) hasLedger() bool {
	return len(nw.ix.attacks)+len(nw.ix.standing)+len(nw.ix.ratify) > 0
}
