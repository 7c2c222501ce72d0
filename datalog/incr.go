// This file holds incremental evaluation: building a model from a previous
// one stratum by stratum. A stratum whose rules, facts and inputs did not
// change is shared. One whose facts or inputs changed is maintained in
// place when it is exact (no provenance, or exact supports): its relations
// become new versions of the old ones, written only where the change
// reaches (incr_maint.go). Anything else — changed rules or bounds, a
// stratum with cut supports or reading truncated atoms, a removal reaching
// a recursive stratum, maintenance that would leave the bounds — is
// evaluated from scratch, and what it changed is found by comparing the
// new relations with the old ones.

package datalog

import (
	"slices"
	"sync/atomic"
)

// applier builds one model from a previous one.
type applier struct {
	p       *Program
	prev    *Model // nil: everything from scratch
	m       *Model
	old     map[string]*stratResult // prev's strata by predicates
	changes map[uint32]*relChange   // by pred id: what changed, once known
	noCur   []int                   // all -1: plans over prev's relations
	ids     []uint64                // scratch for a stratum's sorted rule ids
	off     int                     // strata of new predicates met so far (oldStrat)
	partial bool                    // only the strata the change reaches are visited (incr_dirty.go)
	visited []uint32                // their predicates
}

// relChange lists the atoms of one predicate whose presence or support
// differs between the previous model and the new one.
type relChange struct {
	rows []chRow
}

// chRow is one changed atom: its row in the previous model's relation and
// in the new one, -1 where absent.
type chRow struct{ old, new int64 }

func newApplier(p *Program, prev *Model, m *Model) *applier {
	a := &applier{p: p, prev: prev, m: m, changes: map[uint32]*relChange{}}
	if prev != nil {
		a.noCur = minusOnes(prev.rels.len())
	}
	return a
}

// noCurs holds a slice of -1s that only grows, shared read-only by every
// applier (plans over a previous model's relations read it, never write it).
var noCurs atomic.Pointer[[]int]

// minusOnes returns n -1s, never to be written.
func minusOnes(n int) []int {
	if s := noCurs.Load(); s != nil && len(*s) >= n {
		return (*s)[:n:n]
	}
	s := make([]int, max(2*n, 64)) // doubling: a program that grows a predicate at a time allocates rarely
	for i := range s {
		s[i] = -1
	}
	noCurs.Store(&s)
	return s[:n:n]
}

// oldStrat returns the previous model's result of the stratum of s's
// predicates, i-th in the new program: usually the i-th of prev, or the
// (i-off)-th when off strata of new predicates came before it (the strata
// of a staged program are those of its base, and those of the facts it
// added), else found by its predicates.
func (a *applier) oldStrat(i int, s *strat) *stratResult {
	if a.prev == nil {
		return nil
	}
	if k := i - a.off; k < a.prev.strata.len() && slices.Equal(a.prev.strata.at(k).preds, s.preds) {
		return a.prev.strata.at(k)
	}
	if a.fresh(s) {
		// A stratum of predicates prev did not have (growStrata put it
		// in): those after it are prev's one place on.
		a.off++
		return nil
	}
	if a.old == nil {
		oldByMap.Add(1)
		a.old = make(map[string]*stratResult, a.prev.strata.len())
		for k := range a.prev.strata.len() {
			s := a.prev.strata.at(k)
			a.old[packKey(0, s.preds)] = s
		}
	}
	return a.old[packKey(0, s.preds)]
}

// oldByMap counts the appliers that looked the previous strata up by
// their predicates, for the tests that hold new predicates to the cheap
// path.
var oldByMap atomic.Int64

// fresh reports whether no predicate of s was in prev's program.
func (a *applier) fresh(s *strat) bool {
	if a.prev.strat == nil {
		return false // no table to tell by
	}
	for _, pred := range s.preds {
		if a.prev.stratOf(pred) >= 0 {
			return false
		}
	}
	return true
}

// ruleIDs appends the sorted ids of rules to ids[:0].
func ruleIDs(ids []uint64, rules []*ruleRec) []uint64 {
	ids = ids[:0]
	for _, r := range rules {
		ids = append(ids, r.id)
	}
	slices.Sort(ids)
	return ids
}

// stratum evaluates or maintains stratum s, the i-th, appending its result.
func (a *applier) stratum(i int, s *strat) {
	a.m.strata.push(a.resultOf(s, a.oldStrat(i, s)), a.m.gen)
}

