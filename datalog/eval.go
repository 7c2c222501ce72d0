// This file holds semi-naive evaluation of one stratum. A round reads the
// rows visible at its start (lim) and the delta of the previous round, and
// writes new rows beyond lim. Without provenance (every support One) a round
// only inserts tuples. With provenance, the monomials each derivation
// contributes are gathered per head row during the round and merged at its
// end (absorbed, then cut to the bounds), so the result is a function of the
// program and not of the order of rows; a row is in the next delta when its
// polynomial gained monomials or its taint flag flipped.
//
// The same join machinery serves the exact evaluation of exact.go (which
// queues contributions by monomial size instead of merging per round), the
// incremental maintenance of incr.go (plans seeded with one changed tuple),
// and the grounding pass of region.go.

package datalog

// deltaSet is one relation's delta: changed rows and, with provenance,
// the monomials each gained.
type deltaSet struct {
	rows []uint32
	mons [][]mono
}

// pendEntry gathers one head row's contributions during a round; its
// monomials are a list through evaluator.pm, newest first.
type pendEntry struct {
	cur   int
	row   uint32
	first int32 // index into pm, -1 for none
	taint bool
}

// pmono is one pending monomial in a round's shared list.
type pmono struct {
	mono
	next int32
	dead bool // absorbed by a later contribution
}

// evaluator evaluates one stratum.
type evaluator struct {
	m      *Model
	ar     *arena // where monomials' literals are copied: the model's, or the stratum's own (atonce.go)
	bounds Bounds
	cur    []*relation // the stratum's relations
	curIdx []int       // by pred id
	lim    []uint32    // by cur index: rows visible this round
	delta  []deltaSet  // by cur index
	plans  [][]*plan   // by rule: [full, delta plans...]

	poly       bool // the stratum carries polynomials
	relational bool // the stratum ran out of budget: no more polynomials
	overflow   bool // this round ran out of budget
	kept       int  // monomials held by the stratum's rows
	generated  int  // monomials generated this round

	pl     *plan
	slots  []uint32
	rows   []uint32 // by body position: the matched row
	dmons  []mono   // the delta row's new monomials
	negLit []int64  // by negated literal: its literal id, -1 when absent
	negRow []int64  // by negated literal: its row, -1 when absent
	hbuf   []uint32
	pend   []pendEntry
	pm     []pmono
	pidx   [][]int32          // by cur index, by row: index into pend (or the delta) or -1
	dmap   []map[uint32]int32 // by cur index: row → index into the delta (continuation)
	negIDs map[uint64]uint32
	mslab  []mono // noteDelta's slab of first monomials

	// product scratch
	accA, accB   []mono
	litsA, litsB []uint32
	single       [1]mono
	oneLit       [1]uint32
	tbuf         []tmono
	pbuf         []mono

	ground *grounder // non-nil during the grounding pass

	g     *guard // the evaluation's budget, or nil (budget.go)
	ticks int    // rows left before the next look at the budget
	fired int    // derivations since the last look

	xs    *xstate   // exact mode: contributions wait in size buckets
	noCap bool      // products keep monomials over MaxMonomialSize (exact mode)
	coll  *relation // collect mode: the heads of the matches, nothing else
	racc  *[]mono   // recompute mode: the matches' monomials
	rhit  bool      // recompute mode: some match was found

	seed     []uint32 // the tuple a seeded plan starts from
	seedRow  uint32   // its row, for a positive seed
	seedMons []mono   // its monomials, for a positive seed

	names nameList // the constants' names, for comparisons (constName)

	added [][]uint32 // by cur index, when non-nil: rows emit added (relational continuation)
	skip  *relation  // heads emit ignores (they are re-derived separately)

	// Parallel evaluation (parallel.go): a worker's output, nil outside a
	// worker; the rows of the plan's first step the worker reads (hi 0:
	// all); the lookup key of the current step.
	out    *parOut
	lo, hi int
	dk     int // the delta index of the first step's row
	kbuf   []uint32
	seen   []uint32 // a worker's set of its task's head tuples (repeat)
	seenN  int      // the tuples its last task output
	par    *parState
}

// run evaluates the stratum to its fixpoint.
func (e *evaluator) run() {
	pls := make([]*plan, len(e.plans))
	for i, ps := range e.plans {
		pls[i] = ps[0]
	}
	e.execAll(pls)
	e.endRound()
	e.deltaRounds()
}

