// This file holds exact evaluation: semi-naive evaluation that merges
// contributions in order of monomial size, smallest first. A merged
// monomial is then never absorbed later (whatever comes after is at least
// as large), so every support only grows and ends as the exact absorbed
// polynomial: the minimal monomials over all derivations. The bounds are
// checked against that growing support, which is a subset of the final
// one, so a stratum is truncated exactly when its exact supports exceed the
// bounds, whatever the order of evaluation. That is what lets incremental
// maintenance (incr.go) reproduce a from-scratch evaluation: both compute
// the same exact supports, or both give up — maintenance then defers to
// the from-scratch evaluation, which spills past the stratum budget (see
// spill) or evaluates round by round with cuts (stratum.go).
//
// The same queue serves continuation: starting from a finished stratum,
// contributions of new derivations are merged the same way, except that a
// new monomial may absorb older, larger ones.

package datalog

// xstate queues exact contributions by monomial size.
type xstate struct {
	buckets []xlist // by monomial size
	npend   int
	sink    uint64 // keeps warm's loads
	tuples  arena  // head tuples of queued contributions
	cont    bool   // continuation: a merged monomial absorbs older ones
	guard   int    // queued monomials past which evaluation gives up
	held    int    // monomials the stratum's rows hold
	failed  bool
	touched []map[uint32]bool // by cur index: rows whose support changed

	// From scratch: the size at which the stratum budget was passed, and
	// the size at which a per-atom bound was (-1 before); the rows that
	// gained a monomial of the size being merged.
	spillAt  int
	limitAt  int
	sizeRows []xrow
}

type xrow struct {
	ci  int32
	row uint32
}

// xpend is one queued monomial of a head tuple.
type xpend struct {
	ci    int32
	tuple []uint32
	m     mono
}

// xlist is a queue in blocks, so that growing it never copies it.
type xlist struct {
	blocks [][]xpend
	n      int
}

const xblock = 1024

func (l *xlist) add(x xpend) {
	if k := len(l.blocks); k == 0 || len(l.blocks[k-1]) == xblock {
		l.blocks = append(l.blocks, make([]xpend, 0, min(xblock, 4<<min(k, 8))))
	}
	k := len(l.blocks) - 1
	l.blocks[k] = append(l.blocks[k], x)
	l.n++
}

func newXstate(b Bounds, ncur int, held int, cont bool) *xstate {
	x := &xstate{guard: max(2*b.MaxStratumMonomials, 1<<20), held: held, cont: cont,
		touched: make([]map[uint32]bool, ncur), spillAt: -1, limitAt: -1}
	for i := range x.touched {
		x.touched[i] = map[uint32]bool{}
	}
	return x
}

func absorbedBy(p ipoly, u mono) bool {
	for _, o := range p {
		if o.subset(u) {
			return true
		}
	}
	return false
}

// push queues the monomials of e.accA for head (cur relation ci), except
// those its current support absorbs.
func (x *xstate) push(e *evaluator, ci int, head []uint32) {
	x.pushMonos(e, ci, head, e.accA)
}

func (x *xstate) pushMonos(e *evaluator, ci int, head []uint32, ms []mono) {
	if len(ms) == 0 {
		return
	}
	var old ipoly
	if row, ok := e.cur[ci].find(head); ok {
		old = e.cur[ci].poly(row)
	}
	var tuple []uint32
	for _, u := range ms {
		if absorbedBy(old, u) {
			continue
		}
		if tuple == nil {
			tuple = x.tuples.copyLits(head)
			if tuple == nil {
				tuple = []uint32{}
			}
		}
		sz := len(u.lits)
		if x.limitAt >= 0 && sz > x.limitAt {
			continue // failing: only the size being finished matters
		}
		for len(x.buckets) <= sz {
			x.buckets = append(x.buckets, xlist{})
		}
		x.buckets[sz].add(xpend{ci: int32(ci), tuple: tuple, m: mono{sig: u.sig, lits: e.ar.copyLits(u.lits)}})
		x.npend++
	}
	if x.npend > x.guard {
		x.failed = true
	}
}

