// This file holds the literal table: provenance literals (variables,
// negated atoms, negated atoms of other models) interned to ids shared by
// every model of a program. The table is append-only, so a model keeps
// reading the ids it was built with while its program goes on interning.
//
// The literals a snapshot held are read from its columns (litCols), in
// place when the load aliased them, so that they cost a loaded world no
// heap; literals interned after lie in compact records of the table's
// own (litRec), never in the snapshot's bytes (DL-0399).

package datalog

import (
	"sync"

	"github.com/deloreis/deloreis/base/hugemem"
)

// Literal kinds.
const (
	litVar     uint8 = iota // a provenance variable the caller named
	litNeg                  // the negation of an atom of this program
	litForeign              // the negation of an atom of another model
)

// lit is one literal as a litList reads it: a value, so that reading one
// allocates nothing. The caller must not write args.
type lit struct {
	kind uint8
	// pred is the atom's predicate for litNeg; for litVar and litForeign,
	// the index of the literal's extra (litList.extraOf).
	pred uint32
	args []uint32 // litNeg: the atom's arguments
}

// litExtra is what a variable or foreign literal holds besides its kind:
// few literals are of these kinds, so they keep a record apart.
type litExtra struct {
	name    string  // the variable, or the foreign "not p(a, b)"
	foreign atomRef // litForeign
}

// litCols are literals as a snapshot holds them, column by column; the
// columns are never written (they may lie in a read-only mapping).
type litCols struct {
	n     int
	heads []uint32 // by literal: kind<<litKindShift | pred (or extra index)
	offs  []uint32 // n+1: literal i's arguments are args[offs[i]:offs[i+1]]
	args  []uint32
	negs  []uint64 // the negated atoms' table (negTable's slots)
}

// A literal's head packs its kind above its predicate or extra index.
const (
	litKindShift = 30
	litXMask     = 1<<litKindShift - 1
)

var noLitCols = &litCols{}

func (b *litCols) at(id uint32) lit {
	h := b.heads[id]
	lo, hi := b.offs[id], b.offs[id+1]
	return lit{kind: uint8(h >> litKindShift), pred: h & litXMask, args: b.args[lo:hi:hi]}
}

// litRec is a literal interned after the snapshot the table was loaded
// from (or all of them, without one): 16 bytes, the arguments of a
// negated atom lying in the table's arena (argAt).
type litRec struct {
	argAt uint32 // argument segment<<argOffBits | offset in it
	nargs uint32
	x     uint32 // lit.pred
	kind  uint8
}

// The argument arena: segments that never move, of doubling length from
// argFirst to 1<<argOffBits values; an atom's arguments lie within one
// segment, a segment of their own when they are more than one holds.
const (
	argOffBits = 16
	argFirst   = 1 << 10
)

type foreignKey struct {
	m    *Model
	pred uint32
	row  uint32
}

// litTable interns literals to ids. A negated atom's rendering is made
// when it is asked for, from the program's interners, not when it is
// interned: a large world interns millions and renders few (DL-0369).
type litTable struct {
	mu      sync.RWMutex
	vars    map[string]uint32
	negs    negTable // negated atoms (negtable.go)
	foreign map[foreignKey]uint32
	base    *litCols   // the literals below base.n, loaded from a snapshot
	recs    [][]litRec // the literals from base.n on, in segments as an interner's names
	args    [][]uint32 // the argument arena of recs
	argFill int        // values used in the arena's last segment
	extra   [][]litExtra
	nextra  int
	n       int
	units   chunkTable[unitEntries] // the entry of a unit support, by its variable literal (unit.go)

	consts, preds *interner // the program's, for renderings
}

func newLitTable(consts, preds *interner) *litTable {
	return &litTable{vars: map[string]uint32{}, foreign: map[foreignKey]uint32{}, base: noLitCols,
		consts: consts, preds: preds}
}

// push appends a literal, returning its id; the caller holds mu for
// writing.
func (t *litTable) push(kind uint8, x uint32, args []uint32) uint32 {
	id := uint32(t.n)
	k, o := nameSeg(id - uint32(t.base.n))
	if k == len(t.recs) {
		t.recs = append(t.recs, hugemem.Make[litRec](segLen(k))) // millions, in a large world
	}
	t.recs[k][o] = litRec{argAt: t.placeArgs(args), nargs: uint32(len(args)), x: x, kind: kind}
	t.n++
	return id
}