// deltaRounds runs semi-naive rounds, each rule seeded by the delta of
// its first body atom, until no delta is left.
func (e *evaluator) deltaRounds() {
	var pls []*plan
	for e.hasDelta() {
		pls = pls[:0]
		for _, ps := range e.plans {
			for _, pl := range ps[1:] {
				if len(e.delta[pl.steps[0].cur].rows) > 0 {
					pls = append(pls, pl)
				}
			}
		}
		e.execAll(pls)
		e.endRound()
	}
}

func (e *evaluator) hasDelta() bool {
	for _, d := range e.delta {
		if len(d.rows) > 0 {
			return true
		}
	}
	return false
}

// exec runs one plan.
func (e *evaluator) exec(pl *plan) {
	e.tick()
	e.pl = pl
	r := pl.rule
	e.slots = growU32(e.slots, r.nvars)
	e.hbuf = growU32(e.hbuf, len(r.head.args))[:0]
	e.rows = growU32(e.rows, len(r.pos))
	e.negLit = growI64(e.negLit, len(r.neg))
	e.negRow = growI64(e.negRow, len(r.neg))
	if !e.cmpsOK(pl.preCmps) || !e.negsOK(pl.preNegs) {
		return
	}
	e.join(0)
}

// span returns the rows [lo, hi) of n that step si reads: all but in a
// parallel worker's first step.
func (e *evaluator) span(si, n int) (int, int) {
	if si == 0 && e.hi > 0 {
		return e.lo, min(e.hi, n)
	}
	return 0, n
}

// growU32 and growI64 size a reused buffer; among them an evaluator's
// scratch (slots, rows, keys, head tuples), written at every match. A new
// buffer fills whole cache lines (its size class is then a multiple of 64
// bytes, so it starts on a line too): two parallel workers' scratch
// buffers of a few bytes each would otherwise sit on one line, and every
// write by one would evict it from the other's core (false sharing: at
// GOMAXPROCS=2 it cost the TC grid about a sixth of its CPU, most of it in
// emit; DL-0528).
func growU32(s []uint32, n int) []uint32 {
	if cap(s) < n {
		return make([]uint32, n, (n+15)&^15)
	}
	return s[:n]
}

func growI64(s []int64, n int) []int64 {
	if cap(s) < n {
		return make([]int64, n, (n+7)&^7)
	}
	return s[:n]
}

func (e *evaluator) limit(st *step) uint32 {
	if st.cur >= 0 {
		return e.lim[st.cur]
	}
	return uint32(st.rel.n)
}

// match binds the step's variables from vals and checks the rest.
func (e *evaluator) match(st *step, vals []uint32) bool {
	for _, b := range st.binds {
		e.slots[b.slot] = vals[b.col]
	}
	for _, c := range st.consts {
		if vals[c.col] != c.c {
			return false
		}
	}
	for _, c := range st.checks {
		if vals[c.col] != e.slots[c.slot] {
			return false
		}
	}
	return true
}

// fillKey returns the step's lookup key, valid until the next call (the
// buffer is the evaluator's, so that parallel workers share no plan state).
func (e *evaluator) fillKey(st *step) []uint32 {
	e.kbuf = growU32(e.kbuf, len(st.key))
	for i, t := range st.key {
		if t.slot < 0 {
			e.kbuf[i] = t.c
		} else {
			e.kbuf[i] = e.slots[t.slot]
		}
	}
	return e.kbuf
}

// join enumerates the matches of steps si… and emits each.
func (e *evaluator) join(si int) {
	pl := e.pl
	if si == len(pl.steps) {
		e.emit()
		return
	}
	st := &pl.steps[si]
	rel := st.rel
	switch st.mode {
	case modeSeed:
		if e.match(st, e.seed) && e.filtersOK(st) {
			if st.pos >= 0 {
				e.rows[st.pos] = e.seedRow
				e.dmons = e.seedMons
			}
			e.join(si + 1)
		}
	case modeDelta:
		d := &e.delta[st.cur]
		lo, hi := e.span(si, len(d.rows))
		for k := lo; k < hi; k++ {
			row := d.rows[k]
			if e.match(st, rel.row(row)) && e.filtersOK(st) {
				e.rows[st.pos] = row
				if e.poly {
					e.dmons, e.dk = d.mons[k], k
				}
				e.join(si + 1)
			}
		}
	case modeScan:
		lo, hi := e.span(si, int(e.limit(st)))
		for row := uint32(lo); row < uint32(hi); row++ {
			e.tick()
			if rel.alive(row) && e.match(st, rel.row(row)) && e.filtersOK(st) {
				e.rows[st.pos] = row
				e.join(si + 1)
			}
		}
	case modeIndex:
		lim := e.limit(st)
		for h := st.ix.lookup(rel, e.fillKey(st)); h != 0; h = st.ix.nextOf(h - 1) {
			row := h - 1
			if row >= lim || !rel.alive(row) {
				continue
			}
			if e.match(st, rel.row(row)) && e.filtersOK(st) {
				e.rows[st.pos] = row
				e.join(si + 1)
			}
		}
	case modeProbe:
		row, ok := rel.find(e.fillKey(st))
		if ok && row < e.limit(st) && e.filtersOK(st) {
			e.rows[st.pos] = row
			e.join(si + 1)
		}
	}
}

