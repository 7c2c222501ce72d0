// This file holds the maintenance of one exact stratum from the changes of
// its facts and inputs. Each changed atom a rule reads is classified
// (incr.go): a change that only adds derivations, or supports that
// dominate the old ones, is propagated forward — the rule is run seeded
// with the changed atom, against the new relations, and the new monomials
// are merged by absorption (exact.go), then, in a recursive stratum,
// semi-naive evaluation continues from the rows that changed. A change that
// removes derivations or shrinks a support is handled, in a stratum whose
// rules read only earlier strata, by re-deriving the heads it reaches: the
// rule is run seeded with the changed atom against the previous model to
// find them, and each is re-derived from all its matches in the new one. A
// recursive stratum such a change reaches is evaluated from scratch.

package datalog

import (
	"slices"
	"sync"
)

// maint maintains one stratum.
type maint struct {
	a       *applier
	s       *strat
	old     *stratResult
	res     *stratResult
	facts   [][]uint32  // by cur index: fact rows that changed
	cur     []*relation // new versions of the stratum's relations
	olds    []*relation // the previous model's
	e       *evaluator  // over the new model
	pe      *evaluator  // collect mode over the previous model
	plNew   *planner
	plOld   *planner
	plans   map[planKey]*plan
	touched []map[uint32]bool // by cur index: rows written
	acc     []mono
}

type planKey struct {
	r    *ruleRec
	kind uint8
	idx  int
	old  bool
}

// seedJob is one rule to run seeded with one changed atom.
type seedJob struct {
	r    *ruleRec
	kind uint8
	idx  int
	rel  *relation // the relation holding the seed
	row  int64
}

// maints holds maint values between maintenances, with their evaluators,
// plan map and touched sets, so that a staged add does not allocate them
// for every stratum it maintains (they are scratch: nothing of a maint is
// reachable from a model once it is released).
var maints = sync.Pool{New: func() any {
	return &maint{e: new(evaluator), pe: new(evaluator), plans: map[planKey]*plan{}}
}}

func newMaint(a *applier, s *strat, old, res *stratResult, facts [][]uint32) *maint {
	m := a.m
	mt := maints.Get().(*maint)
	e, pe, plans, touched := mt.e, mt.pe, mt.plans, mt.touched
	eNeg, peNeg := e.negIDs, pe.negIDs
	if eNeg == nil {
		eNeg, peNeg = map[uint64]uint32{}, map[uint64]uint32{}
	}
	*mt = maint{a: a, s: s, old: old, res: res, facts: facts, plans: plans, e: e, pe: pe,
		olds: mt.olds[:0], cur: mt.cur[:0], touched: touched[:0]}
	*e = evaluator{m: m, ar: &m.arena, bounds: a.p.bounds, curIdx: m.curIdx, negIDs: eNeg, poly: old.poly, g: m.guard}
	for i, pred := range s.preds {
		o := a.prev.rel(pred)
		c := o.derive(m.gen)
		m.rels.set(int(pred), c, m.gen)
		m.curIdx[pred] = i
		mt.olds, mt.cur = append(mt.olds, o), append(mt.cur, c)
		if i < len(touched) {
			mt.touched = append(mt.touched, touched[i])
		} else {
			mt.touched = append(mt.touched, map[uint32]bool{})
		}
	}
	e.cur = mt.cur
	e.lim = make([]uint32, len(e.cur))
	e.delta = make([]deltaSet, len(e.cur))
	e.pidx = make([][]int32, len(e.cur))
	if old.poly {
		e.noCap = true
		e.xs = newXstate(a.p.bounds, len(e.cur), old.held, true)
	}
	*pe = evaluator{m: a.prev, ar: &a.prev.arena, bounds: a.p.bounds, curIdx: a.noCur, negIDs: peNeg, g: m.guard}
	mt.plNew = &planner{rels: &m.rels, curIdx: m.curIdx}
	mt.plOld = &planner{rels: &a.prev.rels, curIdx: a.noCur}
	return mt
}

// release ends the maintenance (in success or failure).
func (mt *maint) release() {
	for _, pred := range mt.s.preds {
		mt.a.m.curIdx[pred] = -1
	}
	// Back to the pool holding nothing of this maintenance but the
	// scratch it reuses (emptied maps, zeroed slices).
	clear(mt.plans)
	clear(mt.e.negIDs)
	clear(mt.pe.negIDs)
	for _, t := range mt.touched {
		clear(t)
	}
	clear(mt.olds)
	clear(mt.cur)
	neg, pneg := mt.e.negIDs, mt.pe.negIDs
	*mt.e, *mt.pe = evaluator{negIDs: neg}, evaluator{negIDs: pneg}
	*mt = maint{e: mt.e, pe: mt.pe, plans: mt.plans, touched: mt.touched, olds: mt.olds[:0], cur: mt.cur[:0]}
	maints.Put(mt)
}

