// This file sets up and finishes the evaluation of one stratum from
// scratch: deciding whether it carries polynomials, trying the exact
// evaluation (exact.go), and otherwise the round-based one with cuts —
// loading the facts, compiling the plans, merging each round's
// contributions — and recording the ground rule instances of truncated
// atoms for exact grading.

package datalog

import "weak"

// How a stratum was evaluated.
const (
	modeSets  uint8 = iota // no provenance: every support One
	modeExact              // exact supports, within the bounds
	modeCut                // round-based with cuts: supports may be truncated
)

// stratResult is what a model keeps of one stratum.
type stratResult struct {
	preds  []uint32
	rules  []*ruleRec
	ruleID []uint64   // sorted
	facts  []*factSet // by preds: the fact sets evaluated
	region *region    // ground instances of the stratum's truncated atoms, or nil
	poly   bool
	mode   uint8
	held   int // monomials the stratum's rows hold (modeExact)
	reused bool
	kept   bool // maintained incrementally from the previous model
}

// evalStratum evaluates stratum s of m into fresh relations: exactly when
// the stratum carries polynomials, reads no truncated atom and its exact
// supports fit the bounds; otherwise round by round with cuts.
func (m *Model) evalStratum(p *Program, s *strat, res *stratResult) {
	defer func() {
		for _, pred := range s.preds {
			m.curIdx[pred] = -1
		}
	}()
	res.poly = needsProvenance(p, m, s)
	if res.poly && !inputsTainted(m, s) && !factsTruncated(p, s) && m.evalExact(p, s, res) {
		return
	}
	res.mode, res.held, res.region = modeSets, 0, nil
	if res.poly {
		res.mode = modeCut
	}
	m.evalRounds(p, s, res)
}

// newEvaluator sets up the evaluation of stratum s into fresh relations.
func (m *Model) newEvaluator(p *Program, s *strat, poly bool) *evaluator {
	e := &evaluator{m: m, ar: &m.arena, bounds: p.bounds, curIdx: m.curIdx, negIDs: map[uint64]uint32{}, poly: poly, g: m.guard}
	if m.atOnce {
		e.ar = new(arena) // other strata copy into the model's at the same time
	}
	for i, pred := range s.preds {
		rel := newRelation(pred, p.arityOf(pred), m.gen)
		if poly {
			rel.enableProvenance()
		}
		m.rels.set(int(pred), rel, m.gen)
		m.curIdx[pred] = i
		e.cur = append(e.cur, rel)
	}
	e.lim = make([]uint32, len(e.cur))
	e.delta = make([]deltaSet, len(e.cur))
	e.pidx = make([][]int32, len(e.cur))
	return e
}

// compilePlans compiles, per rule, the full plan and one delta plan per
// body atom of the stratum.
func (e *evaluator) compilePlans(rules []*ruleRec) {
	pl := &planner{rels: &e.m.rels, curIdx: e.curIdx}
	e.plans = e.plans[:0]
	for _, r := range rules {
		ps := []*plan{pl.compile(r, -1)}
		for i, a := range r.pos {
			if e.curIdx[a.pred] >= 0 {
				ps = append(ps, pl.compile(r, i))
			}
		}
		e.plans = append(e.plans, ps)
	}
}

// evalRounds is round-based semi-naive evaluation, with cuts.
func (m *Model) evalRounds(p *Program, s *strat, res *stratResult) {
	e := m.newEvaluator(p, s, res.poly)
	info := m.lits.snapshot()
	for i, pred := range s.preds {
		if len(s.rules) == 0 {
			// Rules would append to a shared table, cutting its flat form.
			rel, shared := e.factRel(i, p.fact(pred))
			e.loadFacts(p.fact(pred), rel, shared, info)
			continue
		}
		e.loadFacts(p.fact(pred), e.cur[i], false, info)
	}
	for i, rel := range e.cur {
		e.lim[i] = uint32(rel.n)
	}
	e.compilePlans(s.rules)
	if e.kept > e.bounds.MaxStratumMonomials {
		e.relational = true
	}
	e.run()
	if e.poly && anyTaint(e.cur) {
		res.region = e.groundRegion(p, s)
	}
}