// filtersOK tests what a step lets be tested: its comparisons, then its
// negated literals.
func (e *evaluator) filtersOK(st *step) bool {
	return e.cmpsOK(st.cmps) && e.negsOK(st.negs)
}

// negsOK tests negated literals whose variables are bound. A literal fails
// the derivation only when its atom holds unconditionally; otherwise, with
// provenance, the derivation carries the literal.
func (e *evaluator) negsOK(negs []int) bool {
	r := e.pl.rule
	for _, k := range negs {
		a := r.neg[k]
		buf := e.hbuf[:0]
		for _, t := range a.args {
			if t.slot < 0 {
				buf = append(buf, t.c)
			} else {
				buf = append(buf, e.slots[t.slot])
			}
		}
		e.hbuf = buf
		rel := e.m.rel(a.pred)
		row, ok := rel.find(buf)
		if !ok {
			e.negLit[k], e.negRow[k] = -1, -1
			continue
		}
		p := rel.poly(row)
		if p.isOne() {
			return false
		}
		e.negRow[k] = int64(row)
		switch {
		case !e.poly || e.coll != nil:
		case e.out != nil:
			// A worker leaves interning to the merge, in the order the
			// sequential evaluation interns (parallel.go).
			e.out.intern(a.pred, row)
		default:
			e.negLit[k] = int64(e.negLitID(a.pred, row))
		}
	}
	return true
}

// negLitID interns "not pred(row)".
func (e *evaluator) negLitID(pred, row uint32) uint32 {
	key := uint64(pred)<<32 | uint64(row)
	if id, ok := e.negIDs[key]; ok {
		return id
	}
	m := e.m
	id := m.lits.negLit(pred, m.rel(pred).row(row))
	e.negIDs[key] = id
	return id
}

// emit handles one complete match: insert the head, and with provenance
// add the derivation's monomials to the head's pending contributions (or,
// in the other modes, collect the head, record the monomials, or queue
// them by size).
func (e *evaluator) emit() {
	if e.fired++; e.fired >= stride {
		e.look()
	}
	r := e.pl.rule
	buf := e.hbuf[:0]
	for _, t := range r.head.args {
		if t.slot < 0 {
			buf = append(buf, t.c)
		} else {
			buf = append(buf, e.slots[t.slot])
		}
	}
	e.hbuf = buf
	if e.out != nil {
		e.out.emit(e, buf)
		return
	}
	e.emitHead(buf)
}

// emitHead handles the head tuple buf of the current match (emit).
func (e *evaluator) emitHead(buf []uint32) {
	r := e.pl.rule
	switch {
	case e.coll != nil:
		e.coll.insert(buf)
		return
	case e.racc != nil:
		e.rhit = true
		if e.poly {
			e.product()
			for _, u := range e.accA {
				*e.racc = append(*e.racc, mono{sig: u.sig, lits: e.ar.copyLits(u.lits)})
			}
		}
		return
	}
	if e.skip != nil {
		if _, ok := e.skip.find(buf); ok {
			return
		}
	}
	ci := e.curIdx[r.head.pred]
	rel := e.cur[ci]
	if e.ground != nil {
		e.ground.record(e, rel, buf)
		return
	}
	if e.xs != nil && e.poly {
		e.product()
		e.xs.push(e, ci, buf)
		return
	}
	row, added := rel.insert(buf)
	if added && e.added != nil {
		e.added[ci] = append(e.added[ci], row)
	}
	if e.poly {
		e.emitRounds(ci, rel, row)
	}
}

// emitRounds adds the current derivation's monomials to the pending
// contributions of the head row (round-based evaluation).
func (e *evaluator) emitRounds(ci int, rel *relation, row uint32) {
	pe := e.pending(ci, row)
	if !e.relational && !e.overflow {
		if e.product() {
			pe.taint = true
		}
		e.generated += len(e.accA)
		e.overflow = e.kept+e.generated > e.bounds.MaxStratumMonomials
	}
	if e.relational || e.overflow {
		// No polynomials any more, but unconditional support stays exact:
		// negation and grading depend on it. That holds for the derivation
		// that ran out of budget too.
		pe.taint = true
		if e.unconditional() {
			e.addPending(pe, rel.poly(row), mono{})
		}
		return
	}
	for _, u := range e.accA {
		e.addPending(pe, rel.poly(row), u)
	}
}

