// Entries read lazily (issue 13, DL-0395): a world restored from a
// compiled world file need not hold its committed entries in memory. They
// stay where they are kept (an EntryBase reads them in place) and are
// decoded a leaf at a time, the first time anything asks for one of a
// leaf, so that a session's memory grows with the entries it reads, not
// with the scope. The index keeps of them only what it files by: each
// big kind's positions, and the named kinds' names.

package world

import (
	"errors"
	"iter"
	"slices"
	"sync/atomic"

	"github.com/deloreis/deloreis/objects"
)

// EntryBase is the committed entries of a compile, read where they are
// kept, in id order, each id once. Its methods must be safe for
// concurrent use, and must not fail: a base checks its bytes when it is
// opened, and they never change after.
type EntryBase interface {
	Len() int
	ID(i int) objects.ID
	Type(i int) objects.Type
	// Name is the name entry i is filed under when it is a fact (its
	// key) or an entity (its ident); "" for every other kind.
	Name(i int) string
	// Object decodes entry i.
	Object(i int) objects.Object
	// Keyed lists, in order, the facts whose key is key; it is asked
	// only for the keys in KeysFiled, which a base may note when opened.
	Keyed(key string) []int
	// OfType lists, in order, the positions of the entries of type t;
	// the caller never writes the list.
	OfType(t objects.Type) []uint32
	// Entities is the base's entities by ident (Name), which the index
	// reads where the base keeps them (entities.go).
	Entities() EntityIdents
}

// KeysFiled are the fact keys an index files facts under (the answers to
// questions): the keys EntryBase.Keyed is asked for.
var KeysFiled = []string{answerKey}

// lazyLeafLen is how many entries are decoded at once: one read of an
// entry decodes its leaf.
const lazyLeafLen = 64

type lazyLeaf [lazyLeafLen]Entry

// lazyEntries is a base's entries, each leaf decoded on first use. A
// leaf, once decoded, is never replaced: a pointer to one of its entries
// stays valid and unchanged, as one into a pvec does.
type lazyEntries struct {
	src    EntryBase
	n      int
	leaves []atomic.Pointer[lazyLeaf]
	read   atomic.Int64 // leaves decoded, for tests
}

func newLazyEntries(src EntryBase) *lazyEntries {
	n := src.Len()
	return &lazyEntries{src: src, n: n, leaves: make([]atomic.Pointer[lazyLeaf], (n+lazyLeafLen-1)/lazyLeafLen)}
}

// ptr is where entry i lives once read.
func (l *lazyEntries) ptr(i int) *Entry {
	lf := l.leaves[i/lazyLeafLen].Load()
	if lf == nil {
		lf = l.load(i / lazyLeafLen)
	}
	return &lf[i%lazyLeafLen]
}

// load decodes leaf li. Two readers may decode it at once; the first to
// store it wins, and both return that one.
func (l *lazyEntries) load(li int) *lazyLeaf {
	lf := new(lazyLeaf)
	lo := li * lazyLeafLen
	for k := range min(lazyLeafLen, l.n-lo) {
		lf[k] = Entry{ID: l.src.ID(lo + k), Object: l.src.Object(lo + k)}
	}
	if l.leaves[li].CompareAndSwap(nil, lf) {
		l.read.Add(1)
		return lf
	}
	return l.leaves[li].Load()
}

// get is entry i: its leaf's copy when the leaf is read, else decoded on
// its own and kept nowhere, so that a walk over the base (writing it out,
// say) leaves memory as it found it.
func (l *lazyEntries) get(i int) Entry {
	if lf := l.leaves[i/lazyLeafLen].Load(); lf != nil {
		return lf[i%lazyLeafLen]
	}
	return Entry{ID: l.src.ID(i), Object: l.src.Object(i)}
}

// id is entry i's id, read without decoding its leaf.
func (l *lazyEntries) id(i int) objects.ID {
	if lf := l.leaves[i/lazyLeafLen].Load(); lf != nil {
		return lf[i%lazyLeafLen].ID
	}
	return l.src.ID(i)
}

// entryVec is an index's entries: a lazy base's, when there is one, then
// the rest in memory.
type entryVec struct {
	lz   *lazyEntries
	rest pvec[Entry]
	n    int
}

