// This file sets up and finishes the evaluation of one stratum: loading its
// facts, deciding whether it carries polynomials, compiling the plans,
// merging each round's contributions, and recording the ground rule
// instances of truncated atoms for exact grading.

package datalog

// stratResult is what a model keeps of one stratum.
type stratResult struct {
	preds  []uint32
	key    stratKey
	inputs []int
	region *region // ground instances of the stratum's truncated atoms, or nil
	poly   bool
	rules  []*ruleRec
	reused bool
}

// evalStratum evaluates stratum s of m into fresh relations.
func (m *Model) evalStratum(p *Program, s *strat, res *stratResult) {
	e := &evaluator{m: m, bounds: p.bounds, curIdx: m.curIdx, negIDs: map[uint64]uint32{}}
	for i, pred := range s.preds {
		rel := newRelation(pred, p.arity[pred])
		m.rels[pred] = rel
		m.curIdx[pred] = i
		e.cur = append(e.cur, rel)
	}
	defer func() {
		for _, pred := range s.preds {
			m.curIdx[pred] = -1
		}
	}()
	e.poly = needsProvenance(p, m, s)
	info := m.lits.snapshot()
	for i, pred := range s.preds {
		e.loadFacts(p.facts[pred], e.cur[i], info)
	}
	res.poly = e.poly
	e.lim = make([]uint32, len(e.cur))
	e.delta = make([]deltaSet, len(e.cur))
	e.pidx = make([][]int32, len(e.cur))
	for i, rel := range e.cur {
		e.lim[i] = uint32(rel.n)
	}
	pl := &planner{rels: m.rels, curIdx: m.curIdx}
	for _, r := range s.rules {
		ps := []*plan{pl.compile(r, -1)}
		for i, a := range r.pos {
			if m.curIdx[a.pred] >= 0 {
				ps = append(ps, pl.compile(r, i))
			}
		}
		e.plans = append(e.plans, ps)
	}
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
			if m.curIdx[a.pred] < 0 && !m.rels[a.pred].allOne() {
				return true
			}
		}
	}
	for _, pred := range s.preds {
		if f := p.facts[pred]; f != nil {
			for _, fe := range f.entries {
				if fe.args != nil && !fe.sup.isOne() {
					return true
				}
			}
		}
	}
	return false
}

// loadFacts inserts a predicate's facts; with provenance each row gets the
// fact's support, cut to the bounds (a cut row is tainted).
func (e *evaluator) loadFacts(f *factSet, rel *relation, info []litInfo) {
	if e.poly {
		rel.enableProvenance()
	}
	if f == nil {
		return
	}
	for _, fe := range f.entries {
		if fe.args == nil {
			continue
		}
		row, _ := rel.insert(fe.args)
		if !e.poly {
			continue
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
		rel.polys[row] = untag(tb)
		rel.taint[row] = cut || c
		e.kept += len(tb)
	}
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
		for _, t := range r.taint {
			if t {
				return true
			}
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
			for row := e.lim[i]; row < uint32(rel.n); row++ {
				e.delta[i].rows = append(e.delta[i].rows, row)
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
func (e *evaluator) merge(pe *pendEntry, info []litInfo) {
	rel := e.cur[pe.cur]
	row := pe.row
	old := rel.polys[row]
	if old.isOne() {
		return
	}
	oldTaint := rel.taint[row]
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
				rel.polys[row] = fresh
			}
		}
	case len(pms) > 0:
		fresh = e.mergeMonos(rel, row, pms, info, &taint)
	}
	if rel.polys[row].isOne() {
		taint = false
	}
	rel.taint[row] = taint
	if len(fresh) > 0 || taint != oldTaint {
		d := &e.delta[pe.cur]
		d.rows = append(d.rows, row)
		d.mons = append(d.mons, fresh)
	}
}

// mergeMonos sets the row's polynomial to its old monomials plus the
// pending ones, absorbed and cut, and returns the pending ones kept.
func (e *evaluator) mergeMonos(rel *relation, row uint32, pms []mono, info []litInfo, taint *bool) []mono {
	old := rel.polys[row]
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
	rel.polys[row] = np
	e.tbuf = tb[:0]
	return np[nOld:]
}