// unconditional reports whether the current derivation has support One.
func (e *evaluator) unconditional() bool {
	r := e.pl.rule
	if !r.allOne {
		return false
	}
	for i, a := range r.pos {
		if !e.m.rel(a.pred).poly(e.rows[i]).isOne() {
			return false
		}
	}
	for k := range r.neg {
		if e.negLit[k] >= 0 {
			return false
		}
	}
	return true
}

// pending returns the pending entry of a head row, creating it.
func (e *evaluator) pending(ci int, row uint32) *pendEntry {
	px := e.pidx[ci]
	if int(row) >= len(px) {
		n := len(px)
		px = append(px, make([]int32, max(int(row)+1-n, n))...)
		for i := n; i < len(px); i++ {
			px[i] = -1
		}
		e.pidx[ci] = px
	}
	if px[row] < 0 {
		px[row] = int32(len(e.pend))
		e.pend = append(e.pend, pendEntry{cur: ci, row: row, first: -1})
	}
	return &e.pend[px[row]]
}

// addPending adds monomial u unless the row's polynomial or the pending
// contributions absorb it; pending supersets of u are dropped.
func (e *evaluator) addPending(pe *pendEntry, old ipoly, u mono) {
	for _, o := range old {
		if o.subset(u) {
			return
		}
	}
	for i := pe.first; i >= 0; i = e.pm[i].next {
		if q := &e.pm[i]; !q.dead && q.subset(u) {
			return
		}
	}
	for i := pe.first; i >= 0; i = e.pm[i].next {
		if q := &e.pm[i]; !q.dead && u.subset(q.mono) {
			q.dead = true
		}
	}
	e.pm = append(e.pm, pmono{mono: mono{sig: u.sig, lits: e.ar.copyLits(u.lits)}, next: pe.first})
	pe.first = int32(len(e.pm) - 1)
}

// pendingMonos returns the live pending monomials of an entry.
func (e *evaluator) pendingMonos(pe *pendEntry, buf []mono) []mono {
	buf = buf[:0]
	for i := pe.first; i >= 0; i = e.pm[i].next {
		if !e.pm[i].dead {
			buf = append(buf, e.pm[i].mono)
		}
	}
	return buf
}

// product computes the current derivation's monomials into e.accA (rule
// support × body supports × negated literals, absorbed, monomials over the
// size cap dropped unless noCap) and reports whether the result is tainted.
func (e *evaluator) product() bool {
	r := e.pl.rule
	taint := false
	e.accA = append(e.accA[:0], r.support...)
	for i, a := range r.pos {
		rel := e.m.rel(a.pred)
		row := e.rows[i]
		var f []mono
		if i == e.pl.delta {
			f = e.dmons
		} else {
			f = rel.poly(row)
		}
		if rel.tainted(row) {
			taint = true
		}
		if ipoly(f).isOne() {
			continue
		}
		if e.mulInto(f) {
			taint = true
		}
	}
	for k := range r.neg {
		if id := e.negLit[k]; id >= 0 {
			e.oneLit[0] = uint32(id)
			e.single[0] = mono{sig: 1 << (uint64(id) & 63), lits: e.oneLit[:]}
			if e.mulInto(e.single[:]) {
				taint = true
			}
		}
	}
	return taint
}

// mulInto multiplies e.accA by f in place; it reports whether a monomial
// was dropped for exceeding the size cap.
func (e *evaluator) mulInto(f []mono) bool {
	dropped := false
	next := e.accB[:0]
	lits := e.litsB[:0]
	for _, a := range e.accA {
		for _, b := range f {
			n := len(lits)
			lits = unionInto(lits, a.lits, b.lits)
			if len(lits)-n > e.bounds.MaxMonomialSize && !e.noCap {
				lits = lits[:n]
				dropped = true
				continue
			}
			next = append(next, mono{sig: a.sig | b.sig, lits: lits[n:len(lits):len(lits)]})
		}
	}
	if len(f) > 1 || len(e.accA) > 1 {
		next = absorbList(next)
	}
	e.accB, e.accA = e.accA, next
	e.litsB, e.litsA = e.litsA, lits
	return dropped
}