func entryVecOf(v pvec[Entry]) entryVec { return entryVec{rest: v, n: v.n} }

func (v entryVec) base() int {
	if v.lz == nil {
		return 0
	}
	return v.lz.n
}

func (v entryVec) ptr(i int) *Entry {
	if b := v.base(); i >= b {
		return v.rest.ptr(i - b)
	}
	return v.lz.ptr(i)
}

// at is entry i, read as lazyEntries.get reads it.
func (v entryVec) at(i int) Entry {
	if b := v.base(); i >= b {
		return v.rest.at(i - b)
	}
	return v.lz.get(i)
}

// cursor reads v's entries in order from i: the vector's a leaf at a
// time, not a walk of its tree each (the entry checks read 10M so).
func (v entryVec) cursor(i int) *entryCursor { return &entryCursor{v: v, i: i, li: -1} }

// entryCursor is entryVec.cursor's.
type entryCursor struct {
	v    entryVec
	i    int
	li   int // the index of leaf, -1 for none
	leaf *pvecLeaf[Entry]
}

// next is the next entry, read as at reads it.
func (c *entryCursor) next() Entry {
	i := c.i
	c.i++
	b := c.v.base()
	if i < b {
		return c.v.lz.get(i)
	}
	j := i - b
	if uint(j) >= uint(c.v.rest.n) {
		panic("entryVec: cursor past the end")
	}
	if li := j >> leafBits; li != c.li {
		c.leaf, c.li = c.v.rest.leafAt(li), li
	}
	return c.leaf[j&leafMask]
}

// id is entry i's id, without reading a lazy entry's leaf.
func (v entryVec) id(i int) objects.ID {
	if b := v.base(); i >= b {
		return v.rest.ptr(i - b).ID
	}
	return v.lz.id(i)
}

func (v entryVec) append(xs ...Entry) entryVec {
	v.rest = v.rest.append(xs...)
	v.n += len(xs)
	return v
}

// filterTail is pvec's filterTail; from must not lie in a lazy base
// (staged entries never do).
func (v entryVec) filterTail(from int, keep func(Entry) bool) entryVec {
	b := v.base()
	if from < b {
		panic(errLazyTail)
	}
	v.rest = v.rest.filterTail(from-b, keep)
	v.n = b + v.rest.n
	return v
}

var errLazyTail = errors.New("world: a tail cut into the lazily read entries")

// all yields copies of the entries, as at reads them.
func (v entryVec) all() iter.Seq[Entry] {
	return func(yield func(Entry) bool) {
		for i := range v.base() {
			if !yield(v.lz.get(i)) {
				return
			}
		}
		for e := range v.rest.all() {
			if !yield(e) {
				return
			}
		}
	}
}

// kindVec is the entries of one kind: those in a lazy base, by position,
// then the rest, by pointer.
type kindVec struct {
	lz   *lazyEntries
	pos  []uint32 // positions in lz; never written once built
	rest pvec[*Entry]
	n    int
}

func kindOf(v pvec[*Entry]) kindVec { return kindVec{rest: v, n: v.n} }

func (v kindVec) at(i int) *Entry {
	if i >= len(v.pos) {
		return v.rest.at(i - len(v.pos))
	}
	return v.lz.ptr(int(v.pos[i]))
}

func (v kindVec) append(xs ...*Entry) kindVec {
	v.rest = v.rest.append(xs...)
	v.n += len(xs)
	return v
}

// filterTail and truncate are pvec's; from and n must not lie in the
// lazy base's positions.
func (v kindVec) filterTail(from int, keep func(*Entry) bool) kindVec {
	if from < len(v.pos) {
		panic(errLazyTail)
	}
	v.rest = v.rest.filterTail(from-len(v.pos), keep)
	v.n = len(v.pos) + v.rest.n
	return v
}

func (v kindVec) truncate(n int) kindVec {
	if n < len(v.pos) {
		panic(errLazyTail)
	}
	v.rest = v.rest.truncate(n - len(v.pos))
	v.n = n
	return v
}

// values yields copies of the entries, as entryVec.at reads them.
func (v kindVec) values() iter.Seq[Entry] {
	return func(yield func(Entry) bool) {
		for _, p := range v.pos {
			if !yield(v.lz.get(int(p))) {
				return
			}
		}
		for e := range v.rest.all() {
			if !yield(*e) {
				return
			}
		}
	}
}

