// This file holds the facts of a program: per predicate, a persistent
// table of ground tuples with their supports, and a log of the rows each
// change touched, so that a model can find what changed since the program
// version it was evaluated from without comparing whole fact sets.

package datalog

import "slices"

// factEntry is one ground fact's support, full and uncut. pubs are the
// supports as given, one per AddFact call, kept so that a truncated support
// taken from another model is still evaluated exactly; nil when the fact
// was given once (pub is that support), the common case, which then costs
// no slice of its own; a pointer, so that an entry is 16 B smaller
// (DL-0311). An entry is never written once made. Every fact given once
// with the same one-variable support has one shared entry (unit.go), which
// its fact set names by the variable's literal in a 4-byte handle, so such
// a fact costs 4 B of its set, not an entry of its own (DL-0354); likewise
// every fact given once the support One.
type factEntry struct {
	sup  ipoly
	pub  Poly
	pubs *[]Poly
}

// given returns the supports as given, in the order given; the slice is
// never written.
func (f *factEntry) given() []Poly {
	if f.pubs == nil {
		return []Poly{f.pub}
	}
	return *f.pubs
}

// truncated reports whether a support given for the fact was truncated.
func (f *factEntry) truncated() bool {
	if f.pubs == nil {
		return f.pub.Truncated()
	}
	for _, p := range *f.pubs {
		if p.Truncated() {
			return true
		}
	}
	return false
}

// eval evaluates the fact's support exactly under v.
func (f *factEntry) eval(v Valuation) Truth {
	if f.pubs == nil {
		return f.pub.Eval(v)
	}
	t := False
	for _, p := range *f.pubs {
		t = max(t, p.Eval(v))
	}
	return t
}

// factLog is a run of changes of a fact set: the rows they touched and the
// version the last produced, newest run first. The changes one generation
// makes in a row form one run: no model reads a fact set while its
// generation writes it (Eval and Clone move the program on first), so the
// versions within a run are never diffed against and need no entry of
// their own, which at millions of facts was an allocation a fact.
type factLog struct {
	ver   uint64
	gen   uint64    // the generation that may still add to the run
	rows  []uint32  // the rows changed, oldest first
	depth int32     // changes in the chain, this run's included
	first [1]uint32 // rows' first array: a run of one change, the staged add's, is one allocation
	prev  *factLog
}

// maxFactLog bounds a log chain; past it the chain restarts, and models
// older than the restart are no longer diffed against (their strata are
// recomputed).
const maxFactLog = 1 << 14

// factSet holds the facts of one predicate. A fact set belongs to one
// program generation; a program whose generation moved on (Clone, Eval)
// derives a new one before writing, sharing the rest.
type factSet struct {
	gen     uint64
	tab     *relation        // tuples; a removed fact leaves a dead row
	ents    pvec[uint32]     // by row, a support handle naming its entry (see entry)
	more    pvec[*factEntry] // the entries that are not shared; nil for a dead row
	lits    *litTable        // the unit entries
	version uint64
	log     *factLog
	base    uint64 // the version before the oldest change in the log
	nonOne  int    // live facts whose support is not One
	ntrunc  int    // live facts with a truncated support
}

// oneEntry is the entry of every fact given once the support One.
var oneEntry = &factEntry{pub: One(), sup: ipolyOne}

func newFactSet(pred uint32, arity int, gen uint64, lits *litTable) *factSet {
	return &factSet{gen: gen, tab: newRelation(pred, arity, gen), ents: newPvec[uint32](1, gen),
		more: newPvecShift[*factEntry](1, wideShift, gen), lits: lits}
}

func (f *factSet) derive(gen uint64) *factSet {
	c := *f
	c.gen = gen
	c.tab = f.tab.derive(gen)
	return &c
}

func versionOf(f *factSet) uint64 {
	if f == nil {
		return 0
	}
	return f.version
}

// entry returns the fact of a live row; the caller must not write it. Its
// handle is a support handle (index.go) of the fact's support, naming the
// shared entry of One or of a unit support, or more row k (polyStored+k):
// so that while no fact has an entry of its own, a model can take the
// handles whole for the supports of its relation (DL-0356).
func (f *factSet) entry(row uint32) *factEntry {
	switch h := f.ents.get(row); {
	case h&polyUnit != 0:
		return f.lits.unitEntry(h &^ polyUnit)
	case h == polyOne:
		return oneEntry
	default:
		return f.more.get(h - polyStored)
	}
}

// setEntry sets the entry of row, a new row (the next) or a live one, to e
// with handle h, or of its own when h is zero. A row that had an entry of
// its own keeps its row of more, whatever it is set to, so that none is
// left unused.
func (f *factSet) setEntry(row uint32, e *factEntry, h uint32) {
	old := polyZero
	if int(row) < f.ents.rows() {
		old = f.ents.get(row)
	}
	switch {
	case old >= polyStored && old&polyUnit == 0:
		f.more.set(old-polyStored, e, f.gen)
		return
	case h == polyZero:
		k := uint32(f.more.rows())
		f.more.push1(k, e, f.gen)
		h = k + polyStored
	}
	if int(row) == f.ents.rows() {
		f.ents.push1(row, h, f.gen)
	} else {
		f.ents.set(row, h, f.gen)
	}
}