// mergeBucket merges the queued monomials of size sz into their rows and
// makes them the delta. It fails the evaluation when a support leaves the
// bounds.
func (x *xstate) mergeBucket(e *evaluator, sz int) {
	list := x.buckets[sz]
	x.buckets[sz] = xlist{}
	x.npend -= list.n
	if !x.cont {
		e.presizeDelta(&list)
	}
	for bi, blk := range list.blocks {
		for i := range blk {
			if i%parGroup == 0 {
				x.warm(e, blk[i:min(i+parGroup, len(blk))])
			}
			x.merge(e, sz, &blk[i])
			if x.spillAt > 0 { // leave the rest queued for spill
				rest := xlist{blocks: append([][]xpend{blk[i+1:]}, list.blocks[bi+1:]...)}
				for _, b := range rest.blocks {
					rest.n += len(b)
				}
				x.buckets[sz], x.npend = rest, x.npend+rest.n
				return
			}
		}
	}
}

// warm loads the home slots of the rows xps merge into (relation.home).
func (x *xstate) warm(e *evaluator, xps []xpend) {
	var sink uint64
	for i := range xps {
		sink += e.cur[xps[i].ci].home(xps[i].tuple)
	}
	x.sink = sink
}

// presizeDelta makes room in each delta for the rows the queued monomials
// may touch, counted by relation (an upper bound: a row may gain several),
// so that a large size does not grow the delta a doubling at a time.
func (e *evaluator) presizeDelta(list *xlist) {
	if list.n < 1024 {
		return
	}
	counts := make([]int, len(e.delta))
	for _, blk := range list.blocks {
		for i := range blk {
			counts[blk[i].ci]++
		}
	}
	for ci, c := range counts {
		d := &e.delta[ci]
		if c > cap(d.rows) {
			d.rows = make([]uint32, 0, c)
			d.mons = make([][]mono, 0, c)
		}
	}
}

// merge merges one queued monomial into its row.
func (x *xstate) merge(e *evaluator, sz int, xp *xpend) {
	rel := e.cur[xp.ci]
	row, _ := rel.insert(xp.tuple)
	old := rel.poly(row)
	if absorbedBy(old, xp.m) {
		return
	}
	var np ipoly
	switch {
	case len(old) == 0 && len(xp.m.lits) == 0:
		np = ipolyOne
	case len(old) == 0 && len(xp.m.lits) == 1:
		np = unitPoly(xp.m.lits[0]) // shared: most rows of a large stratum hold one literal
	default:
		np = make(ipoly, 0, len(old)+1)
		for _, o := range old {
			if !x.cont || !xp.m.subset(o) {
				np = append(np, o)
			}
		}
		np = append(np, xp.m)
	}
	x.held += len(np) - len(old)
	rel.setPoly(row, np)
	if x.cont {
		x.touched[xp.ci][row] = true
	} else {
		x.sizeRows = append(x.sizeRows, xrow{xp.ci, row})
	}
	e.noteDelta(int(xp.ci), row, xp.m)
	b := e.bounds
	if sz > b.MaxMonomialSize || len(np) > b.MaxMonomials {
		if x.cont {
			x.failed = true
		} else if x.limitAt < 0 {
			x.limitAt = sz
		}
	}
	if x.held > b.MaxStratumMonomials {
		if x.cont {
			x.failed = true
		} else if x.spillAt < 0 {
			x.spillAt = sz
		}
	}
}

