// This file holds the persistent 32-way trie that the chunked form of a
// pvec and the directory of a phash keep their chunks and pages in, so
// that the first write under a new generation copies one root-to-leaf
// path (a few hundred bytes a level), not a spine as long as the table.

package datalog

import (
	"slices"
	"sync/atomic"
)

const (
	trieBits  = 5
	trieWidth = 1 << trieBits
	trieMask  = trieWidth - 1
)

// tnode is a node of a ptrie: interior nodes hold kids, bottom nodes
// elems. A node is written in place only by the generation that made it.
type tnode[E any] struct {
	gen   uint64
	kids  []*tnode[E]
	elems []E
}

// ptrie is a persistent array of E: a radix tree of 32-way nodes whose
// root indexes the bits of an index above shift.
type ptrie[E any] struct {
	root  *tnode[E]
	shift uint8
	n     int
}

// at returns element i by reference; the caller must not write through it
// unless it got it from ref.
func (t *ptrie[E]) at(i int) *E {
	nd := t.root
	for s := t.shift; s > 0; s -= trieBits {
		nd = nd.kids[i>>s&trieMask]
	}
	return &nd.elems[i&trieMask]
}

// own returns nd, copied first unless gen made it.
func own[E any](nd *tnode[E], gen uint64) *tnode[E] {
	if nd.gen == gen {
		return nd
	}
	// Exact copies: a copy of a small trie's node stays small, and only
	// a right-edge node, which push may append to, is ever short.
	c := &tnode[E]{gen: gen}
	if nd.kids != nil {
		c.kids = slices.Clone(nd.kids)
	} else {
		c.elems = slices.Clone(nd.elems)
	}
	return c
}

// ref returns element i for writing under gen, copying the nodes on its
// path that gen did not make.
//
// A node gen made already is only read, never written, on the way: the
// strata evaluated at once (atonce.go) set their relations in one table
// that gen made whole, each its own elements.
func (t *ptrie[E]) ref(i int, gen uint64) *E {
	if c := own(t.root, gen); c != t.root {
		t.root = c
	}
	nd := t.root
	for s := t.shift; s > 0; s -= trieBits {
		k := i >> s & trieMask
		c := nd.kids[k]
		if o := own(c, gen); o != c {
			nd.kids[k], c = o, o
		}
		nd = c
	}
	return &nd.elems[i&trieMask]
}

// push appends e under gen.
func (t *ptrie[E]) push(e E, gen uint64) {
	i := t.n
	switch {
	case t.root == nil:
		t.root = &tnode[E]{gen: gen}
	case i == 1<<(t.shift+trieBits):
		t.root = &tnode[E]{gen: gen, kids: []*tnode[E]{t.root}}
		t.shift += trieBits
	}
	t.root = own(t.root, gen)
	nd := t.root
	for s := t.shift; s > 0; s -= trieBits {
		k := i >> s & trieMask
		if k == len(nd.kids) {
			nd.kids = append(nd.kids, &tnode[E]{gen: gen})
		}
		c := own(nd.kids[k], gen)
		nd.kids[k] = c
		nd = c
	}
	nd.elems = append(nd.elems, e)
	t.n++
}

// buildTrie returns a trie of elems, its nodes made by gen.
func buildTrie[E any](elems []E, gen uint64) ptrie[E] {
	t := ptrie[E]{n: len(elems)}
	if len(elems) == 0 {
		return t
	}
	var level []*tnode[E]
	for lo := 0; lo < len(elems); lo += trieWidth {
		level = append(level, &tnode[E]{gen: gen, elems: slices.Clone(elems[lo:min(lo+trieWidth, len(elems))])})
	}
	for len(level) > 1 {
		var up []*tnode[E]
		for lo := 0; lo < len(level); lo += trieWidth {
			up = append(up, &tnode[E]{gen: gen, kids: level[lo:min(lo+trieWidth, len(level)):min(lo+trieWidth, len(level))]})
		}
		level = up
		t.shift += trieBits
	}
	t.root = level[0]
	return t
}

// trieCache holds the trie a flat pvec or phash was cut into, shared by
// every copy of the flat value, so that the versions staged from one flat
// base cut it once, not once each. key says what state of the flat value
// it was cut from.
type trieCache[E any] struct{ p atomic.Pointer[cutTrie[E]] }

type cutTrie[E any] struct {
	key [3]int
	t   ptrie[E]
}

// get returns the trie cut at key, or builds it with cut and keeps it.
// The trie's nodes belong to the flat value's generation, so a writer
// copies its path and the kept trie never changes.
func (c *trieCache[E]) get(key [3]int, cut func() ptrie[E]) ptrie[E] {
	if c == nil {
		return cut()
	}
	if k := c.p.Load(); k != nil && k.key == key {
		return k.t
	}
	t := cut()
	c.p.Store(&cutTrie[E]{key: key, t: t})
	return t
}
