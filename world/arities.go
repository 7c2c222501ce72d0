// The arity table: the argument counts each predicate is used with. A
// compile fills a map in place; a staged world notes what its change adds
// in a persistent hash trie over that map (five bits of the name's hash a
// level), so that staging a fact of a new predicate copies a few small
// nodes, not the table — a copy per add made staging linear in the
// predicates a workspace had staged.

package world

import (
	"hash/maphash"
	"iter"
	"maps"
	"math/bits"
	"sort"
)

// arities records the argument counts each predicate is used with: m as
// a compile left it, and over the predicates changed since (an entry
// there, or a tombstone, hides m's). Its value is never written once a
// world holds it, except by note during the compile that makes it.
type arities struct {
	m    map[string]map[int]bool
	over *arityNode
	n    int // entries over adds to m (negative: tombstones over m's)
}

// newArities returns an empty table.
func newArities() arities { return arities{m: map[string]map[int]bool{}} }

// note records that pred is used with n arguments, in place: the
// compile's, on a table no world shares yet.
func (a arities) note(pred string, n int) {
	if a.over != nil {
		panic("world: arities.note on a staged table")
	}
	if a.m[pred] == nil {
		a.m[pred] = map[int]bool{}
	}
	a.m[pred][n] = true
}

// get returns the set of pred's arities, and whether it is noted.
func (a arities) get(pred string) (map[int]bool, bool) {
	if a.over != nil {
		if l, ok := a.over.find(arityHash(pred), pred, 0); ok {
			return l.ns, l.ns != nil
		}
	}
	ns, ok := a.m[pred]
	return ns, ok
}

// with returns the table with pred's arities set to ns (nil: forgotten),
// sharing everything else with a. ns must not be written afterwards.
func (a arities) with(pred string, ns map[int]bool) arities {
	_, had := a.get(pred)
	if len(ns) == 0 {
		ns = nil
	}
	out := a
	out.over = a.over.insert(&arityLeaf{hash: arityHash(pred), pred: pred, ns: ns}, 0)
	switch {
	case ns != nil && !had:
		out.n++
	case ns == nil && had:
		out.n--
	}
	return out
}

// len returns the number of predicates noted.
func (a arities) len() int { return len(a.m) + a.n }

// all yields every noted predicate with its arities, in no order.
func (a arities) all() iter.Seq2[string, map[int]bool] {
	return func(yield func(string, map[int]bool) bool) {
		for pred, ns := range a.m {
			if a.over != nil {
				if _, ok := a.over.find(arityHash(pred), pred, 0); ok {
					continue // yielded from over, or forgotten
				}
			}
			if !yield(pred, ns) {
				return
			}
		}
		a.over.each(func(l *arityLeaf) bool { return l.ns == nil || yield(l.pred, l.ns) })
	}
}

// of is the predicate's arity when it is used with exactly one (else 0).
func (a arities) of(pred string) int {
	ns, _ := a.get(pred)
	if len(ns) != 1 {
		return 0
	}
	for n := range ns {
		return n
	}
	return 0
}

// agree returns the common arity of two predicates: known on at least one
// side, and not contradicted by the other (a predicate used with two
// arities contradicts everything).
func (a arities) agree(p, q string) (int, bool) {
	np, _ := a.get(p)
	nq, _ := a.get(q)
	if len(np) > 1 || len(nq) > 1 {
		return 0, false
	}
	n, m := a.of(p), a.of(q)
	if n > 0 && m > 0 && n != m {
		return 0, false
	}
	return max(n, m), max(n, m) > 0
}

func (a arities) preds() []string {
	out := make([]string, 0, a.len())
	for p := range a.all() {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// equal reports whether pred has the same arities in a and b.
func (a arities) equal(b arities, pred string) bool {
	x, _ := a.get(pred)
	y, _ := b.get(pred)
	return maps.Equal(x, y)
}

var aritySeed = maphash.MakeSeed()

func arityHash(pred string) uint64 { return maphash.String(aritySeed, pred) }

// arityNode is one level of the trie: a bitmap of the occupied slots and
// their children (*arityNode or *arityLeaf), in slot order. Nodes are
// never written once made.
type arityNode struct {
	bitmap uint32
	kids   []any
}

// arityLeaf is one predicate's entry; next chains predicates whose whole
// hash is the same.
type arityLeaf struct {
	hash uint64
	pred string
	ns   map[int]bool // nil: forgotten
	next *arityLeaf
}

const arityBits = 5

// aritySlot is the slot of hash h at depth d (past the hash's bits: 0,
// where only chained leaves are found).
func aritySlot(h uint64, d int) uint32 {
	if s := d * arityBits; s < 64 {
		return uint32(h>>s) & (1<<arityBits - 1)
	}
	return 0
}

func (n *arityNode) pos(s uint32) (int, bool) {
	bit := uint32(1) << s
	return bits.OnesCount32(n.bitmap & (bit - 1)), n.bitmap&bit != 0
}

func (n *arityNode) find(h uint64, pred string, d int) (*arityLeaf, bool) {
	for n != nil {
		i, ok := n.pos(aritySlot(h, d))
		if !ok {
			return nil, false
		}
		switch k := n.kids[i].(type) {
		case *arityNode:
			n, d = k, d+1
		case *arityLeaf:
			for l := k; l != nil; l = l.next {
				if l.pred == pred {
					return l, true
				}
			}
			return nil, false
		}
	}
	return nil, false
}

// insert returns n with leaf put in (replacing the entry of its
// predicate), copying the path to it.
func (n *arityNode) insert(leaf *arityLeaf, d int) *arityNode {
	var c arityNode
	if n != nil {
		c = arityNode{bitmap: n.bitmap, kids: n.kids}
	}
	s := aritySlot(leaf.hash, d)
	i, ok := c.pos(s)
	if !ok {
		c.bitmap |= 1 << s
		c.kids = append(append(append(make([]any, 0, len(c.kids)+1), c.kids[:i]...), leaf), c.kids[i:]...)
		return &c
	}
	var kid any
	switch k := c.kids[i].(type) {
	case *arityNode:
		kid = k.insert(leaf, d+1)
	case *arityLeaf:
		switch {
		case k.hash == leaf.hash:
			kid = chainWith(k, leaf)
		default:
			sub := (*arityNode)(nil).insert(k, d+1)
			kid = sub.insert(leaf, d+1)
		}
	}
	kids := make([]any, len(c.kids))
	copy(kids, c.kids)
	kids[i] = kid
	c.kids = kids
	return &c
}

// chainWith returns the chain of leaves l with leaf put in place of its
// predicate's entry.
func chainWith(l, leaf *arityLeaf) *arityLeaf {
	out := &arityLeaf{hash: leaf.hash, pred: leaf.pred, ns: leaf.ns}
	tail := out
	for ; l != nil; l = l.next {
		if l.pred != leaf.pred {
			tail.next = &arityLeaf{hash: l.hash, pred: l.pred, ns: l.ns}
			tail = tail.next
		}
	}
	return out
}

// each calls f on every leaf until it returns false.
func (n *arityNode) each(f func(*arityLeaf) bool) bool {
	if n == nil {
		return true
	}
	for _, k := range n.kids {
		switch k := k.(type) {
		case *arityNode:
			if !k.each(f) {
				return false
			}
		case *arityLeaf:
			for l := k; l != nil; l = l.next {
				if !f(l) {
					return false
				}
			}
		}
	}
	return true
}
