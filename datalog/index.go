// This file holds the relation store: flat rows of interned constants, a
// primary open-addressing hash set over whole tuples (which also serves
// every lookup that binds all columns), and secondary hash indexes on the
// bound column sets that joins ask for, chaining rows that share a key.

package datalog

import (
	"strconv"
	"sync"
)

// relation is the set of atoms of one predicate in one model. Rows are
// appended during their stratum's evaluation and never change after it.
type relation struct {
	pred  uint32
	arity int
	n     int      // rows
	data  []uint32 // n × arity
	set   []uint64 // primary hash: upper 32 hash bits<<32 | row+1, 0 empty
	shift uint     // 64 - log2(len(set)): a slot is the hash's top bits
	used  int

	// Provenance: nil while every row's support is One.
	polys []ipoly
	taint []bool // the row's polynomial lost monomials (cut, or cut upstream)

	mu  sync.Mutex
	idx map[string]*index
}

func newRelation(pred uint32, arity int) *relation {
	return &relation{pred: pred, arity: arity, set: make([]uint64, 8), shift: 64 - 3, idx: map[string]*index{}}
}

func (r *relation) row(i uint32) []uint32 {
	o := int(i) * r.arity
	return r.data[o : o+r.arity : o+r.arity]
}

// allOne reports whether every row's support is One.
func (r *relation) allOne() bool { return r.polys == nil }

func (r *relation) poly(i uint32) ipoly {
	if r.polys == nil {
		return ipolyOne
	}
	return r.polys[i]
}

func (r *relation) tainted(i uint32) bool { return r.taint != nil && r.taint[i] }

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

// find returns the row holding tuple t.
func (r *relation) find(t []uint32) (uint32, bool) {
	h := hashVals(t)
	tag := h >> 32 << 32
	mask := uint64(len(r.set) - 1)
	for s := h >> r.shift; ; s = (s + 1) & mask {
		e := r.set[s]
		if e == 0 {
			return 0, false
		}
		if e&^0xffffffff == tag && equalVals(r.row(uint32(e)-1), t) {
			return uint32(e) - 1, true
		}
	}
}

// insert adds tuple t unless present; it returns the row and whether it was
// added. New rows join every index.
func (r *relation) insert(t []uint32) (uint32, bool) {
	h := hashVals(t)
	tag := h >> 32 << 32
	mask := uint64(len(r.set) - 1)
	s := h >> r.shift
	for ; ; s = (s + 1) & mask {
		e := r.set[s]
		if e == 0 {
			break
		}
		if e&^0xffffffff == tag && equalVals(r.row(uint32(e)-1), t) {
			return uint32(e) - 1, false
		}
	}
	row := uint32(r.n)
	r.data = append(r.data, t...)
	r.n++
	r.set[s] = tag | uint64(row+1)
	r.used++
	if r.used*2 > len(r.set) {
		r.growSet()
	}
	if r.polys != nil {
		r.polys = append(r.polys, nil)
		r.taint = append(r.taint, false)
	}
	for _, ix := range r.idx {
		ix.add(r, row)
	}
	return row, true
}

// growSet doubles the primary hash. Slots come from the stored upper hash
// bits, so no tuple is read or rehashed.
func (r *relation) growSet() {
	set := make([]uint64, len(r.set)*2)
	r.shift--
	mask := uint64(len(set) - 1)
	for _, e := range r.set {
		if e == 0 {
			continue
		}
		s := e >> r.shift
		for set[s] != 0 {
			s = (s + 1) & mask
		}
		set[s] = e
	}
	r.set = set
}

// enableProvenance gives every existing row the support One.
func (r *relation) enableProvenance() {
	if r.polys != nil {
		return
	}
	r.polys = make([]ipoly, r.n, max(r.n, 8))
	for i := range r.polys {
		r.polys[i] = ipolyOne
	}
	r.taint = make([]bool, r.n, max(r.n, 8))
}

// index chains the rows of a relation by the values of some columns.
type index struct {
	cols  []int
	heads []uint32 // row+1 of the newest row of each key; 0 empty
	next  []uint32 // by row: row+1 of the next older row with the same key
	used  int
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
// locked because relations of finished strata are shared between models.
func (r *relation) index(cols []int) *index {
	key := colsKey(cols)
	r.mu.Lock()
	defer r.mu.Unlock()
	if ix, ok := r.idx[key]; ok {
		return ix
	}
	ix := &index{cols: cols, heads: make([]uint32, 8)}
	for i := range r.n {
		ix.add(r, uint32(i))
	}
	r.idx[key] = ix
	return ix
}

func (ix *index) add(r *relation, row uint32) {
	for int(row) >= len(ix.next) {
		ix.next = append(ix.next, 0)
	}
	vals := r.row(row)
	mask := uint64(len(ix.heads) - 1)
	for s := hashCols(vals, ix.cols) & mask; ; s = (s + 1) & mask {
		h := ix.heads[s]
		if h == 0 {
			ix.heads[s] = row + 1
			ix.used++
			if ix.used*2 > len(ix.heads) {
				ix.grow(r)
			}
			return
		}
		if sameCols(r.row(h-1), vals, ix.cols) {
			ix.next[row] = h
			ix.heads[s] = row + 1
			return
		}
	}
}

func sameCols(a, b []uint32, cols []int) bool {
	for _, c := range cols {
		if a[c] != b[c] {
			return false
		}
	}
	return true
}

func (ix *index) grow(r *relation) {
	heads := make([]uint32, len(ix.heads)*2)
	mask := uint64(len(heads) - 1)
	for _, h := range ix.heads {
		if h == 0 {
			continue
		}
		s := hashCols(r.row(h-1), ix.cols) & mask
		for heads[s] != 0 {
			s = (s + 1) & mask
		}
		heads[s] = h
	}
	ix.heads = heads
}

// lookup returns row+1 of the newest row whose indexed columns equal key
// (in ix.cols order), 0 if none. Follow ix.next for older rows.
func (ix *index) lookup(r *relation, key []uint32) uint32 {
	mask := uint64(len(ix.heads) - 1)
	for s := hashVals(key) & mask; ; s = (s + 1) & mask {
		h := ix.heads[s]
		if h == 0 {
			return 0
		}
		row := r.row(h - 1)
		match := true
		for i, c := range ix.cols {
			if row[c] != key[i] {
				match = false
				break
			}
		}
		if match {
			return h
		}
	}
}