// count adjusts the counters for a live fact entering (+1) or leaving (-1).
func (f *factSet) count(e *factEntry, d int) {
	if !e.sup.isOne() {
		f.nonOne += d
	}
	if e.truncated() {
		f.ntrunc += d
	}
}

// logChange records that row changed, giving the set a new version.
func (f *factSet) logChange(row uint32) {
	v := versionClock.Add(1)
	depth := int32(1)
	prev := f.log
	if prev != nil {
		depth = prev.depth + 1
	}
	switch {
	case depth > maxFactLog:
		f.base, prev, depth = f.version, nil, 1
	case prev != nil && prev.gen == f.gen:
		prev.rows = append(prev.rows, row)
		prev.ver, prev.depth = v, depth
		f.version = v
		return
	}
	l := &factLog{ver: v, gen: f.gen, depth: depth, first: [1]uint32{row}, prev: prev}
	l.rows = l.first[:]
	f.log = l
	f.version = v
}

// put sets the fact of tuple (adding its support to a live fact's).
func (f *factSet) put(p *Program, tuple []uint32, support Poly) {
	row, added := f.tab.insert(tuple)
	var e *factEntry
	var h uint32
	if added {
		e, h = p.canonical(support)
	} else {
		old := f.entry(row)
		f.count(old, -1)
		pubs := append(slices.Clip(old.given()), support)
		e = &factEntry{pub: old.pub.Add(support), pubs: &pubs}
		e.sup = p.internPoly(e.pub)
	}
	f.setEntry(row, e, h)
	f.count(e, 1)
	f.logChange(row)
}

// unput takes back the i-th support given for a live row, dropping the
// fact when it was the last.
func (f *factSet) unput(p *Program, row uint32, i int) {
	old := f.entry(row)
	if len(old.given()) == 1 {
		f.drop(row)
		return
	}
	f.count(old, -1)
	pubs := slices.Delete(slices.Clone(*old.pubs), i, i+1)
	var e *factEntry
	var h uint32
	if len(pubs) == 1 {
		// Given once again: the compact (for One or a unit, shared) form.
		e, h = p.lits.canonical(p, pubs[0])
	} else {
		pub := pubs[0]
		for _, q := range pubs[1:] {
			pub = pub.Add(q)
		}
		e = &factEntry{pub: pub, pubs: &pubs, sup: p.internPoly(pub)}
	}
	f.setEntry(row, e, h)
	f.count(e, 1)
	f.logChange(row)
}

// drop removes the fact of a live row.
func (f *factSet) drop(row uint32) {
	f.count(f.entry(row), -1)
	f.tab.kill(row)
	if h := f.ents.get(row); h >= polyStored && h&polyUnit == 0 {
		f.more.set(h-polyStored, nil, f.gen) // the row keeps its row of more
	}
	f.logChange(row)
	if f.tab.dead > 1024 && f.tab.dead > f.tab.live {
		f.compact()
	}
}

// compact rebuilds the table without dead rows. Row numbers change, so the
// log restarts.
func (f *factSet) compact() {
	tab := newRelation(f.tab.pred, f.tab.arity, f.gen)
	c := &factSet{gen: f.gen, tab: tab, ents: newPvec[uint32](1, f.gen),
		more: newPvecShift[*factEntry](1, wideShift, f.gen), lits: f.lits}
	for i := range f.tab.n {
		if f.tab.alive(uint32(i)) {
			row, _ := tab.insert(f.tab.row(uint32(i)))
			h := f.ents.get(uint32(i))
			if h >= polyStored && h&polyUnit == 0 {
				h = polyZero // an entry of its own
			}
			c.setEntry(row, f.entry(uint32(i)), h)
		}
	}
	f.tab, f.ents, f.more = tab, c.ents, c.more
	f.log, f.base = nil, versionClock.Add(1)
	f.version = f.base
}

// each calls fn with every live fact.
func (f *factSet) each(fn func(row uint32, args []uint32, e *factEntry)) {
	if f == nil {
		return
	}
	for i := range f.tab.n {
		if row := uint32(i); f.tab.alive(row) {
			fn(row, f.tab.row(row), f.entry(row))
		}
	}
}

// factDiff returns the rows of cur that may differ from old (a version
// cur descends from), or false when cur's log does not reach back to old.
func factDiff(old, cur *factSet) ([]uint32, bool) {
	ov := versionOf(old)
	if ov == versionOf(cur) {
		return nil, true
	}
	if cur == nil {
		return nil, false
	}
	var rows []uint32
	for l := cur.log; l != nil; l = l.prev {
		if l.ver == ov {
			return dedupRows(rows), true
		}
		rows = append(rows, l.rows...)
	}
	if cur.base == ov {
		return dedupRows(rows), true
	}
	return nil, false
}

func dedupRows(rows []uint32) []uint32 {
	slices.Sort(rows)
	return slices.Compact(rows)
}

// factAt returns the fact of tuple in f, nil when f has none.
func factAt(f *factSet, tuple []uint32) *factEntry {
	if f == nil {
		return nil
	}
	if row, ok := f.tab.find(tuple); ok {
		return f.entry(row)
	}
	return nil
}
