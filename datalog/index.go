// This file holds the relation store: rows of interned constants in a
// persistent chunked vector, a primary extendible hash over whole tuples
// (which also serves every lookup that binds all columns), and secondary
// hash indexes on the bound column sets that joins ask for, chaining rows
// that share a key. A row keeps its number for the life of the relation and
// of every version derived from it: removing an atom marks its row dead,
// and adding the atom again revives the same row.

package datalog

import (
	"strconv"
	"sync"
	"weak"
)

// Row flags.
const (
	flagAlive uint8 = 1 << iota
	flagTaint       // the row's polynomial lost monomials (cut, or cut upstream)
)

// relation is the set of atoms of one predicate in one model (or the facts
// of one predicate in one program version). A relation is written only
// while the model that owns it is built, under that model's generation;
// derive starts a new version that shares everything until written.
type relation struct {
	pred  uint32
	arity int
	gen   uint64
	n     int // rows, dead ones included
	live  int
	dead  int
	data  pvec[uint32] // n × arity
	flags pvec[uint8]  // rows below nf; the rows above are alive and untainted
	nf    int
	set   phash // tag → row

	// Provenance, unused while every row's support is One: by row, a
	// handle of its support (polyRef), so that a row whose support is zero
	// or One (most rows of a large stratum that ran out of budget) costs 4
	// bytes, not a slice header.
	hasPolys bool
	prefs    pvec[uint32]
	pbase    *polyBase   // the stored supports a snapshot gave, by handle-2 (pbase.go)
	pstore   pvec[ipoly] // the supports stored since, neither zero nor One, by handle-2-pbase.len()
	ntaint   int         // live tainted rows

	// parent is the version this one was derived from, whose first pn rows
	// are this one's; a missing index is built there first and shared.
	parent weak.Pointer[relation]
	pn     int

	mu  sync.Mutex
	idx map[string]*index
}

func newRelation(pred uint32, arity int, gen uint64) *relation {
	return &relation{pred: pred, arity: arity, gen: gen, data: newPvec[uint32](arity, gen),
		flags: newPvec[uint8](1, gen), set: newPhash(gen), idx: map[string]*index{}}
}

// derive returns a new version of r under gen, sharing all of r's storage.
func (r *relation) derive(gen uint64) *relation {
	d := &relation{pred: r.pred, arity: r.arity, gen: gen, n: r.n, live: r.live, dead: r.dead,
		data: r.data, flags: r.flags, nf: r.nf, set: r.set, hasPolys: r.hasPolys, prefs: r.prefs, pbase: r.pbase, pstore: r.pstore, ntaint: r.ntaint,
		parent: weak.Make(r), pn: r.n}
	r.mu.Lock()
	d.idx = make(map[string]*index, len(r.idx))
	for k, ix := range r.idx {
		c := *ix
		d.idx[k] = &c
	}
	r.mu.Unlock()
	return d
}

func (r *relation) row(i uint32) []uint32 { return r.data.slice(i) }

func (r *relation) alive(i uint32) bool { return r.dead == 0 || r.flag(i)&flagAlive != 0 }

// flag returns row i's flags. Rows get explicit flags only when one is
// first written, so that bulk evaluation does not store them.
func (r *relation) flag(i uint32) uint8 {
	if int(i) >= r.nf {
		return flagAlive
	}
	return r.flags.get(i)
}

func (r *relation) setFlag(i uint32, f uint8) {
	if r.nf <= int(i) {
		r.flags.pushFill(r.nf, int(i)+1, flagAlive, r.gen)
		r.nf = int(i) + 1
	}
	r.flags.set(i, f, r.gen)
}

// liveRows returns the live rows in order.
func (r *relation) liveRows() []uint32 {
	out := make([]uint32, 0, r.live)
	for i := range r.n {
		if r.alive(uint32(i)) {
			out = append(out, uint32(i))
		}
	}
	return out
}

// allOne reports whether every row's support is One.
func (r *relation) allOne() bool { return !r.hasPolys }

// Support handles: zero, One, polyUnit|l for the literal l alone (the
// shared unitPoly, so that a row supported by one literal, the common
// case among facts, stores nothing but its handle), or 2+k for pstore
// row k. Literal ids and pstore rows stay below polyUnit: each costs far
// more than 4 bytes, so 2^31 of them do not fit in memory.
const (
	polyZero uint32 = iota
	polyOne
	polyStored
	polyUnit uint32 = 1 << 31
)

func (r *relation) poly(i uint32) ipoly {
	if !r.hasPolys {
		return ipolyOne
	}
	switch h := r.prefs.get(i); {
	case h == polyZero:
		return nil
	case h == polyOne:
		return ipolyOne
	case h&polyUnit != 0:
		return unitPoly(h &^ polyUnit)
	default:
		return r.stored(h - polyStored)
	}
}