// noteDelta adds monomial u of row to the delta of cur relation ci. Rows
// are found by a table indexed by row, or in continuation (few rows of a
// large relation) by a map.
func (e *evaluator) noteDelta(ci int, row uint32, u mono) {
	d := &e.delta[ci]
	k, ok := int32(0), false
	if e.xs.cont {
		if e.dmap == nil {
			e.dmap = make([]map[uint32]int32, len(e.cur))
		}
		if e.dmap[ci] == nil {
			e.dmap[ci] = map[uint32]int32{}
		}
		if k, ok = e.dmap[ci][row]; !ok {
			k = int32(len(d.rows))
			e.dmap[ci][row] = k
		}
	} else {
		px := e.pidx[ci]
		if int(row) >= len(px) {
			n := len(px)
			px = append(px, make([]int32, max(int(row)+1-n, n))...)
			for i := n; i < len(px); i++ {
				px[i] = -1
			}
			e.pidx[ci] = px
		}
		if k, ok = px[row], px[row] >= 0; !ok {
			k = int32(len(d.rows))
			px[row] = k
		}
	}
	if !ok {
		// A row's first monomial goes in a slab: most rows gain one. Slabs
		// double from small, so that a staged add, which notes a few, stays
		// small.
		if len(e.mslab) == cap(e.mslab) {
			e.mslab = make([]mono, 0, min(max(2, 2*cap(e.mslab)), 1024))
		}
		n := len(e.mslab)
		e.mslab = append(e.mslab, u)
		d.rows = append(d.rows, row)
		d.mons = append(d.mons, e.mslab[n:n+1:n+1])
		return
	}
	d.mons[k] = append(d.mons[k], u)
}

// clearDelta empties every delta.
func (e *evaluator) clearDelta() {
	for ci := range e.delta {
		d := &e.delta[ci]
		switch {
		case e.xs != nil && e.xs.cont:
			if e.dmap != nil {
				clear(e.dmap[ci])
			}
		default:
			for _, row := range d.rows {
				e.pidx[ci][row] = -1
			}
		}
		clear(d.mons) // kept for the next size, not its monomials
		d.rows, d.mons = d.rows[:0], d.mons[:0]
	}
}

// runExact merges the queue size by size, running the delta plans after
// each merge, until nothing is queued. It reports false when the
// evaluation failed: in continuation, when a support left the bounds; from
// scratch, when a support exceeded the per-atom bounds at some size before
// the stratum budget was passed (that size is finished first, to know). Past
// the budget, it spills.
func (e *evaluator) runExact() bool {
	x := e.xs
	last := -1
	for sz := 0; !x.failed; {
		for sz < len(x.buckets) && x.buckets[sz].n == 0 {
			sz++
		}
		done := sz == len(x.buckets)
		switch {
		case x.spillAt == 0 && (done || sz > 0):
			e.spill()
			return true
		case x.limitAt >= 0 && (done || sz > x.limitAt):
			return false
		case done:
			return true
		}
		if sz != last {
			x.sizeRows, last = x.sizeRows[:0], sz
		}
		e.clearDelta()
		x.mergeBucket(e, sz)
		if x.spillAt > 0 {
			e.spill()
			return true
		}
		for i, rel := range e.cur {
			e.lim[i] = uint32(rel.n)
		}
		e.execExactDeltas()
	}
	return false
}

// execExactDeltas runs the delta plans after a merge, none once the
// evaluation failed: in parallel (execAll) when the delta is large.
func (e *evaluator) execExactDeltas() {
	var pls []*plan
	for _, ps := range e.plans {
		for _, pl := range ps[1:] {
			if len(e.delta[pl.steps[0].cur].rows) > 0 {
				pls = append(pls, pl)
			}
		}
	}
	e.execAll(pls)
}