// resultOf evaluates or maintains stratum s from old, the previous
// model's result of it (nil: none), and returns the new result.
func (a *applier) resultOf(s *strat, old *stratResult) *stratResult {
	if len(s.rules) == 0 && old != nil && old.reused && len(old.rules) == 0 && a.sameFacts(s, old) {
		// Facts alone, not changed (most strata of a program staged
		// fact by fact): what the path below finds, without the scratch.
		a.share(s)
		return old
	}
	// The ids are sorted in scratch and the previous model's slice shared
	// when equal (neither is ever written), so that a staged add allocates
	// none for an unchanged stratum; likewise its fact sets, and the whole
	// result when the previous model had reused it too.
	a.ids = ruleIDs(a.ids, s.rules)
	var ids []uint64
	same := old != nil && slices.Equal(old.ruleID, a.ids)
	if same {
		ids = old.ruleID
		if old.reused && a.unchanged(s, old) {
			a.share(s)
			return old
		}
	} else {
		ids = slices.Clone(a.ids)
	}
	res := &stratResult{preds: s.preds, rules: s.rules, ruleID: ids, facts: a.factsOf(s, old)}
	if !same || !a.maintain(s, old, res) {
		*res = a.fromScratch(s, res.ruleID, res.facts)
		a.m.evalStratum(a.p, s, res)
	}
	return res
}

// fromScratch is the result of stratum s, with rules of ids and the fact
// sets facts, before it is evaluated from scratch; what changed of its
// predicates is forgotten (the evaluation makes them anew).
func (a *applier) fromScratch(s *strat, ids []uint64, facts []*factSet) stratResult {
	for _, pred := range s.preds {
		delete(a.changes, pred)
	}
	return stratResult{preds: s.preds, rules: s.rules, ruleID: ids, facts: facts}
}

// sameFacts reports whether s's predicates have old's fact sets.
func (a *applier) sameFacts(s *strat, old *stratResult) bool {
	if len(old.facts) != len(s.preds) {
		return false
	}
	for k, pred := range s.preds {
		if old.facts[k] != a.p.fact(pred) {
			return false
		}
	}
	return true
}

// factsOf returns the fact sets of s's predicates: old's slice when they
// are the same.
func (a *applier) factsOf(s *strat, old *stratResult) []*factSet {
	if old != nil && len(old.facts) == len(s.preds) {
		same := true
		for k, pred := range s.preds {
			same = same && old.facts[k] == a.p.fact(pred)
		}
		if same {
			return old.facts
		}
	}
	facts := make([]*factSet, 0, len(s.preds))
	for _, pred := range s.preds {
		facts = append(facts, a.p.fact(pred))
	}
	return facts
}

// unchanged reports whether stratum s would take old over as it is: the
// same predicates, rules and fact sets, and no input of it changed.
func (a *applier) unchanged(s *strat, old *stratResult) bool {
	if !slices.Equal(old.preds, s.preds) || !slices.Equal(old.rules, s.rules) {
		return false
	}
	for k, pred := range s.preds {
		if old.facts[k] != a.p.fact(pred) {
			return false
		}
	}
	for _, q := range inputPreds(s, a.m.strat) {
		if a.m.rel(q) != a.prevRel(q) && (old.mode == modeCut || len(a.change(q).rows) > 0) {
			return false
		}
	}
	return true
}

// prevRel returns the previous model's relation of pred, or nil.
func (a *applier) prevRel(pred uint32) *relation {
	if a.prev == nil {
		return nil
	}
	return a.prev.rel(pred)
}

// change returns what changed in pred's relation, comparing the relations
// when the stratum that defines pred did not record it.
func (a *applier) change(pred uint32) *relChange {
	if c := a.changes[pred]; c != nil {
		return c
	}
	old, cur := a.prevRel(pred), a.m.rel(pred)
	if old == cur {
		return noChange // taken over: recorded nowhere, so that sharing writes nothing
	}
	c := diffRel(old, cur)
	a.changes[pred] = c
	return c
}

// diffRel compares two relations of one predicate atom by atom.
func diffRel(old, cur *relation) *relChange {
	c := &relChange{}
	for _, row := range cur.liveRows() {
		o, ok := int64(-1), false
		if old != nil {
			var r uint32
			r, ok = old.find(cur.row(row))
			o = int64(r)
		}
		switch {
		case !ok:
			c.rows = append(c.rows, chRow{-1, int64(row)})
		case !samePoly(old.poly(uint32(o)), cur.poly(row)) || old.tainted(uint32(o)) != cur.tainted(row):
			c.rows = append(c.rows, chRow{o, int64(row)})
		}
	}
	if old == nil {
		return c
	}
	for _, row := range old.liveRows() {
		if _, ok := cur.find(old.row(row)); !ok {
			c.rows = append(c.rows, chRow{int64(row), -1})
		}
	}
	return c
}

// samePoly reports whether two absorbed polynomials have the same
// monomials.
func samePoly(a, b ipoly) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			if x.sig == y.sig && slices.Equal(x.lits, y.lits) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// dominates reports whether every monomial of old has a subset in cur:
// whatever old derived, cur derives with no more literals.
func dominates(cur, old ipoly) bool {
	for _, o := range old {
		if !absorbedBy(cur, o) {
			return false
		}
	}
	return true
}

