// Staging over a compiled world: the world of the same base with objects
// added to (or discarded from) the staged layer. Most changes are
// incremental: the index and the program are shared and changed in
// copies, the engine re-evaluates only the atoms and strata the change
// reaches, and only the checks whose inputs those feed run again. Staging
// takes that path for claims (facts, relations, events, before-facts,
// states, entities), same-as claims unless they bring the identity rules
// into the program (DL-0041), rules with a new name and predicate
// identities while no rule is left out, decisions (the valuation moves, the program does not),
// attacks (the attacked claim's atoms change support, the valuation
// moves), questions and answers, declarations and standing metadata;
// discarding does for the same kinds, and for rules only in a world
// without identities. Everything else (the
// first same-as claim where a rule reads a carried predicate, a change of
// the predicates the identity rules carry, a rule left out with a
// finding) recompiles from scratch.
// Either way the result equals Compile of the resulting input; a property
// test holds them to it.

package world

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync/atomic"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// Stage returns the world with add staged and the staged objects named in
// discard dropped.
func (w *World) Stage(add []objects.Object, discard []objects.ID) (*World, error) {
	return w.StageContext(context.Background(), add, discard)
}

// StageContext is Stage whose evaluation stops, with an error wrapping
// datalog's eval.canceled, when ctx is done (DL-0427).
func (w *World) StageContext(ctx context.Context, add []objects.Object, discard []objects.ID) (*World, error) {
	if w.legacy || w.hasArityConflicts() {
		// Which use of a predicate keeps it depends on all of them.
		return w.recompile(ctx, add, discard)
	}
	if len(discard) > 0 {
		nw, ok, err := w.discardAtoms(ctx, discard)
		if err != nil {
			return nil, err
		}
		if !ok {
			return w.recompile(ctx, add, discard)
		}
		w = nw
	}
	if len(add) == 0 {
		return w, nil
	}
	nw, ok, err := w.stageAtoms(ctx, add)
	if ok || err != nil {
		return nw, err
	}
	return w.recompile(ctx, add, nil)
}