func (v kindVec) all() iter.Seq[*Entry] {
	return func(yield func(*Entry) bool) {
		for _, p := range v.pos {
			if !yield(v.lz.ptr(int(p))) {
				return
			}
		}
		for e := range v.rest.all() {
			if !yield(e) {
				return
			}
		}
	}
}

// newLazyIndex files a lazy base's entries without reading their leaves:
// the big kinds by position, the entities by name, the answers by the
// base's list of them. The other kinds, which are few, are read and
// filed as newIndex files them. The base's order is its own to check (a
// base that is not in id order breaks the contract, not this).
func newLazyIndex(src EntryBase) (*index, error) {
	lz := newLazyEntries(src)
	pos := map[objects.Type][]uint32{}
	total := 0
	for _, t := range lazyTypes {
		// Each list's order and range are the base's to check when it
		// is opened: read again here, a mapped list would stay resident.
		ps := src.OfType(t)
		pos[t], total = ps, total+len(ps)
	}
	if total != lz.n {
		return nil, errLazyTypes
	}
	ix := &index{
		order:     &entityOrder{},
		entries:   entryVec{lz: lz, n: lz.n},
		entities:  lazyEntityMap(src.Entities(), lz),
		events:    map[string]named[*objects.Event]{},
		decisions: map[string]named[*objects.Decision]{},
		questions: map[string]named[*objects.Question]{},
		optionOf:  map[string]string{},
	}
	var lang []uint32
	for _, t := range lazyTypes {
		switch t {
		case objects.TypeFact, objects.TypeRelation, objects.TypeBefore, objects.TypeState, objects.TypeSameAs:
		case objects.TypeDialect, objects.TypeWord, objects.TypeName, objects.TypeDerivation, objects.TypeLedgerEntry:
			lang = append(lang, pos[t]...)
		case objects.TypeEntity: // read by name from the base (entities.go)
		default:
			for _, i := range pos[t] {
				ix.file(lz.ptr(int(i)))
			}
		}
	}
	slices.Sort(lang) // in index order, as newIndex files them
	for _, i := range src.Keyed(answerKey) {
		if i < 0 || i >= lz.n || src.Type(i) != objects.TypeFact {
			return nil, errLazyKeyed
		}
		if e := lz.ptr(i); e.Object.(*objects.Fact).Key == answerKey {
			ix.answers = append(ix.answers, *e)
		}
	}
	kind := func(t objects.Type) kindVec { return kindVec{lz: lz, pos: pos[t], n: len(pos[t])} }
	ix.facts, ix.relations, ix.befores = kind(objects.TypeFact), kind(objects.TypeRelation), kind(objects.TypeBefore)
	ix.states, ix.sameAs = kind(objects.TypeState), kind(objects.TypeSameAs)
	ix.lang = kindVec{lz: lz, pos: lang, n: len(lang)}
	ix.stagedFrom = marks{entries: lz.n, facts: ix.facts.n, relations: ix.relations.n, befores: ix.befores.n,
		states: ix.states.n, sameAs: ix.sameAs.n, lang: ix.lang.n}
	ix.byID = baseIndex(ix.entries, lz.n)
	return ix, nil
}

// lazyTypes are the object types, each a list a base gives.
var lazyTypes = objects.Types()

var (
	errLazyTypes = errors.New("world: a lazily read base lists its entries by type out of order, or not all of them")
	errLazyKeyed = errors.New("world: a lazily read base lists a fact that is none")
)

// ofType yields the entries of type t, reading of a lazy base only its
// list of them and the leaves that hold one; name, when not nil, picks
// from those of a lazy base the ones whose Name it accepts before any
// leaf is read.
func (v entryVec) ofType(t objects.Type, name func(string) bool) iter.Seq[*Entry] {
	return func(yield func(*Entry) bool) {
		if v.lz != nil {
			for _, i := range v.lz.src.OfType(t) {
				if name != nil && !name(v.lz.src.Name(int(i))) {
					continue
				}
				if !yield(v.lz.ptr(int(i))) {
					return
				}
			}
		}
		for e := range v.rest.ptrs() {
			if e.Object.Type() == t && !yield(e) {
				return
			}
		}
	}
}