// maintain updates stratum s from old in place, or reports false when it
// must be evaluated from scratch.
func (a *applier) maintain(s *strat, old, res *stratResult) bool {
	facts := make([][]uint32, len(s.preds))
	changed := false
	for i, pred := range s.preds {
		rows, ok := factDiff(old.facts[i], a.p.fact(pred))
		if !ok {
			return false
		}
		facts[i], changed = rows, changed || len(rows) > 0
	}
	moved := false
	for _, q := range inputPreds(s, a.m.strat) {
		if a.m.rel(q) != a.prevRel(q) {
			moved = true
			changed = changed || len(a.change(q).rows) > 0
		}
	}
	if !changed && (!moved || old.mode != modeCut) {
		a.reuse(s, old, res)
		return true
	}
	if old.mode == modeCut || needsProvenance(a.p, a.m, s) != old.poly ||
		old.poly && (inputsTainted(a.m, s) || factsTruncated(a.p, s)) {
		return false
	}
	for _, pred := range s.preds {
		if r := a.prev.rel(pred); r.dead > 1024 && r.dead > r.live {
			return false // compact by re-evaluating
		}
	}
	mt := newMaint(a, s, old, res, facts)
	defer mt.release()
	if s.recursive {
		return mt.recursive()
	}
	return mt.flat()
}

// noChange is the change of a relation taken over unchanged (never
// written: a maintained stratum's changes are new relChanges).
var noChange = &relChange{}

// share takes the relations of stratum s over from the previous model
// (change finds them unchanged: the same relation).
func (a *applier) share(s *strat) {
	for _, pred := range s.preds {
		a.m.rels.set(int(pred), a.prev.rel(pred), a.m.gen)
		delete(a.changes, pred)
	}
}

// reuse takes stratum s over from the previous model unchanged.
func (a *applier) reuse(s *strat, old, res *stratResult) {
	a.share(s)
	res.region, res.poly, res.mode, res.held, res.reused = old.region, old.poly, old.mode, old.held, true
}

// inputPreds returns the predicates of earlier strata that s's rules read.
func inputPreds(s *strat, st *stratification) []uint32 {
	var out []uint32
	self := st.of(s.preds[0])
	for _, r := range s.rules {
		for _, lits := range [][]catom{r.pos, r.neg} {
			for _, at := range lits {
				if st.of(at.pred) != self && !slices.Contains(out, at.pred) {
					out = append(out, at.pred)
				}
			}
		}
	}
	return out
}

// How a change of an input atom acts on a stratum.
const (
	chSkip   = iota // no effect
	chAdd           // only adds derivations, or supports they dominate
	chRemove        // removes derivations, or shrinks supports
)

// classifyPos classifies a changed atom read by a positive body atom.
func classifyPos(old, cur *relation, c chRow) int {
	switch {
	case c.old < 0:
		return chAdd
	case c.new < 0:
		return chRemove
	case old.tainted(uint32(c.old)) != cur.tainted(uint32(c.new)):
		return chRemove
	}
	op, np := old.poly(uint32(c.old)), cur.poly(uint32(c.new))
	switch {
	case samePoly(op, np):
		return chSkip
	case dominates(np, op):
		return chAdd
	}
	return chRemove
}

// negState is an atom's state as a negated literal sees it: absent (the
// literal holds), One (it fails), or possible (it contributes "not q(a)").
func negState(r *relation, row int64) int {
	switch {
	case row < 0:
		return 0
	case r.poly(uint32(row)).isOne():
		return 1
	}
	return 2
}

// classifyNeg classifies a changed atom read by a negated literal.
func classifyNeg(old, cur *relation, c chRow) int {
	o, n := negState(old, c.old), negState(cur, c.new)
	switch {
	case o == n:
		return chSkip // a possible atom's literal is the same whatever its support
	case n == 1 || o == 0:
		return chRemove // now blocked, or now carries the literal
	}
	return chAdd
}

// classifyFact classifies a changed fact of the stratum's own predicate.
func classifyFact(old, cur *factSet, row uint32) int {
	oe, ne := liveFact(old, row), liveFact(cur, row)
	switch {
	case oe == nil && ne == nil:
		return chSkip
	case oe == nil:
		return chAdd
	case ne == nil:
		return chRemove
	case samePoly(oe.sup, ne.sup):
		return chSkip
	case dominates(ne.sup, oe.sup):
		return chAdd
	}
	return chRemove
}

// liveFact returns the fact of row in f, nil when f has no live fact there.
func liveFact(f *factSet, row uint32) *factEntry {
	if f == nil || int(row) >= f.tab.n || !f.tab.alive(row) {
		return nil
	}
	return f.entry(row)
}
