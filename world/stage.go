// Staging over a compiled world: the world of the same base with objects
// added to (or discarded from) the staged layer. Most changes are
// incremental: the index and the program are shared and changed in
// copies, the engine re-evaluates only the atoms and strata the change
// reaches, and only the checks whose inputs those feed run again. Staging
// takes that path for claims (facts, relations, events, before-facts,
// states, entities), same-as claims once the identity rules are in the
// program, rules with a new name and predicate identities while no rule
// is left out, decisions (the valuation moves, the program does not),
// attacks (the attacked claim's atoms change support, the valuation
// moves), questions and answers, declarations and standing metadata;
// discarding does for the same kinds but entities, events and questions,
// and for rules only in a world without identities. Everything
// else (the first same-as claim, a change that gives a predicate its first
// or loses its last fact under identity rules, a rule left out with a
// finding) recompiles from scratch. Either way the result equals Compile
// of the resulting input; a property test holds them to it.

package world

import (
	"slices"
	"sync/atomic"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// Stage returns the world with add staged and the staged objects named in
// discard dropped.
func (w *World) Stage(add []objects.Object, discard []objects.ID) (*World, error) {
	if len(discard) > 0 {
		nw, ok, err := w.discardAtoms(discard)
		if err != nil {
			return nil, err
		}
		if !ok {
			return w.recompile(add, discard)
		}
		w = nw
	}
	if len(add) == 0 {
		return w, nil
	}
	nw, ok, err := w.stageAtoms(add)
	if ok || err != nil {
		return nw, err
	}
	return w.recompile(add, nil)
}

// recompile compiles the staged input from scratch.
func (w *World) recompile(add []objects.Object, discard []objects.ID) (*World, error) {
	drop := map[objects.ID]bool{}
	for _, id := range discard {
		drop[id] = true
	}
	var base []Entry
	var staged []objects.Object
	for e := range w.ix.entries.all() {
		switch {
		case e.Staged && drop[e.ID]:
		case e.Staged:
			staged = append(staged, e.Object)
		default:
			base = append(base, e)
		}
	}
	staged = append(staged, add...)
	return Compile(Input{Scope: w.scope, Base: base, Staged: staged, Supposed: w.supposed})
}

// atomKind reports whether staging an object can take the incremental
// path: it only adds atoms, or (a same-as claim while the identity rules
// are already in the program, a rule whose name no rule has while none
// is left out) adds what the program can take without lowering again.
func (w *World) atomKind(o objects.Object) bool {
	switch x := o.(type) {
	case *objects.Fact, *objects.Relation, *objects.Event, *objects.Before, *objects.State, *objects.Entity:
		return true
	case *objects.SameAs:
		return w.identityActive
	case *objects.Rule:
		// While a rule is left out, which rules a compile leaves out
		// depends on all of them together: only a clean world takes it.
		return len(w.droppedRules) == 0 && !w.ruleNamed(x.Name)
	case *objects.PredicateSameAs:
		return len(w.droppedRules) == 0
	case *objects.Decision:
		return true // no atoms: it moves the valuation, not the program
	case *objects.Functional, *objects.Inertial, *objects.Standing, *objects.Ratify, *objects.Hypothesis:
		return true // no atoms, no grades: declarations configure checks, the rest is metadata
	case *objects.Attack:
		return true // the attacked claim's atoms change support (see resupport)
	case *objects.Question:
		return true // its current version's implications replace the last one's
	}
	return false
}

// ruleNamed reports whether a rule of the world, in the program or left
// out of it, has the name.
func (w *World) ruleNamed(name string) bool {
	for _, e := range w.ix.rules {
		if e.Object.(*objects.Rule).Name == name {
			return true
		}
	}
	return false
}

// stageAtoms is the incremental path; ok is false when it does not apply.
func (w *World) stageAtoms(add []objects.Object) (*World, bool, error) {
	entries := make([]Entry, 0, len(add))
	names := false
	ruleNames := map[string]bool{}
	for _, o := range add {
		if !w.atomKind(o) {
			return nil, false, nil
		}
		if r, ok := o.(*objects.Rule); ok {
			if ruleNames[r.Name] {
				return nil, false, nil // two rules of one name: rule.duplicate
			}
			ruleNames[r.Name] = true
		}
		id, err := o.ID()
		if err != nil {
			return nil, true, err
		}
		entries = append(entries, Entry{ID: id, Object: o, Staged: true})
		switch o.(type) {
		case *objects.Entity, *objects.Event:
			names = true
		}
	}
	if names && len(w.ix.sameAs) > 0 {
		return nil, false, nil // kinds and the chronology decide what identity may join
	}
	ix, fresh := w.ix.derive(entries)
	nw := w.share(ix)
	if len(fresh) == 0 {
		return nw, true, nil
	}
	claims := attackedClaims(fresh)
	if len(claims) > 0 {
		nw.attacks = ix.attacksByClaim()
		nw.attacked = attackedDecisions(nw.attacks)
	}
	changed, ok, err := nw.lowerDelta(w, fresh, claims)
	if !ok || err != nil {
		return nil, ok, err
	}
	if revalues(fresh) {
		nw.val = nw.buildValuation()
	}
	nw.checkDelta(w, fresh, changed, names)
	incrementalStages.Add(1)
	return nw, true, nil
}

// incrementalStages counts the stages that took the incremental path (the
// tests check that the property test exercises it).
var incrementalStages atomic.Int64

// share makes a world over ix that shares everything else with w.
func (w *World) share(ix *index) *World {
	return &World{
		scope: w.scope, ix: ix, supposed: w.supposed,
		attacks: w.attacks, attacked: w.attacked,
		arity: w.arity, authored: w.authored, authoredFrom: w.authoredFrom, droppedRules: w.droppedRules,
		predIdentityRules: w.predIdentityRules, identityActive: w.identityActive,
		prog: w.prog, model: w.model, val: w.val, groups: w.groups,
	}
}

// lowerDelta adds the atoms and rules of fresh entries to a clone of the
// program, gives the claims that fresh attacks name their new supports
// (they had those in w, the world staged over), replaces the implications
// of questions whose current version changed, and evaluates it. ok is
// false when
// a new predicate or arity would need identity rules the program does not
// have, a rule would be left out with a finding (unbound variables,
// arity, stratification), or an attacked claim's support lives in rules:
// the caller recompiles.
func (nw *World) lowerDelta(w *World, fresh []Entry, claims []objects.ID) (map[string]bool, bool, error) {
	prog := nw.prog.Clone()
	arity := arities{}
	for p, ns := range nw.arity {
		arity[p] = ns
	}
	noted := map[string]bool{}
	note := func(pred string, n int) {
		noted[pred] = true
		if !arity[pred][n] {
			ns := map[int]bool{n: true}
			for m := range arity[pred] {
				ns[m] = true
			}
			arity[pred] = ns
		}
	}
	changed := map[string]bool{}
	var authored []lowered
	add := func(id objects.ID, s datalog.Poly, pred string, args ...string) error {
		authored = append(authored, lowered{pred: pred, args: args, claim: id})
		note(pred, len(args))
		changed[pred] = true
		return prog.AddFact(pred, args, s)
	}
	rules := 0
	for _, e := range fresh {
		switch o := e.Object.(type) {
		case *objects.SameAs:
			// Identity atoms are not authored atoms (lower keeps them
			// apart too); the identity rules read them.
			incrementalIdentity.Add(1)
			if args, ok := nw.sameAsAtom(e); ok {
				changed[predSameAs] = true
				if err := prog.AddFact(predSameAs, args, nw.support(e.ID, o.Provenance)); err != nil {
					return nil, true, err
				}
			}
			continue
		case *objects.Rule:
			if prog.AddRule(toDatalogRule(o, nw.support(e.ID, o.Provenance))) != nil {
				return nil, false, nil
			}
			note(o.Head.Pred, len(o.Head.Args))
			for _, l := range o.Body {
				note(l.Atom.Pred, len(l.Atom.Args))
			}
			changed[o.Head.Pred] = true
			rules++
			continue
		}
		if err := nw.lowerOne(e, add); err != nil {
			return nil, true, err
		}
	}
	if len(claims) > 0 {
		isFresh := make(map[objects.ID]bool, len(fresh))
		for _, e := range fresh {
			isFresh[e.ID] = true
		}
		if !nw.resupport(prog, w.attacked, claims, isFresh, changed) {
			return nil, false, nil
		}
	}
	if !nw.reimply(prog, w, fresh, note, changed) {
		return nil, false, nil
	}
	// Predicate identities, under the arities of the whole batch.
	for _, e := range fresh {
		if _, ok := e.Object.(*objects.PredicateSameAs); !ok {
			continue
		}
		for _, r := range nw.predIdentityRulesOf(e, arity) {
			if prog.AddRule(r) != nil {
				return nil, false, nil
			}
			changed[r.Head.Pred] = true
			rules++
			nw.predIdentityRules++
		}
	}
	// Identity rules are made per predicate and arity, and a predicate
	// identity makes none until one side's arity is known: a new
	// predicate or arity then changes the rules.
	if nw.identityActive || len(nw.ix.predSameAs) > 0 {
		for p := range noted {
			if len(arity[p]) != len(nw.arity[p]) {
				return nil, false, nil // a new predicate or arity: identity rules change
			}
		}
	}
	m, err := prog.Eval()
	if err != nil {
		if rules > 0 {
			return nil, false, nil // rule.unstratifiable: which rule is left out is the compile's call
		}
		return nil, true, err
	}
	nw.prog, nw.model, nw.arity = prog, m, arity
	nw.authored = nw.authored.append(authored...)
	incrementalRules.Add(int64(rules))
	return changed, true, nil
}

// reimply swaps the implications of every question whose current
// version fresh changed: the old version's implied atoms are taken back,
// the new one's added (each under its option's variable). ok is false
// when an implied atom is not where the old version says.
func (nw *World) reimply(prog *datalog.Program, w *World, fresh []Entry, note func(string, int), changed map[string]bool) bool {
	done := map[string]bool{}
	for _, e := range fresh {
		q, ok := e.Object.(*objects.Question)
		if !ok || done[q.Ident] {
			continue
		}
		done[q.Ident] = true
		old, had := w.ix.questions[q.Ident]
		cur := nw.ix.questions[q.Ident]
		if had && old.id == cur.id {
			continue // an older version: the current one stands
		}
		if had {
			for _, opt := range old.obj.Options {
				if opt.Implies == nil {
					continue
				}
				if removed, _ := prog.RemoveSupport(opt.Implies.Pred, opt.Implies.Args, datalog.VarPoly(optionVar(opt.Ident))); !removed {
					return false
				}
				changed[opt.Implies.Pred] = true
			}
		}
		for _, opt := range cur.obj.Options {
			if opt.Implies == nil {
				continue
			}
			note(opt.Implies.Pred, len(opt.Implies.Args))
			if prog.AddFact(opt.Implies.Pred, opt.Implies.Args, datalog.VarPoly(optionVar(opt.Ident))) != nil {
				return false
			}
			changed[opt.Implies.Pred] = true
		}
	}
	return true
}

// attackedClaims lists the claims the attacks among entries are about.
func attackedClaims(entries []Entry) []objects.ID {
	var out []objects.ID
	for _, e := range entries {
		if a, ok := e.Object.(*objects.Attack); ok {
			out = append(out, a.Claim)
		}
	}
	return out
}

// resupport gives the atoms of the claims named the supports they have
// under the world's attacks, where they had those under old (an attack on
// a claim turns the attacked decision in its support into a claim-scoped
// variable). Claims not in the world, and those in skip (lowered anew),
// have nothing to change. ok is false when a claim's support lives in the
// program's rules (a rule, an identity claim) or an atom is not where
// the old support says: the caller recompiles.
func (nw *World) resupport(prog *datalog.Program, old map[objects.ID]map[string]bool, claims []objects.ID, skip map[objects.ID]bool, changed map[string]bool) bool {
	for _, c := range claims {
		e, ok := nw.ix.byID.get(c)
		if !ok || skip[c] {
			continue
		}
		switch e.Object.(type) {
		case *objects.Rule, *objects.SameAs, *objects.PredicateSameAs:
			return false
		}
		if p, ok := provenanceOf(e.Object); !ok || supportUnder(old, c, p).Equal(supportUnder(nw.attacked, c, p)) {
			continue
		}
		found := true
		_ = lowerUnder(old, *e, func(_ objects.ID, s datalog.Poly, pred string, args ...string) error {
			removed, _ := prog.RemoveSupport(pred, args, s)
			found = found && removed
			changed[pred] = true
			return nil
		})
		if !found || lowerUnder(nw.attacked, *e, func(_ objects.ID, s datalog.Poly, pred string, args ...string) error {
			return prog.AddFact(pred, args, s)
		}) != nil {
			return false
		}
		resupported.Add(1)
	}
	return true
}

// resupported counts the claims resupport changed (the tests check that
// the property test exercises it).
var resupported atomic.Int64

// discardAtoms is the incremental path of a discard; ok is false when it
// does not apply.
func (w *World) discardAtoms(discard []objects.ID) (*World, bool, error) {
	ix, gone, ok := w.ix.discard(discard)
	if !ok {
		return nil, false, nil
	}
	nw := w.share(ix)
	if len(gone) == 0 {
		return nw, true, nil
	}
	prog := nw.prog.Clone()
	changed := map[string]bool{}
	lost := true // every atom of the gone claims was found, and no predicate emptied
	take := func(id objects.ID, s datalog.Poly, pred string, args ...string) error {
		changed[pred] = true
		removed, empty := prog.RemoveSupport(pred, args, s)
		// A predicate left with no facts may leave the arity table (and
		// with it the identity rules): that is a recompile.
		lost = lost && removed && !empty
		return nil
	}
	drop := map[objects.ID]bool{}
	cited := map[string]bool{}
	var identities, rules int64
	for _, e := range gone {
		drop[e.ID], cited[e.ID.String()] = true, true
		switch o := e.Object.(type) {
		case *objects.SameAs:
			identities++
			if args, ok := nw.sameAsAtom(e); ok {
				_ = take(e.ID, nw.support(e.ID, o.Provenance), predSameAs, args...)
			}
			continue
		case *objects.PredicateSameAs:
			if len(w.droppedRules) > 0 {
				return nil, false, nil
			}
			for _, r := range nw.predIdentityRulesOf(e, nw.arity) {
				nw.predIdentityRules -= prog.RemoveRule(r.Name)
				changed[r.Head.Pred] = true
			}
			identities++
			continue
		case *objects.Rule:
			// What is left of a world with no rule left out is stratified
			// and names each rule once; the arity table may keep the
			// rule's predicates, which only identity rules would read.
			if len(w.droppedRules) > 0 || w.identityActive || len(w.ix.predSameAs) > 0 || prog.RemoveRule(o.Name) != 1 {
				return nil, false, nil
			}
			changed[o.Head.Pred] = true
			rules++
			continue
		}
		if err := nw.lowerOne(e, take); err != nil {
			return nil, true, err
		}
	}
	if !lost {
		return nil, false, nil
	}
	if claims := attackedClaims(gone); len(claims) > 0 {
		nw.attacks = ix.attacksByClaim()
		nw.attacked = attackedDecisions(nw.attacks)
		if !nw.resupport(prog, w.attacked, claims, nil, changed) {
			return nil, false, nil
		}
	}
	m, err := prog.Eval()
	if err != nil {
		return nil, true, err
	}
	nw.prog, nw.model = prog, m
	if revalues(gone) {
		nw.val = nw.buildValuation()
	}
	nw.authored = w.authored.filterTail(w.authoredFrom, func(l lowered) bool { return !drop[l.claim] })
	nw.groups = copyGroups(w.groups)
	for _, g := range []string{groupCitations, groupReferences} {
		nw.groups[g] = slices.DeleteFunc(slices.Clone(nw.groups[g]), func(f Finding) bool {
			return len(f.Citations) == 1 && cited[f.Citations[0]]
		})
	}
	unrecorded := map[string]bool{}
	for _, e := range gone {
		if d, ok := e.Object.(*objects.Decision); ok {
			if _, still := nw.ix.decisions[d.Ident]; !still {
				unrecorded[d.Ident] = true
			}
		}
	}
	if len(unrecorded) > 0 {
		nw.recite(unrecorded)
	}
	nw.rerunReached(changed, gone)
	incrementalDiscards.Add(1)
	incrementalIdentity.Add(identities)
	incrementalRules.Add(rules)
	return nw, true, nil
}

// recite checks again the citations of every claim that cites one of
// the decisions no longer recorded (one scan of the entries).
func (nw *World) recite(decisions map[string]bool) {
	var again []Entry
	cites := map[string]bool{}
	for e := range nw.ix.entries.all() {
		p, ok := provenanceOf(e.Object)
		if ok && p.Kind == objects.ProvenanceCited && slices.ContainsFunc(p.Decisions, func(d string) bool { return decisions[d] }) {
			again = append(again, e)
			cites[e.ID.String()] = true
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

// incrementalRules counts the rules staged or discarded on the incremental
// paths.
var incrementalRules atomic.Int64

// incrementalIdentity counts the same-as claims staged or discarded on
// the incremental paths.
var incrementalIdentity atomic.Int64

// incrementalDiscards counts the discards that took the incremental path.
var incrementalDiscards atomic.Int64

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
			id, _ := f.Data["entity"].(string)
			if nw.ix.known(id) {
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
	for _, e := range fresh {
		groups[groupCitations] = append(groups[groupCitations], nw.citationsOf(e)...)
		groups[groupReferences] = append(groups[groupReferences], nw.referencesOf(e)...)
	}
	nw.rerunReached(changed, fresh)
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
// decision, attack one, open a question or answer one).
func revalues(entries []Entry) bool {
	for _, e := range entries {
		switch o := e.Object.(type) {
		case *objects.Decision, *objects.Attack, *objects.Question:
			return true
		case *objects.Fact:
			if o.Key == answerKey {
				return true
			}
		}
	}
	return false
}

// rerunReached re-runs the checks that the changed entries, and atoms of
// the changed predicates, can reach.
func (nw *World) rerunReached(changed map[string]bool, entries []Entry) {
	states, identity, declared := false, false, false
	for _, e := range entries {
		switch e.Object.(type) {
		case *objects.State:
			states = true
		case *objects.SameAs, *objects.PredicateSameAs:
			identity = true
		case *objects.Functional, *objects.Inertial:
			declared = true
		}
	}
	revalued := revalues(entries)
	if identity || revalued {
		// The identity findings, and the entity classes the functional
		// and fluent checks compare values under (which claims are
		// certain, when the valuation moved).
		identity = true
		nw.rerun(groupIdentity, nw.checkIdentity)
	}
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