func (mt *maint) plan(r *ruleRec, kind uint8, idx int, old bool) *plan {
	k := planKey{r, kind, idx, old}
	if p, ok := mt.plans[k]; ok {
		return p
	}
	pl := mt.plNew
	if old {
		pl = mt.plOld
	}
	p := pl.compileSeeded(r, kind, idx)
	mt.plans[k] = p
	return p
}

// run runs a seeded rule: on the new model, or on the previous one
// collecting the heads of its matches into into.
func (mt *maint) run(j seedJob, into *relation) {
	e := mt.e
	if into != nil {
		e = mt.pe
		e.coll = into
	}
	e.seed = j.rel.row(uint32(j.row))
	if j.kind == seedPos {
		e.seedRow, e.seedMons = uint32(j.row), j.rel.poly(uint32(j.row))
	}
	e.exec(mt.plan(j.r, j.kind, j.idx, into != nil))
}

// classify sorts the changes the rules read into additions (returned) and
// removals (run against the previous model, collecting the heads they
// reach into redo; with redo nil a removal fails the maintenance).
func (mt *maint) classify(redo *relation) ([]seedJob, bool) {
	a := mt.a
	var adds []seedJob
	self := a.m.stratOf(mt.s.preds[0])
	for _, r := range mt.s.rules {
		for k, lits := range [][]catom{r.pos, r.neg} {
			for i, at := range lits {
				if a.m.stratOf(at.pred) == self {
					continue
				}
				oldR, newR := a.prevRel(at.pred), a.m.rel(at.pred)
				for _, c := range a.change(at.pred).rows {
					kind, how := seedPos, 0
					if k == 0 {
						how = classifyPos(oldR, newR, c)
					} else {
						kind, how = seedNeg, classifyNeg(oldR, newR, c)
					}
					switch {
					case how == chAdd:
						adds = append(adds, seedJob{r, kind, i, newR, c.new})
						if c.new < 0 {
							adds[len(adds)-1].rel, adds[len(adds)-1].row = oldR, c.old
						}
					case how == chRemove && redo == nil:
						return nil, false
					case how == chRemove:
						j := seedJob{r, kind, i, oldR, c.old}
						if c.old < 0 {
							j.rel, j.row = newR, c.new
						}
						mt.run(j, redo)
					}
				}
			}
		}
	}
	return adds, true
}

// factChanges sorts the stratum's changed facts: additions are queued (or
// inserted), removals go to redo (with redo nil they fail).
func (mt *maint) factChanges(redo *relation) bool {
	a := mt.a
	for ci, rows := range mt.facts {
		oldF, curF := mt.old.facts[ci], a.p.fact(mt.s.preds[ci])
		for _, row := range rows {
			fe, tuple := liveFact(curF, row), curF.tab.row(row) // cur holds every row old has
			switch classifyFact(oldF, curF, row) {
			case chAdd:
				mt.addFact(ci, tuple, fe)
			case chRemove:
				if redo == nil {
					return false
				}
				redo.insert(tuple)
			}
		}
	}
	return true
}

func (mt *maint) addFact(ci int, tuple []uint32, fe *factEntry) {
	e := mt.e
	if e.poly {
		e.xs.pushMonos(e, ci, tuple, fe.sup)
		return
	}
	if row, added := mt.cur[ci].insert(tuple); added {
		mt.touched[ci][row] = true
		if e.added != nil {
			e.added[ci] = append(e.added[ci], row)
		}
	}
}

// flat maintains a stratum whose rules read only earlier strata.
func (mt *maint) flat() bool {
	redo := newRelation(mt.s.preds[0], mt.cur[0].arity, mt.a.m.gen)
	if !mt.e.poly {
		mt.e.added = make([][]uint32, 1)
	}
	adds, _ := mt.classify(redo)
	mt.factChanges(redo)
	e := mt.e
	e.skip = redo
	for _, j := range adds {
		mt.run(j, nil)
	}
	e.skip = nil
	if e.poly && !e.runExact() {
		return false
	}
	if !e.poly {
		for _, row := range e.added[0] {
			mt.touched[0][row] = true
		}
	}
	for _, row := range redo.liveRows() {
		mt.recompute(redo.row(row))
	}
	return mt.finish()
}