// stored returns stored support k: the base's, or one stored since.
func (r *relation) stored(k uint32) ipoly {
	if nb := uint32(r.pbase.len()); k >= nb {
		return r.pstore.get(k - nb)
	}
	return r.pbase.get(k)
}

// storedLen is the number of stored supports.
func (r *relation) storedLen() int { return r.pbase.len() + r.pstore.rows() }

// setPoly sets row i's support. A row that once had a stored support keeps
// its pstore row, whatever it is set to later, so nothing is left unused;
// one of the base's, which is never written, takes a handle anew.
func (r *relation) setPoly(i uint32, p ipoly) {
	h := r.prefs.get(i)
	nb := uint32(r.pbase.len())
	if h >= polyStored && h&polyUnit == 0 && h-polyStored >= nb {
		r.pstore.set(h-polyStored-nb, p, r.gen)
		return
	}
	switch l, unit := unitLit(p); {
	case len(p) == 0:
		r.setRef(i, h, polyZero)
	case p.isOne():
		r.setRef(i, h, polyOne)
	case unit:
		r.setRef(i, h, polyUnit|l)
	default:
		k := uint32(r.pstore.rows())
		r.pstore.push1(k, p, r.gen)
		r.setRef(i, h, nb+k+polyStored)
	}
}

func (r *relation) setRef(i, old, h uint32) {
	if old != h {
		r.prefs.set(i, h, r.gen)
	}
}

func (r *relation) tainted(i uint32) bool { return r.hasPolys && r.flag(i)&flagTaint != 0 }

func (r *relation) setTaint(i uint32, t bool) {
	f := r.flag(i)
	if (f&flagTaint != 0) == t {
		return
	}
	if t {
		r.setFlag(i, f|flagTaint)
		r.ntaint++
	} else {
		r.setFlag(i, f&^flagTaint)
		r.ntaint--
	}
}

func hashVals(vals []uint32) uint64 {
	h := uint64(0x9E3779B97F4A7C15)
	for _, v := range vals {
		h = (h ^ uint64(v)) * 0xbf58476d1ce4e5b9
		h ^= h >> 29
	}
	return h ^ h>>32
}

func hashCols(row []uint32, cols []int) uint64 {
	h := uint64(0x9E3779B97F4A7C15)
	for _, c := range cols {
		h = (h ^ uint64(row[c])) * 0xbf58476d1ce4e5b9
		h ^= h >> 29
	}
	return h ^ h>>32
}

