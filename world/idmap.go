// The id index: entries by object id in a persistent hash trie (a HAMT
// keyed by the id's own bits, five a level), so that staging one object
// copies a handful of small nodes — never the index — and every world
// shares the rest with the world it was staged from.

package world

import (
	"bytes"
	"encoding/binary"
	"iter"
	"math/bits"

	"github.com/deloreis/deloreis/objects"
)

// idIndex finds entries by id: those of a compile in its sorted entries
// themselves (base: searched, so nothing is stored per entry — the trie
// held them at 29 B each, DL-0315), the ones staged or advanced since in a
// trie over them. The zero value is empty; an idIndex never changes once
// built.
type idIndex struct {
	base  entryVec // its first nBase elements are in id order, each id once
	nBase int
	root  *idNode // entries added since (and tombstones of base entries removed)
	n     int
}

// idNode is one level of the trie: a bitmap of the occupied slots and
// their children, each an *idNode, an *Entry or a tombstone (an
// *objects.ID: a base entry that is gone), in slot order. A leaf is the
// entry itself, whose ID is the key: no leaf object per entry (48 B
// each, a tenth of a compiled world's heap per object, DL-0310).
type idNode struct {
	bitmap uint32
	kids   []any
}

// baseIndex is an index of the first n entries of v, which are in id
// order without repeats; it shares v's storage.
func baseIndex(v entryVec, n int) idIndex {
	return idIndex{base: v, nBase: n, n: n}
}

// slot is the 5-bit chunk of id at a depth.
func slot(id objects.ID, depth int) uint32 {
	bit := depth * 5
	i := bit / 8
	v := uint32(id[i]) << 8
	if i+1 < len(id) {
		v |= uint32(id[i+1])
	}
	return (v >> (11 - bit%8)) & 31
}

func (n *idNode) pos(s uint32) (int, bool) {
	m := uint32(1) << s
	return bits.OnesCount32(n.bitmap & (m - 1)), n.bitmap&m != 0
}

func (x idIndex) get(id objects.ID) (*Entry, bool) {
	switch k := x.lookup(id).(type) {
	case *Entry:
		return k, true
	case *objects.ID:
		return nil, false // removed from the base
	}
	return x.search(id)
}

// lookup is what the trie holds for id: an *Entry, a tombstone or nil.
func (x idIndex) lookup(id objects.ID) any {
	n := x.root
	for depth := 0; n != nil; depth++ {
		p, ok := n.pos(slot(id, depth))
		if !ok {
			return nil
		}
		switch k := n.kids[p].(type) {
		case *Entry:
			if k.ID == id {
				return k
			}
			return nil
		case *objects.ID:
			if *k == id {
				return k
			}
			return nil
		case *idNode:
			n = k
		}
	}
	return nil
}

// search finds id in the base. Ids are hashes, spread evenly, so the
// position is guessed from the leading bytes of the id and of the bounds
// (interpolation), with a bisection every other step so that no input
// takes more than twice a binary search's probes.
func (x idIndex) search(id objects.ID) (*Entry, bool) {
	if i, ok := x.find(id); ok {
		return x.base.ptr(i), true
	}
	return nil, false
}

// find is search's position in the base. It reads ids only, so that a
// lazily read base decodes just the leaf of the entry found.
func (x idIndex) find(id objects.ID) (int, bool) {
	lo, hi := 0, x.nBase // the answer is in [lo, hi)
	klo, khi := uint64(0), ^uint64(0)
	key := binary.BigEndian.Uint64(id[:8])
	for step := 0; lo < hi; step++ {
		mid := lo + (hi-lo)/2
		if step%2 == 0 && key >= klo && key <= khi {
			mid = lo + interp(key-klo, khi-klo, hi-lo)
		}
		at := x.base.id(mid)
		switch c := bytes.Compare(at[:], id[:]); {
		case c == 0:
			return mid, true
		case c < 0:
			lo, klo = mid+1, binary.BigEndian.Uint64(at[:8])
		default:
			hi, khi = mid, binary.BigEndian.Uint64(at[:8])
		}
	}
	return 0, false
}

// has reports whether the index holds id, reading no lazy leaf.
func (x idIndex) has(id objects.ID) bool {
	switch x.lookup(id).(type) {
	case *Entry:
		return true
	case *objects.ID:
		return false
	}
	_, ok := x.find(id)
	return ok
}

// interp is d/(span+1) of width, in [0, width): where a key d above the
// lower bound falls among width elements spread over span+1 keys.
func interp(d, span uint64, width int) int {
	hi, lo := bits.Mul64(d, uint64(width))
	q := hi // span+1 = 2^64
	if span != ^uint64(0) {
		q, _ = bits.Div64(hi, lo, span+1) // hi < span+1, as d <= span
	}
	return min(int(q), width-1)
}

// with returns an index that also holds es (replacing entries of the
// same id); x is unchanged.
func (x idIndex) with(es []*Entry) idIndex {
	for _, e := range es {
		if _, had := x.get(e.ID); !had {
			x.n++
		}
		x.root = insertID(x.root, 0, e)
	}
	return x
}

// withSorted is with for es in id order, each id once: into an empty
// trie they are built in one pass, each node made once at its size, the
// trie with would build — not copied along its path on every insert, as
// with does (a compile of millions of staged objects spent more in those
// copies than in the rest of its index).
func (x idIndex) withSorted(es []*Entry) idIndex {
	for i := 1; i < len(es); i++ {
		if !lessID(es[i-1].ID, es[i].ID) {
			return x.with(es) // not in order, or an id twice: one at a time
		}
	}
	if x.root != nil || len(es) == 0 {
		return x.with(es)
	}
	for _, e := range es {
		if _, had := x.search(e.ID); !had {
			x.n++
		}
	}
	x.root = buildID(es, 0)
	return x
}