// needsProvenance reports whether a stratum must carry polynomials: some
// rule has its own support, some relation it reads does, or some fact of
// its predicates does.
func needsProvenance(p *Program, m *Model, s *strat) bool {
	for _, r := range s.rules {
		if !r.allOne {
			return true
		}
		for _, a := range append(r.pos[:len(r.pos):len(r.pos)], r.neg...) {
			if m.stratOf(a.pred) != m.stratOf(s.preds[0]) && !m.rel(a.pred).allOne() {
				return true
			}
		}
	}
	for _, pred := range s.preds {
		if f := p.fact(pred); f != nil && f.nonOne > 0 {
			return true
		}
	}
	return false
}

// inputsTainted reports whether a rule of s reads, positively, a relation
// of an earlier stratum that holds truncated atoms.
func inputsTainted(m *Model, s *strat) bool {
	for _, r := range s.rules {
		for _, a := range r.pos {
			if m.stratOf(a.pred) != m.stratOf(s.preds[0]) && m.rel(a.pred).ntaint > 0 {
				return true
			}
		}
	}
	return false
}

// factsTruncated reports whether some fact of s has a truncated support.
func factsTruncated(p *Program, s *strat) bool {
	for _, pred := range s.preds {
		if f := p.fact(pred); f != nil && f.ntrunc > 0 {
			return true
		}
	}
	return false
}

// factRel returns the relation that stratum predicate i, of facts f
// alone, is loaded into, and whether it holds them already: a version of
// f's own table when no fact was removed from it (the same rows in the
// same order as inserting the live facts anew), so that a model shares
// the tuples and hash of its facts with the program, and their supports'
// handles when no fact has an entry of its own (DL-0356); else the fresh
// relation newEvaluator made.
func (e *evaluator) factRel(i int, f *factSet) (*relation, bool) {
	if f == nil || f.tab.dead > 0 {
		return e.cur[i], false
	}
	rel := f.tab.derive(e.m.gen)
	// The model's indexes are built in its own relation, not in the fact
	// table (its parent), which would then keep them up to date on every
	// fact the program adds.
	rel.parent, rel.pn = weak.Pointer[relation]{}, 0
	switch {
	case e.poly && f.more.rows() == 0 && f.ents.rows() == f.tab.n:
		// Every support is One or a unit, and the fact set's handles say
		// which: they are the relation's support handles as they stand.
		rel.hasPolys, rel.prefs = true, f.ents
		rel.pbase, rel.pstore = nil, newPvecShift[ipoly](1, wideShift, rel.gen)
	case e.poly:
		rel.enableProvenance()
	}
	e.m.rels.set(int(rel.pred), rel, e.m.gen)
	e.cur[i] = rel
	return rel, true
}

// loadFacts inserts a predicate's facts (unless rel holds them: shared);
// with provenance each row gets the fact's support, cut to the bounds (a
// cut row is tainted).
func (e *evaluator) loadFacts(f *factSet, rel *relation, shared bool, info litList) {
	f.each(func(row uint32, args []uint32, fe *factEntry) {
		if !shared {
			row, _ = rel.insert(args)
		}
		if !e.poly {
			return
		}
		var tb []tmono
		cut := fe.truncated()
		for _, mo := range fe.sup {
			if len(mo.lits) > e.bounds.MaxMonomialSize {
				cut = true
				continue
			}
			tb = append(tb, tmono{mono: mo})
		}
		tb, c := cutPoly(tb, e.bounds.MaxMonomials, info)
		rel.setPoly(row, untag(tb))
		rel.setTaint(row, cut || c)
		e.kept += len(tb)
	})
}

func untag(tb []tmono) ipoly {
	if len(tb) == 0 {
		return nil
	}
	p := make(ipoly, len(tb))
	for i, t := range tb {
		p[i] = t.mono
	}
	return p
}