func equalVals(a, b []uint32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// probe looks tuple t up in the primary hash: its row if present, else
// the empty slot where it would go.
func (r *relation) probe(t []uint32, tag uint32) (row uint32, found bool, dirSlot int, free uint32) {
	dirSlot, pg := r.set.page(tag)
	mask := uint32(len(pg) - 1)
	for s := tag & mask; ; s = (s + 1) & mask {
		e := pg[s]
		if e == 0 {
			return 0, false, dirSlot, s
		}
		if uint32(e>>32) == tag && equalVals(r.row(uint32(e)-1), t) {
			return uint32(e) - 1, true, dirSlot, 0
		}
	}
}

// home returns the entry in tuple t's home slot of r's hash. Loaded for
// a group of tuples before any is inserted, these loads overlap their
// cache misses, where one insert after another waits for each in turn
// (warmFacts, mergeBucket; findNew does the same).
func (r *relation) home(t []uint32) uint64 {
	tag := uint32(hashVals(t) >> 32)
	_, pg := r.set.page(tag)
	return pg[tag&uint32(len(pg)-1)]
}

// lookup returns the row holding tuple t, dead or alive. (It is probe
// without the insertion point, kept small: lookups of consecutive tuples
// then overlap their cache misses.)
func (r *relation) lookup(t []uint32) (uint32, bool) {
	return r.lookupTag(t, uint32(hashVals(t)>>32))
}

// lookupTag is lookup of a tuple whose tag is known.
func (r *relation) lookupTag(t []uint32, tag uint32) (uint32, bool) {
	_, pg := r.set.page(tag)
	mask := uint32(len(pg) - 1)
	for s := tag & mask; ; s = (s + 1) & mask {
		e := pg[s]
		if e == 0 {
			return 0, false
		}
		if uint32(e>>32) == tag {
			if row := uint32(e) - 1; equalVals(r.row(row), t) {
				return row, true
			}
		}
	}
}

// find returns the live row holding tuple t.
func (r *relation) find(t []uint32) (uint32, bool) {
	row, ok := r.lookup(t)
	if ok && r.dead > 0 {
		ok = r.flag(row)&flagAlive != 0
	}
	return row, ok
}

// insert adds tuple t unless a live row holds it; it returns the row and
// whether it was added (appended, or a dead row revived with no support).
// Appended rows join every index; revived rows are still in them.
func (r *relation) insert(t []uint32) (uint32, bool) {
	tag := uint32(hashVals(t) >> 32)
	row, ok, slot, free := r.probe(t, tag)
	if ok {
		if r.alive(row) {
			return row, false
		}
		r.setFlag(row, flagAlive)
		if r.hasPolys {
			r.setPoly(row, nil)
		}
		r.dead--
		r.live++
		return row, true
	}
	row = uint32(r.n)
	r.data.push(row, t, r.gen)
	if r.hasPolys {
		r.prefs.push1(row, polyZero, r.gen)
	}
	if r.set.room(slot) {
		r.set.put(slot, free, uint64(tag)<<32|uint64(row+1), true, r.gen)
	} else {
		r.set.add(tag, row, r.gen)
	}
	r.n++
	r.live++
	if len(r.idx) > 0 { // ranging over an empty map still costs an iterator
		for _, ix := range r.idx {
			ix.add(r, row)
		}
	}
	return row, true
}

// kill marks a live row dead and drops its support.
func (r *relation) kill(row uint32) {
	r.setTaint(row, false)
	r.setFlag(row, 0)
	if r.hasPolys {
		r.setPoly(row, nil)
	}
	r.live--
	r.dead++
}

// enableProvenance gives every existing row the support One.
func (r *relation) enableProvenance() {
	if r.hasPolys {
		return
	}
	r.hasPolys = true
	r.prefs = newPvec[uint32](1, r.gen)
	r.pbase, r.pstore = nil, newPvecShift[ipoly](1, wideShift, r.gen)
	r.prefs.pushFill(0, r.n, polyOne, r.gen)
}

// index chains the rows of a relation by the values of some columns.
type index struct {
	cols  []int
	heads phash        // tag → newest row of the key
	next  pvec[uint32] // by row: row+1 of the next older row with the same key
}

func colsKey(cols []int) string {
	b := make([]byte, 0, 3*len(cols))
	for _, c := range cols {
		b = strconv.AppendInt(b, int64(c), 10)
		b = append(b, ',')
	}
	return string(b)
}

// index returns the index on cols, building it on first use. Building is
// locked because relations of finished models are shared. A derived
// version builds the index on its parent (when still alive) and adds only
// its own rows, so versions of one base share the work.
func (r *relation) index(cols []int) *index {
	key := colsKey(cols)
	r.mu.Lock()
	defer r.mu.Unlock()
	if ix, ok := r.idx[key]; ok {
		return ix
	}
	var ix *index
	from := 0
	if par := r.parent.Value(); par != nil {
		c := *par.index(cols)
		ix, from = &c, r.pn
	} else {
		ix = &index{cols: cols, heads: newPhash(r.gen), next: newPvec[uint32](1, r.gen)}
	}
	for i := from; i < r.n; i++ {
		ix.add(r, uint32(i))
	}
	r.idx[key] = ix
	return ix
}

// add chains row, the relation's newest row, under its key.
func (ix *index) add(r *relation, row uint32) {
	vals := r.row(row)
	tag := uint32(hashCols(vals, ix.cols) >> 32)
	i, pg := ix.heads.page(tag)
	mask := uint32(len(pg) - 1)
	for s := tag & mask; ; s = (s + 1) & mask {
		e := pg[s]
		if e == 0 {
			break
		}
		if uint32(e>>32) == tag && sameCols(r.row(uint32(e)-1), vals, ix.cols) {
			ix.next.push1(row, uint32(e), r.gen)
			ix.heads.put(i, s, uint64(tag)<<32|uint64(row+1), false, r.gen)
			return
		}
	}
	ix.next.push1(row, 0, r.gen)
	ix.heads.add(tag, row, r.gen)
}

func sameCols(a, b []uint32, cols []int) bool {
	for _, c := range cols {
		if a[c] != b[c] {
			return false
		}
	}
	return true
}

// lookup returns row+1 of the newest row whose indexed columns equal key
// (in ix.cols order), 0 if none. Follow nextOf for older rows; dead rows
// stay chained.
func (ix *index) lookup(r *relation, key []uint32) uint32 {
	tag := uint32(hashVals(key) >> 32)
	_, pg := ix.heads.page(tag)
	mask := uint32(len(pg) - 1)
	for s := tag & mask; ; s = (s + 1) & mask {
		e := pg[s]
		if e == 0 {
			return 0
		}
		if uint32(e>>32) != tag {
			continue
		}
		row := r.row(uint32(e) - 1)
		match := true
		for i, c := range ix.cols {
			if row[c] != key[i] {
				match = false
				break
			}
		}
		if match {
			return uint32(e)
		}
	}
}

// nextOf returns row+1 of the next older row with row's key, 0 if none.
func (ix *index) nextOf(row uint32) uint32 { return ix.next.get(row) }