// spill ends an exact evaluation that passed the stratum budget while
// merging size s. The monomials below s are final and stay; those of size
// s merged so far go again (except at size 0: One is always kept, so size
// 0 is finished first); every row that lost one, or has a queued monomial
// its support does not absorb, is tainted, and the rest of the fixpoint
// runs round by round without polynomials (relational), tainting whatever
// it reaches from there. The result depends only on the program: s is the
// first size at which the exact monomials of at most that size outnumber
// the budget, and the tainted rows are the closure, under the rules, of
// those with a monomial of size at least s that a product of smaller ones
// gives, whichever of them were merged before stopping.
func (e *evaluator) spill() {
	x := e.xs
	e.xs, e.noCap, e.relational, e.kept = nil, false, true, x.held
	e.clearDelta()
	taint := func(ci int, row uint32) {
		if rel := e.cur[ci]; !rel.tainted(row) {
			rel.setTaint(row, true)
			d := &e.delta[ci]
			d.rows, d.mons = append(d.rows, row), append(d.mons, nil)
		}
	}
	for _, r := range x.sizeRows {
		if x.spillAt == 0 {
			break // unconditional supports are always kept
		}
		rel := e.cur[r.ci]
		p := rel.poly(r.row)
		k := len(p)
		for k > 0 && len(p[k-1].lits) == x.spillAt {
			k--
		}
		rel.setPoly(r.row, p[:k:k])
		taint(int(r.ci), r.row)
	}
	for _, l := range x.buckets {
		for _, blk := range l.blocks {
			for i := range blk {
				xp := &blk[i]
				rel := e.cur[xp.ci]
				row, ok := rel.find(xp.tuple)
				if ok && absorbedBy(rel.poly(row), xp.m) {
					continue
				}
				if !ok {
					row, _ = rel.insert(xp.tuple)
				}
				taint(int(xp.ci), row)
			}
		}
	}
	e.runRelational()
}

// runRelational runs rounds from the current delta to the fixpoint.
func (e *evaluator) runRelational() {
	for i, rel := range e.cur {
		e.lim[i] = uint32(rel.n)
	}
	e.deltaRounds()
}

// evalExact evaluates stratum s exactly into fresh relations (or, past the
// stratum budget, spills). It reports false, leaving the relations
// half-built, when an exact support exceeds the per-atom bounds.
func (m *Model) evalExact(p *Program, s *strat, res *stratResult) bool {
	e := m.newEvaluator(p, s, true)
	e.noCap = true
	e.xs = newXstate(p.bounds, len(e.cur), 0, false)
	if len(s.rules) == 0 {
		return e.loadExactFacts(p, s, res)
	}
	for i, pred := range s.preds {
		p.fact(pred).each(func(_ uint32, args []uint32, fe *factEntry) {
			e.xs.pushMonos(e, i, args, fe.sup)
		})
	}
	e.compilePlans(s.rules)
	for _, ps := range e.plans {
		if len(ps) == 1 {
			e.exec(ps[0]) // reads no relation of the stratum
		}
	}
	if !e.runExact() {
		return false
	}
	if e.xs == nil { // spilled
		res.mode = modeCut
		if anyTaint(e.cur) {
			res.region = e.groundRegion(p, s)
		}
		return true
	}
	res.mode, res.held = modeExact, e.xs.held
	return true
}

// loadExactFacts loads a stratum of facts alone, failing when a support
// exceeds the bounds.
func (e *evaluator) loadExactFacts(p *Program, s *strat, res *stratResult) bool {
	b, held, ok := p.bounds, 0, true
	for i, pred := range s.preds {
		rel, shared := e.factRel(i, p.fact(pred))
		p.fact(pred).each(func(row uint32, args []uint32, fe *factEntry) {
			if !shared {
				row, _ = rel.insert(args)
			}
			rel.setPoly(row, fe.sup)
			held += len(fe.sup)
			ok = ok && exactFits(fe.sup, b)
		})
	}
	res.mode, res.held = modeExact, held
	return ok && held <= b.MaxStratumMonomials
}

// exactFits reports whether a support is within the per-atom bounds.
func exactFits(p ipoly, b Bounds) bool {
	if len(p) > b.MaxMonomials {
		return false
	}
	for _, mo := range p {
		if len(mo.lits) > b.MaxMonomialSize {
			return false
		}
	}
	return true
}