// placeArgs copies args into the arena, returning where they lie.
func (t *litTable) placeArgs(args []uint32) uint32 {
	if len(args) == 0 {
		return 0
	}
	k := len(t.args) - 1
	if k < 0 || t.argFill+len(args) > len(t.args[k]) {
		k++
		if k >= 1<<(32-argOffBits) {
			panic("datalog: the literal table's argument arena is full")
		}
		t.args = append(t.args, make([]uint32, max(argFirst<<min(k, argOffBits-10), len(args))))
		t.argFill = 0
	}
	at := uint32(k)<<argOffBits | uint32(t.argFill)
	t.argFill += copy(t.args[k][t.argFill:], args)
	return at
}

// pushExtra appends e, returning its index; the caller holds mu for
// writing.
func (t *litTable) pushExtra(e litExtra) uint32 {
	x := uint32(t.nextra)
	k, o := nameSeg(x)
	if k == len(t.extra) {
		t.extra = append(t.extra, make([]litExtra, segLen(k)))
	}
	t.extra[k][o] = e
	t.nextra++
	return x
}

// varLit interns the variable name.
func (t *litTable) varLit(name string) uint32 {
	t.mu.RLock()
	id, ok := t.vars[name]
	t.mu.RUnlock()
	if ok {
		return id
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := t.vars[name]; ok {
		return id
	}
	id = t.push(litVar, t.pushExtra(litExtra{name: name}), nil)
	t.vars[name] = id
	return id
}

// negLit interns "not pred(args)".
func (t *litTable) negLit(pred uint32, args []uint32) uint32 {
	h := negHash(pred, args)
	t.mu.RLock()
	id, ok := t.findNeg(pred, args, h)
	t.mu.RUnlock()
	if ok {
		return id
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := t.findNeg(pred, args, h); ok {
		return id
	}
	id = t.push(litNeg, pred, args)
	t.addNeg(id, h)
	return id
}

// foreignLit interns the negation of an atom of another model.
func (t *litTable) foreignLit(l plit) uint32 {
	k := foreignKey{l.neg.m, l.neg.pred, l.neg.row}
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := t.foreign[k]; ok {
		return id
	}
	id := t.push(litForeign, t.pushExtra(litExtra{name: l.name, foreign: *l.neg}), nil)
	t.foreign[k] = id
	return id
}

func (t *litTable) snapshot() litList {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.list()
}

// list is snapshot for a caller that holds mu.
func (t *litTable) list() litList {
	return litList{base: t.base, recs: t.recs[:len(t.recs):len(t.recs)], args: t.args[:len(t.args):len(t.args)],
		extra: t.extra[:len(t.extra):len(t.extra)], n: t.n, t: t}
}

// litList is the literals of a table below n, as a snapshot held them;
// nothing it reads is written below n.
type litList struct {
	base  *litCols
	recs  [][]litRec
	args  [][]uint32
	extra [][]litExtra
	n     int
	t     *litTable
}

func (l *litList) len() int { return l.n }

// at returns literal id.
func (l *litList) at(id uint32) lit {
	if int(id) < l.base.n {
		return l.base.at(id)
	}
	k, o := nameSeg(id - uint32(l.base.n))
	r := &l.recs[k][o]
	li := lit{kind: r.kind, pred: r.x}
	if r.nargs > 0 {
		s, lo := l.args[r.argAt>>argOffBits], r.argAt&(1<<argOffBits-1)
		li.args = s[lo : lo+r.nargs : lo+r.nargs]
	}
	return li
}

// extraOf returns the extra of li, a variable or foreign literal; the
// caller must not write it.
func (l *litList) extraOf(li lit) *litExtra {
	k, o := nameSeg(li.pred)
	return &l.extra[k][o]
}

// name returns the rendering of literal id.
func (l *litList) name(id uint32) string {
	li := l.at(id)
	if li.kind != litNeg {
		return l.extraOf(li).name
	}
	names := make([]string, len(li.args))
	consts := l.t.consts.snapshot()
	for i, a := range li.args {
		names[i] = consts.at(a)
	}
	return "not " + renderAtom(l.t.preds.snapshot().at(li.pred), names)
}