// recompile compiles the staged input from scratch.
func (w *World) recompile(ctx context.Context, add []objects.Object, discard []objects.ID) (*World, error) {
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
	return Compile(Input{Scope: w.scope, Base: base, Staged: staged, Supposed: w.supposed, Dialects: w.dialects, legacy: w.legacy, Context: ctx})
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
		return true // whether the identity rules must change is checked once lowered
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
	case *objects.Dialect, *objects.Word, *objects.Name, *objects.Derivation, *objects.LedgerEntry:
		return true // atoms of their own, and checks of their own (language.go)
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
func (w *World) stageAtoms(ctx context.Context, add []objects.Object) (*World, bool, error) {
	entries := make([]Entry, 0, len(add))
	for _, o := range add {
		if !w.atomKind(o) {
			return nil, false, nil
		}
		id, err := o.ID()
		if err != nil {
			return nil, true, err
		}
		entries = append(entries, Entry{ID: id, Object: o, Staged: true})
	}
	return w.addEntries(ctx, entries)
}

// addEntries adds entries (staged, or committed for Advance) on the
// incremental path; ok is false when it does not apply.
func (w *World) addEntries(ctx context.Context, entries []Entry) (*World, bool, error) {
	names := false
	ruleNames := map[string]bool{}
	for _, e := range entries {
		o := e.Object
		if !w.atomKind(o) {
			return nil, false, nil
		}
		if r, ok := o.(*objects.Rule); ok {
			if ruleNames[r.Name] {
				return nil, false, nil // two rules of one name: rule.duplicate
			}
			ruleNames[r.Name] = true
		}
		switch o.(type) {
		case *objects.Entity, *objects.Event:
			names = true
		}
	}
	ix, fresh := w.ix.derive(entries)
	nw := w.share(ix)
	nw.evalCtx = ctx
	defer func() { nw.evalCtx = nil }()
	nw.inheritClosure(w, fresh)
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

// share makes a world over ix that shares everything else with w.
func (w *World) share(ix *index) *World {
	return &World{
		scope: w.scope, ix: ix, supposed: w.supposed,
		attacks: w.attacks, attacked: w.attacked,
		arity: w.arity, droppedRules: w.droppedRules,
		predIdentityRules: w.predIdentityRules, identityActive: w.identityActive, carry: w.carry, legacy: w.legacy,
		prog: w.prog, model: w.model, val: w.val, groups: w.groups, arityDropped: w.arityDropped,
		dialects: w.dialects,
	}
}

// lowerDelta adds the atoms and rules of fresh entries to a clone of the
// program, gives the claims that fresh attacks name their new supports
// (they had others in w, the world staged over), swaps the implications
// of questions whose current version changed and the same-as atoms fresh
// names affect, and evaluates it. ok is false when a new predicate or
// arity would need identity rules the program does not have, a rule would
// be left out with a finding (unbound variables, arity, stratification),
// or an attacked claim's support lives in rules: the caller recompiles.
func (nw *World) lowerDelta(w *World, fresh []Entry, claims []objects.ID) (map[string]bool, bool, error) {
	d := newDelta(nw)
	if ok, err := nw.lowerFresh(d, fresh); !ok || err != nil {
		return nil, ok, err
	}
	if len(claims) > 0 {
		isFresh := make(map[objects.ID]bool, len(fresh))
		for _, e := range fresh {
			isFresh[e.ID] = true
		}
		if !nw.resupport(d.prog, w.attacked, claims, isFresh, d.changed) {
			return nil, false, nil
		}
	}
	retaken := map[string]bool{}
	if !nw.reimply(d.prog, d.changed, w, questionsOf(fresh), d.note, retaken) ||
		!nw.reidentify(d.prog, d.changed, w, namesOf(fresh), w.ix.sameAs) {
		return nil, false, nil
	}
	if len(retaken) > 0 {
		d.arity = nw.recountArities(d.prog, d.arity, retaken)
	}
	for p := range retaken {
		d.noted[p] = true
	}
	if !nw.addPredIdentities(d, fresh) || nw.identityArityMoved(d) || nw.identityRulesStale(d.prog, d.arity) {
		return nil, false, nil
	}
	m, err := nw.eval(d.prog)
	if err != nil {
		if d.rules > 0 {
			return nil, false, nil // rule.unstratifiable: which rule is left out is the compile's call
		}
		return nil, true, err
	}
	nw.prog, nw.model, nw.arity = d.prog, m, d.arity
	incrementalRules.Add(int64(d.rules))
	return d.changed, true, nil
}

// delta is a change being lowered into a clone of a world's program: the
// arity table it extends (persistent: the parent world's is shared, not
// copied), the predicates it notes and changes, the rules it adds.
type delta struct {
	prog    *datalog.Program
	arity   arities
	noted   map[string]bool
	changed map[string]bool
	rules   int
}

func newDelta(nw *World) *delta {
	return &delta{prog: nw.prog.Clone(), arity: nw.arity, noted: map[string]bool{}, changed: map[string]bool{}}
}

// note records that pred is used with n arguments. The sets are shared
// with the parent world's table: a grown one is a copy.
func (d *delta) note(pred string, n int) {
	d.noted[pred] = true
	if old, _ := d.arity.get(pred); !old[n] {
		ns := map[int]bool{n: true}
		for m := range old {
			ns[m] = true
		}
		d.arity = d.arity.with(pred, ns)
	}
}

// add is lowerOne's sink: an authored atom of a claim.
func (d *delta) add(id objects.ID, s datalog.Poly, pred string, args ...string) error {
	d.note(pred, len(args))
	d.changed[pred] = true
	return d.prog.AddFact(pred, args, s)
}

// lowerFresh adds the atoms and rules of fresh entries; ok is false when a
// rule does not go in (its finding is the compile's to make).
func (nw *World) lowerFresh(d *delta, fresh []Entry) (bool, error) {
	for _, e := range fresh {
		switch o := e.Object.(type) {
		case *objects.SameAs:
			// Identity atoms are not authored atoms (lower keeps them
			// apart too); the identity rules read them.
			incrementalIdentity.Add(1)
			if args, ok := nw.sameAsAtom(e); ok {
				d.changed[predSameAs] = true
				if err := d.prog.AddFact(predSameAs, args, nw.support(e.ID, o.Provenance)); err != nil {
					return true, err
				}
			}
		case *objects.Rule:
			if d.prog.AddRule(toDatalogRule(o, scopedSupport(e.ID, o.Provenance))) != nil {
				return false, nil
			}
			d.note(o.Head.Pred, len(o.Head.Args))
			for _, l := range o.Body {
				d.note(l.Atom.Pred, len(l.Atom.Args))
			}
			d.changed[o.Head.Pred] = true
			d.rules++
		default:
			if err := nw.lowerOne(e, d.add); err != nil {
				var de *datalog.Error
				if errors.As(err, &de) && de.Code == datalog.CodeArityMismatch {
					return false, nil // an arity conflict: the compile's finding to make
				}
				return true, err
			}
		}
	}
	return true, nil
}

// addPredIdentities adds the rules of fresh predicate identities, under
// the arities of the whole batch; false when one does not go in.
func (nw *World) addPredIdentities(d *delta, fresh []Entry) bool {
	for _, e := range fresh {
		if _, ok := e.Object.(*objects.PredicateSameAs); !ok {
			continue
		}
		for _, r := range nw.predIdentityRulesOf(e, d.arity) {
			if d.prog.AddRule(r) != nil {
				return false
			}
			d.changed[r.Head.Pred] = true
			d.rules++
			nw.predIdentityRules++
		}
	}
	return true
}

// identityArityMoved reports whether the change gave a new arity to a
// predicate a predicate identity names: it makes no rules until one
// side's arity is known, so the rules would change. (Entity identity's
// carry rules are checked by identityRulesStale.)
func (nw *World) identityArityMoved(d *delta) bool {
	named := map[string]bool{}
	for _, e := range nw.ix.predSameAs {
		ps := e.Object.(*objects.PredicateSameAs)
		named[ps.Left], named[ps.Right] = true, true
	}
	for p := range d.noted {
		if named[p] && !d.arity.equal(nw.arity, p) {
			return true
		}
	}
	return false
}

// identityRulesStale reports whether the entity identity rules in prog
// differ from those a compile would lower under the arity table ar: the
// predicates rules read and identity carries moved, or links came to a
// program without the rules while some rule reads such a predicate.
func (nw *World) identityRulesStale(prog *datalog.Program, ar arities) bool {
	want := nw.engineCarry(ar)
	if nw.identityActive {
		return !maps.Equal(want, nw.carry)
	}
	_, links := prog.FactArity(predSameAs)
	return links && len(want) > 0
}

// reidentify lowers again the same-as claims (among claims) that name
// one of named: kinds and the chronology decide what identity may join
// (the chronology spine is refused), so a claim lowered in w may be
// refused now, or the other way round. ok is false when its atom is not
// where it was, or the last one goes while the identity rules are in the
// program (they would leave it); identityRulesStale judges a first one.
func (nw *World) reidentify(prog *datalog.Program, changed map[string]bool, w *World, named map[string]bool, claims kindVec) bool {
	if len(named) == 0 {
		return true
	}
	for e := range each(claims) {
		s := e.Object.(*objects.SameAs)
		if !named[s.Left] && !named[s.Right] {
			continue
		}
		before, was := w.sameAsAtom(e)
		after, is := nw.sameAsAtom(e)
		if was == is && slices.Equal(before, after) {
			continue
		}
		if was {
			if removed, empty := prog.RemoveSupport(predSameAs, before, w.support(e.ID, s.Provenance)); !removed || empty && !is && nw.identityActive {
				return false
			}
		}
		if is && prog.AddFact(predSameAs, after, nw.support(e.ID, s.Provenance)) != nil {
			return false
		}
		changed[predSameAs] = true
	}
	return true
}

// namesOf is the set of entity and event ids entries declare.
func namesOf(entries []Entry) map[string]bool {
	named := map[string]bool{}
	for _, e := range entries {
		switch o := e.Object.(type) {
		case *objects.Entity:
			named[o.Ident] = true
		case *objects.Event:
			named[o.Ident] = true
		}
	}
	return named
}

// reimply swaps the implications of the named questions whose current
// version changed from w to nw: w's version's implied atoms are taken
// back, nw's added (each under its option's variable). The predicates of
// the atoms taken back go into retaken: their arities must be recomputed.
// ok is false when an implied atom is not where w's version says.
func (nw *World) reimply(prog *datalog.Program, changed map[string]bool, w *World, idents map[string]bool, note func(string, int), retaken map[string]bool) bool {
	for ident := range idents {
		old, had := w.ix.questions[ident]
		cur, has := nw.ix.questions[ident]
		if had && has && old.id() == cur.id() {
			continue // an older version came or went: the current one stands
		}
		if had {
			for _, opt := range old.object().Options {
				if opt.Implies == nil {
					continue
				}
				if removed, _ := prog.RemoveSupport(opt.Implies.Pred, opt.Implies.Args, datalog.VarPoly(optionVar(opt.Ident))); !removed {
					return false
				}
				changed[opt.Implies.Pred], retaken[opt.Implies.Pred] = true, true
			}
		}
		if !has {
			continue
		}
		for _, opt := range cur.object().Options {
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

// questionsOf is the set of question ids entries hold versions of.
func questionsOf(entries []Entry) map[string]bool {
	out := map[string]bool{}
	for _, e := range entries {
		if q, ok := e.Object.(*objects.Question); ok {
			out[q.Ident] = true
		}
	}
	return out
}

// recountArities returns arity with those of preds set to what a compile
// would note: those of their facts in prog, and those the rules and the
// current question versions use.
func (nw *World) recountArities(prog *datalog.Program, arity arities, preds map[string]bool) arities {
	for p := range preds {
		ns := nw.declaredArity(p)
		if n, ok := prog.FactArity(p); ok {
			ns[n] = true
		}
		arity = arity.with(p, ns)
	}
	return arity
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
// program's rules (a rule, a predicate identity) or an atom is not where
// the old support says: the caller recompiles.
func (nw *World) resupport(prog *datalog.Program, old map[objects.ID]map[string]bool, claims []objects.ID, skip map[objects.ID]bool, changed map[string]bool) bool {
	for _, c := range claims {
		e, ok := nw.ix.byID.get(c)
		if !ok || skip[c] {
			continue
		}
		switch e.Object.(type) {
		case *objects.Rule, *objects.PredicateSameAs:
			continue // claim-scoped from the start: the valuation moves, not the program
		}
		if p, ok := objects.ProvenanceOf(e.Object); !ok || supportUnder(old, c, p).Equal(supportUnder(nw.attacked, c, p)) {
			continue
		}
		if s, ok := e.Object.(*objects.SameAs); ok {
			if !nw.resupportLink(prog, old, *e, s, changed) {
				return false
			}
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

// resupportLink gives a same-as claim's @sameas atom its new support (the
// identity closure reads it from the index; rules, if any, from the atom).
func (nw *World) resupportLink(prog *datalog.Program, old map[objects.ID]map[string]bool, e Entry, s *objects.SameAs, changed map[string]bool) bool {
	args, lowered := nw.sameAsAtom(e)
	if !lowered {
		return true // no atom: a self-merge or the chronology spine
	}
	if removed, _ := prog.RemoveSupport(predSameAs, args, supportUnder(old, e.ID, s.Provenance)); !removed {
		return false
	}
	if prog.AddFact(predSameAs, args, supportUnder(nw.attacked, e.ID, s.Provenance)) != nil {
		return false
	}
	changed[predSameAs] = true
	resupported.Add(1)
	return true
}

// Counters of the incremental paths taken: the tests check that the
// property test exercises each of them.
var (
	incrementalStages   atomic.Int64 // stages
	incrementalDiscards atomic.Int64 // discards
	incrementalRules    atomic.Int64 // rules staged or discarded
	incrementalIdentity atomic.Int64 // identity claims staged or discarded
	resupported         atomic.Int64 // attacked claims given their new supports
)
