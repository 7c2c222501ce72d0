// The id index: entries by object id in a persistent hash trie (a HAMT
// keyed by the id's own bits, five a level), so that staging one object
// copies a handful of small nodes — never the index — and every world
// shares the rest with the world it was staged from.

package world

import (
	"iter"
	"math/bits"

	"github.com/deloreis/deloreis/objects"
)

// idIndex finds entries by id. The zero value is empty; an idIndex never
// changes once built.
type idIndex struct {
	root *idNode
	n    int
}

// idNode is one level of the trie: a bitmap of the occupied slots and
// their children, each an *idNode or an *Entry, in slot order. A leaf is
// the entry itself, whose ID is the key: no leaf object per entry (48 B
// each, a tenth of a compiled world's heap per object, DL-0310).
type idNode struct {
	bitmap uint32
	kids   []any
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
	n := x.root
	for depth := 0; n != nil; depth++ {
		p, ok := n.pos(slot(id, depth))
		if !ok {
			return nil, false
		}
		switch k := n.kids[p].(type) {
		case *Entry:
			if k.ID == id {
				return k, true
			}
			return nil, false
		case *idNode:
			n = k
		}
	}
	return nil, false
}

// with returns an index that also holds es (replacing entries of the
// same id); x is unchanged.
func (x idIndex) with(es []*Entry) idIndex {
	for _, e := range es {
		var added bool
		x.root, added = insertID(x.root, 0, e)
		if added {
			x.n++
		}
	}
	return x
}

// without returns an index that no longer holds ids; x is unchanged.
func (x idIndex) without(ids []objects.ID) idIndex {
	for _, id := range ids {
		var removed bool
		x.root, removed = deleteID(x.root, 0, id)
		if removed {
			x.n--
		}
	}
	return x
}

// insertID returns a copy of n with leaf in it, and whether it is new.
func insertID(n *idNode, depth int, leaf *Entry) (*idNode, bool) {
	if n == nil {
		return &idNode{bitmap: 1 << slot(leaf.ID, depth), kids: []any{leaf}}, true
	}
	s := slot(leaf.ID, depth)
	p, ok := n.pos(s)
	c := &idNode{bitmap: n.bitmap}
	if !ok {
		c.bitmap |= 1 << s
		c.kids = make([]any, len(n.kids)+1)
		copy(c.kids, n.kids[:p])
		c.kids[p] = leaf
		copy(c.kids[p+1:], n.kids[p:])
		return c, true
	}
	c.kids = append([]any(nil), n.kids...)
	switch k := n.kids[p].(type) {
	case *Entry:
		if k.ID == leaf.ID {
			c.kids[p] = leaf
			return c, false
		}
		sub, _ := insertID(nil, depth+1, k)
		sub, _ = insertID(sub, depth+1, leaf)
		c.kids[p] = sub
		return c, true
	case *idNode:
		sub, added := insertID(k, depth+1, leaf)
		c.kids[p] = sub
		return c, added
	}
	return c, false
}

// deleteID returns a copy of n without id (nil when it empties), and
// whether id was there.
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
	switch k := n.kids[p].(type) {
	case *Entry:
		if k.ID != id {
			return n, false
		}
	case *idNode:
		sub, removed := deleteID(k, depth+1, id)
		if !removed {
			return n, false
		}
		if sub != nil {
			repl = sub
			if len(sub.kids) == 1 {
				if l, isLeaf := sub.kids[0].(*Entry); isLeaf {
					repl = l // a lone leaf moves up
				}
			}
		}
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

// each yields every entry, in the order of the ids' bits.
func (x idIndex) each() iter.Seq2[objects.ID, *Entry] {
	return func(yield func(objects.ID, *Entry) bool) {
		eachID(x.root, yield)
	}
}

func eachID(n *idNode, yield func(objects.ID, *Entry) bool) bool {
	if n == nil {
		return true
	}
	for _, k := range n.kids {
		switch k := k.(type) {
		case *Entry:
			if !yield(k.ID, k) {
				return false
			}
		case *idNode:
			if !eachID(k, yield) {
				return false
			}
		}
	}
	return true
}

// buildIDIndex builds an index of fresh entries in place: the nodes are
// new, so nothing is copied. Each entry is filed under its own ID.
func buildIDIndex(m map[objects.ID]*Entry) idIndex {
	x := idIndex{n: len(m)}
	for _, e := range m {
		x.root = insertFresh(x.root, 0, e)
	}
	return x
}

// insertFresh inserts leaf into n, changing n: for nodes no index shares.
func insertFresh(n *idNode, depth int, leaf *Entry) *idNode {
	if n == nil {
		return &idNode{bitmap: 1 << slot(leaf.ID, depth), kids: []any{leaf}}
	}
	s := slot(leaf.ID, depth)
	p, ok := n.pos(s)
	if !ok {
		n.bitmap |= 1 << s
		n.kids = append(n.kids, nil)
		copy(n.kids[p+1:], n.kids[p:])
		n.kids[p] = leaf
		return n
	}
	switch k := n.kids[p].(type) {
	case *Entry:
		if k.ID == leaf.ID {
			n.kids[p] = leaf
			return n
		}
		sub := insertFresh(nil, depth+1, k)
		n.kids[p] = insertFresh(sub, depth+1, leaf)
	case *idNode:
		n.kids[p] = insertFresh(k, depth+1, leaf)
	}
	return n
}