// recompute re-derives one head of a flat stratum from its fact and all
// its matches in the new model.
func (mt *maint) recompute(tuple []uint32) {
	e, rel := mt.e, mt.cur[0]
	acc := mt.acc[:0]
	e.racc, e.rhit = &acc, false
	if fe := factAt(mt.a.p.fact(mt.s.preds[0]), tuple); fe != nil {
		e.rhit = true
		acc = append(acc, fe.sup...)
	}
	e.seed = tuple
	for _, r := range mt.s.rules {
		e.exec(mt.plan(r, seedHead, 0, false))
	}
	e.racc, mt.acc = nil, acc
	row, ok := rel.find(tuple)
	var np, op ipoly
	if e.poly {
		np = absorbList(acc)
		if ok {
			op = rel.poly(row)
		}
	}
	switch {
	case !e.rhit || e.poly && len(np) == 0:
		if ok {
			rel.kill(row)
			mt.touched[0][row] = true
		}
		if e.poly {
			e.xs.held -= len(op)
		}
		return
	case !ok:
		row, _ = rel.insert(tuple)
	case !e.poly || samePoly(op, np):
		return
	}
	mt.touched[0][row] = true
	if e.poly {
		rel.setPoly(row, slices.Clone(np))
		e.xs.held += len(np) - len(op)
	}
}

// recursive maintains a recursive stratum under additions; any removal
// fails it.
func (mt *maint) recursive() bool {
	e := mt.e
	if !e.poly {
		for _, r := range mt.olds {
			if r.dead > 0 {
				return false
			}
		}
		e.added = make([][]uint32, len(mt.cur))
	}
	adds, ok := mt.classify(nil)
	if !ok || !mt.factChanges(nil) {
		return false
	}
	e.compilePlans(mt.s.rules)
	for i, rel := range mt.cur {
		e.lim[i] = uint32(rel.n)
	}
	for _, j := range adds {
		mt.run(j, nil)
	}
	if e.poly {
		if !e.runExact() {
			return false
		}
		return mt.finish()
	}
	for {
		for ci, rows := range e.added {
			for _, row := range rows {
				mt.touched[ci][row] = true
			}
		}
		e.endRound()
		if !e.hasDelta() {
			break
		}
		for _, ps := range e.plans {
			for _, pl := range ps[1:] {
				if len(e.delta[pl.steps[0].cur].rows) > 0 {
					e.exec(pl)
				}
			}
		}
	}
	return mt.finish()
}

// finish checks the bounds on what changed and records the changes; a
// stratum that did not change keeps the previous model's relations.
func (mt *maint) finish() bool {
	e, a, b := mt.e, mt.a, mt.a.p.bounds
	if e.poly {
		if e.xs.failed || e.xs.held > b.MaxStratumMonomials {
			return false
		}
		for ci, t := range e.xs.touched {
			for row := range t {
				mt.touched[ci][row] = true
			}
		}
	}
	changed := false
	chs := make([]*relChange, len(mt.cur))
	for ci, rel := range mt.cur {
		chs[ci] = &relChange{}
		for _, row := range sortedRows(mt.touched[ci]) {
			if e.poly && rel.alive(row) && !exactFits(rel.poly(row), b) {
				return false
			}
			if c, ok := rowChange(mt.olds[ci], rel, row); ok {
				chs[ci].rows = append(chs[ci].rows, c)
			}
		}
		changed = changed || len(chs[ci].rows) > 0
	}
	if !changed {
		a.reuse(mt.s, mt.old, mt.res)
		return true
	}
	for ci, pred := range mt.s.preds {
		a.changes[pred] = chs[ci]
	}
	mt.res.poly, mt.res.mode, mt.res.kept = mt.old.poly, mt.old.mode, true
	if e.poly {
		mt.res.held = e.xs.held
	}
	return true
}

func sortedRows(set map[uint32]bool) []uint32 {
	out := make([]uint32, 0, len(set))
	for row := range set {
		out = append(out, row)
	}
	slices.Sort(out)
	return out
}

// rowChange compares one row of a relation with the same row of the
// version it was derived from.
func rowChange(old, cur *relation, row uint32) (chRow, bool) {
	c := chRow{-1, -1}
	if int(row) < old.n && old.alive(row) {
		c.old = int64(row)
	}
	if cur.alive(row) {
		c.new = int64(row)
	}
	switch {
	case c.old < 0 && c.new < 0:
		return c, false
	case c.old < 0 || c.new < 0:
		return c, true
	}
	return c, !samePoly(old.poly(row), cur.poly(row)) || old.tainted(row) != cur.tainted(row)
}