// buildID is the trie node at depth of es, two or more entries in id
// order that agree on every slot above depth (at depth 0, one or more).
func buildID(es []*Entry, depth int) *idNode {
	// each calls f with the run of es in each slot, in slot order.
	each := func(f func(s uint32, run []*Entry)) {
		for i := 0; i < len(es); {
			s, j := slot(es[i].ID, depth), i+1
			for j < len(es) && slot(es[j].ID, depth) == s {
				j++
			}
			f(s, es[i:j])
			i = j
		}
	}
	runs := 0
	each(func(uint32, []*Entry) { runs++ })
	n := &idNode{kids: make([]any, 0, runs)}
	each(func(s uint32, run []*Entry) {
		n.bitmap |= 1 << s
		if len(run) == 1 {
			n.kids = append(n.kids, run[0])
		} else {
			n.kids = append(n.kids, buildID(run, depth+1))
		}
	})
	return n
}

// without returns an index that no longer holds ids; x is unchanged. A
// base entry is shadowed by a tombstone, the base being shared.
func (x idIndex) without(ids []objects.ID) idIndex {
	for _, id := range ids {
		if _, had := x.get(id); !had {
			continue
		}
		x.n--
		if _, inBase := x.find(id); inBase {
			tomb := id
			x.root = insertID(x.root, 0, &tomb)
		} else {
			x.root, _ = deleteID(x.root, 0, id)
		}
	}
	return x
}

// leafID is the id of a trie leaf (an *Entry or a tombstone); ok is false
// for a node.
func leafID(k any) (id objects.ID, ok bool) {
	switch k := k.(type) {
	case *Entry:
		return k.ID, true
	case *objects.ID:
		return *k, true
	}
	return id, false
}

// insertID returns a copy of n with leaf (an *Entry or a tombstone) in
// it, replacing the leaf of the same id.
func insertID(n *idNode, depth int, leaf any) *idNode {
	id, _ := leafID(leaf)
	if n == nil {
		return &idNode{bitmap: 1 << slot(id, depth), kids: []any{leaf}}
	}
	s := slot(id, depth)
	p, ok := n.pos(s)
	c := &idNode{bitmap: n.bitmap}
	if !ok {
		c.bitmap |= 1 << s
		c.kids = make([]any, len(n.kids)+1)
		copy(c.kids, n.kids[:p])
		c.kids[p] = leaf
		copy(c.kids[p+1:], n.kids[p:])
		return c
	}
	c.kids = append([]any(nil), n.kids...)
	if sub, isNode := n.kids[p].(*idNode); isNode {
		c.kids[p] = insertID(sub, depth+1, leaf)
		return c
	}
	if kid, _ := leafID(n.kids[p]); kid == id {
		c.kids[p] = leaf
		return c
	}
	c.kids[p] = insertID(insertID(nil, depth+1, n.kids[p]), depth+1, leaf)
	return c
}

// deleteID returns a copy of n without the leaf of id (nil when it
// empties), and whether it was there.
func deleteID(n *idNode, depth int, id objects.ID) (*idNode, bool) {
	if n == nil {
		return nil, false
	}
	s := slot(id, depth)
	p, ok := n.pos(s)
	if !ok {
		return n, false
	}
	var repl any
	if sub, isNode := n.kids[p].(*idNode); isNode {
		sub, removed := deleteID(sub, depth+1, id)
		if !removed {
			return n, false
		}
		if sub != nil {
			repl = sub
			if _, isLeaf := leafID(sub.kids[0]); isLeaf && len(sub.kids) == 1 {
				repl = sub.kids[0] // a lone leaf moves up
			}
		}
	} else if kid, _ := leafID(n.kids[p]); kid != id {
		return n, false
	}
	c := &idNode{bitmap: n.bitmap}
	if repl != nil {
		c.kids = append([]any(nil), n.kids...)
		c.kids[p] = repl
		return c, true
	}
	c.bitmap &^= 1 << s
	if c.bitmap == 0 {
		return nil, true
	}
	c.kids = make([]any, 0, len(n.kids)-1)
	c.kids = append(append(c.kids, n.kids[:p]...), n.kids[p+1:]...)
	return c, true
}

// each yields every entry, in id order: the base's and the trie's merged,
// a base entry the trie holds (replaced or removed) left to the trie. It
// yields copies, so that a walk of a lazily read base keeps none of it.
func (x idIndex) each() iter.Seq2[objects.ID, Entry] {
	return func(yield func(objects.ID, Entry) bool) {
		i := 0
		// flush yields the base entries before upto (all, when nil).
		flush := func(upto *objects.ID) bool {
			for ; i < x.nBase; i++ {
				id := x.base.id(i)
				if upto != nil && bytes.Compare(id[:], upto[:]) >= 0 {
					return true
				}
				if x.root != nil && x.lookup(id) != nil {
					continue
				}
				if !yield(id, x.base.at(i)) {
					return false
				}
			}
			return true
		}
		if eachLeaf(x.root, func(k any) bool {
			id, _ := leafID(k)
			if !flush(&id) {
				return false
			}
			e, isEntry := k.(*Entry)
			return !isEntry || yield(e.ID, *e)
		}) {
			flush(nil)
		}
	}
}

// eachLeaf calls f on the leaves under n in id order; false when f stopped it.
func eachLeaf(n *idNode, f func(any) bool) bool {
	if n == nil {
		return true
	}
	for _, k := range n.kids {
		if sub, isNode := k.(*idNode); isNode {
			if !eachLeaf(sub, f) {
				return false
			}
		} else if !f(k) {
			return false
		}
	}
	return true
}