func anyTaint(rels []*relation) bool {
	for _, r := range rels {
		if r.ntaint > 0 {
			return true
		}
	}
	return false
}

// endRound turns the round's new rows (and, with provenance, its merged
// contributions) into the next delta and makes the new rows visible.
func (e *evaluator) endRound() {
	for i := range e.delta {
		e.delta[i].rows = e.delta[i].rows[:0]
		e.delta[i].mons = e.delta[i].mons[:0]
	}
	if !e.poly {
		for i, rel := range e.cur {
			if e.added != nil {
				e.delta[i].rows = append(e.delta[i].rows, e.added[i]...)
				e.added[i] = e.added[i][:0]
			} else {
				for row := e.lim[i]; row < uint32(rel.n); row++ {
					e.delta[i].rows = append(e.delta[i].rows, row)
				}
			}
			e.lim[i] = uint32(rel.n)
		}
		return
	}
	if e.overflow {
		e.relational = true
	}
	info := e.m.lits.snapshot()
	for k := range e.pend {
		e.merge(&e.pend[k], info)
		e.pidx[e.pend[k].cur][e.pend[k].row] = -1
	}
	e.pend, e.pm = e.pend[:0], e.pm[:0]
	if e.kept > e.bounds.MaxStratumMonomials {
		e.relational = true
	}
	e.overflow, e.generated = false, 0
	for i, rel := range e.cur {
		e.lim[i] = uint32(rel.n)
	}
}

// merge folds one row's pending contributions into its polynomial: old
// monomials a new one absorbs go, the rest is cut to MaxMonomials, and the
// new monomials that stay form the row's delta. Once the stratum is out of
// budget (relational), a touched row is only tainted, unless it became
// unconditional. A row whose support is One is exact, so never tainted.
func (e *evaluator) merge(pe *pendEntry, info litList) {
	rel := e.cur[pe.cur]
	row := pe.row
	old := rel.poly(row)
	if old.isOne() {
		return
	}
	oldTaint := rel.tainted(row)
	taint := oldTaint || pe.taint
	pms := e.pendingMonos(pe, e.pbuf)
	e.pbuf = pms
	var fresh []mono
	switch {
	case e.relational:
		taint = true
		for _, q := range pms {
			if len(q.lits) == 0 {
				fresh = ipolyOne
				e.kept += 1 - len(old)
				rel.setPoly(row, fresh)
			}
		}
	case len(pms) > 0:
		fresh = e.mergeMonos(rel, row, pms, info, &taint)
	}
	if rel.poly(row).isOne() {
		taint = false
	}
	rel.setTaint(row, taint)
	if len(fresh) > 0 || taint != oldTaint {
		d := &e.delta[pe.cur]
		d.rows = append(d.rows, row)
		d.mons = append(d.mons, fresh)
	}
}

// mergeMonos sets the row's polynomial to its old monomials plus the
// pending ones, absorbed and cut, and returns the pending ones kept.
func (e *evaluator) mergeMonos(rel *relation, row uint32, pms []mono, info litList, taint *bool) []mono {
	old := rel.poly(row)
	tb := e.tbuf[:0]
	for _, o := range old {
		absorbed := false
		for _, q := range pms {
			if q.subset(o) {
				absorbed = true
				break
			}
		}
		if !absorbed {
			tb = append(tb, tmono{mono: o})
		}
	}
	for _, q := range pms {
		tb = append(tb, tmono{mono: q, fresh: true})
	}
	tb, cut := cutPoly(tb, e.bounds.MaxMonomials, info)
	if cut {
		*taint = true
	}
	np := make(ipoly, 0, len(tb))
	for _, t := range tb {
		if !t.fresh {
			np = append(np, t.mono)
		}
	}
	nOld := len(np)
	for _, t := range tb {
		if t.fresh {
			np = append(np, t.mono)
		}
	}
	e.kept += len(np) - len(old)
	rel.setPoly(row, np)
	e.tbuf = tb[:0]
	return np[nOld:]
}
