// Persistent vectors: the index of a staged world shares everything with
// the world it was staged over (the id index too, idmap.go), so staging
// one object costs what that object costs, not what the world holds.

package world

import (
	"iter"
	"sync/atomic"
)

// A pvec is a 32-way radix tree of full leaves plus a tail leaf, as in
// Clojure's persistent vector. Appending one element writes into the tail
// in place when this version is the one that filled the tail so far (it
// claims the next slot with a compare-and-swap on the leaf's count), and
// copies the tail (at most leafLen elements) when another version got
// there first; a full tail goes into the tree by copying only the right
// edge (height nodes). So the garbage of an append does not grow with n.
const (
	leafBits = 5
	leafLen  = 1 << leafBits // elements per leaf, children per node
	leafMask = leafLen - 1

	slabLeaves = 256 // leaves a bulk append allocates at once
)

// pvecLeaf holds leafLen elements. A slot is written once, by the version
// that claimed it, and never again, so a pointer to an element stays valid
// and unchanged. (The claim count lives beside it, in pvec.used, so that a
// leaf of 56-byte entries fills a 1792-byte size class exactly.)
type pvecLeaf[T any] [leafLen]T

// pvecEdit marks the nodes one append call made: that call may still change
// them in place; every other call sees them frozen. It is not empty so
// that every edit has its own address.
type pvecEdit struct{ _ byte }

// pvecNode is a tree node: at height 1 it holds leaves, above it nodes.
type pvecNode[T any] struct {
	edit   *pvecEdit
	kids   []*pvecNode[T]
	leaves []*pvecLeaf[T]
}

// pvec is an append-only persistent vector: old versions are unchanged by
// the appends of newer ones, and elements never move in memory.
type pvec[T any] struct {
	root   *pvecNode[T]  // the full leaves before the tail; nil when there are none
	tail   *pvecLeaf[T]  // the last leaf, holding 1..leafLen elements; nil when n is 0
	used   *atomic.Int32 // the tail's slots some version has claimed; nil: all of them
	height int           // levels of root above the leaves
	n      int
}

// tailLen is how many of the tail's slots belong to v.
func (v pvec[T]) tailLen() int {
	if v.n == 0 {
		return 0
	}
	return v.n - (v.n-1)&^leafMask
}

// append returns a vector with xs after v's elements; v is unchanged.
func (v pvec[T]) append(xs ...T) pvec[T] {
	var ed *pvecEdit
	var slab []pvecLeaf[T]
	for len(xs) > 0 {
		tl := v.tailLen()
		if tl == 0 || tl == leafLen {
			if tl == leafLen {
				if ed == nil {
					ed = new(pvecEdit)
				}
				v.pushLeaf(v.tail, ed)
			}
			if len(xs) >= leafLen {
				// A whole leaf: a bulk append takes its leaves from one
				// allocation (a lone leaf of pointers pays an 8-byte
				// malloc header and the next size class).
				if len(slab) == 0 {
					slab = make([]pvecLeaf[T], min(len(xs)/leafLen, slabLeaves))
				}
				v.tail, v.used, slab = &slab[0], nil, slab[1:] // nil: all slots claimed
				copy(v.tail[:], xs)
				v.n += leafLen
				xs = xs[leafLen:]
				continue
			}
			v.tail, v.used = new(pvecLeaf[T]), new(atomic.Int32)
			tl = 0
		}
		k := min(leafLen-tl, len(xs))
		if v.used == nil || !v.used.CompareAndSwap(int32(tl), int32(tl+k)) {
			// Another version has written past our end: copy our part.
			c := new(pvecLeaf[T])
			copy(c[:tl], v.tail[:tl])
			v.tail, v.used = c, new(atomic.Int32)
			v.used.Store(int32(tl + k))
		}
		copy(v.tail[tl:tl+k], xs[:k])
		v.n += k
		xs = xs[k:]
	}
	return v
}

// pvecAdopt returns a vector of xs that takes xs's full leaves in place
// instead of copying them (a leaf is a pointer to leafLen elements of xs's
// array), and copies only the last partial leaf. The caller gives xs up:
// it must never write it again. A compiled world's entries are adopted so
// that a 10M-object index is not held twice while it is built.
func pvecAdopt[T any](xs []T) pvec[T] {
	var v pvec[T]
	var ed *pvecEdit
	for len(xs) >= leafLen {
		if v.n > 0 { // the tail is full: it goes into the tree
			if ed == nil {
				ed = new(pvecEdit)
			}
			v.pushLeaf(v.tail, ed)
		}
		v.tail, v.used = (*pvecLeaf[T])(xs[:leafLen]), nil // nil: all slots claimed
		v.n += leafLen
		xs = xs[leafLen:]
	}
	return v.append(xs...)
}

// pushLeaf puts the full leaf lf after the tree's leaves; v.n still counts
// it (it was v's tail).
func (v *pvec[T]) pushLeaf(lf *pvecLeaf[T], ed *pvecEdit) {
	li := (v.n - leafLen) >> leafBits // lf's index among the leaves
	switch {
	case v.root == nil:
		v.root, v.height = pvecFresh[T](ed, 1), 1
	case li == 1<<(leafBits*v.height):
		r := pvecFresh[T](ed, v.height+1)
		r.kids = append(r.kids, v.root)
		v.root, v.height = r, v.height+1
	}
	v.root = pvecPush(v.root, v.height, li, lf, ed)
}

// pvecFresh is an empty node of height h that ed may change.
func pvecFresh[T any](ed *pvecEdit, h int) *pvecNode[T] {
	if h == 1 {
		return &pvecNode[T]{edit: ed, leaves: make([]*pvecLeaf[T], 0, leafLen)}
	}
	return &pvecNode[T]{edit: ed, kids: make([]*pvecNode[T], 0, leafLen)}
}

// pvecPush copies the path to leaf index li (unless ed made it) and puts lf there.
func pvecPush[T any](nd *pvecNode[T], h, li int, lf *pvecLeaf[T], ed *pvecEdit) *pvecNode[T] {
	if nd.edit != ed {
		c := pvecFresh[T](ed, h)
		c.kids = append(c.kids, nd.kids...)
		c.leaves = append(c.leaves, nd.leaves...)
		nd = c
	}
	if h == 1 {
		nd.leaves = append(nd.leaves, lf)
		return nd
	}
	if i := li >> (leafBits * (h - 1)) & leafMask; i < len(nd.kids) {
		nd.kids[i] = pvecPush(nd.kids[i], h-1, li, lf, ed)
	} else {
		nd.kids = append(nd.kids, pvecPush(pvecFresh[T](ed, h-1), h-1, li, lf, ed))
	}
	return nd
}

// leafAt is the li-th leaf (the tail when li is the last).
func (v pvec[T]) leafAt(li int) *pvecLeaf[T] {
	if li == (v.n-1)>>leafBits {
		return v.tail
	}
	nd := v.root
	for h := v.height; h > 1; h-- {
		nd = nd.kids[li>>(leafBits*(h-1))&leafMask]
	}
	return nd.leaves[li&leafMask]
}

// ptr is where the i-th element lives; it never moves or changes.
func (v pvec[T]) ptr(i int) *T {
	if uint(i) >= uint(v.n) {
		panic("pvec: index out of range")
	}
	return &v.leafAt(i >> leafBits)[i&leafMask]
}

// at is the i-th element.
func (v pvec[T]) at(i int) T { return *v.ptr(i) }

// truncate returns v's first n elements, sharing all it can: it copies
// only the right edge of the tree.
func (v pvec[T]) truncate(n int) pvec[T] {
	if n >= v.n {
		return v
	}
	if n == 0 {
		return pvec[T]{}
	}
	t := pvec[T]{n: n, tail: v.leafAt((n - 1) >> leafBits)}
	if t.tail == v.tail {
		t.used = v.used // v claimed past t's end: t's appends will copy
	}
	full := (n - t.tailLen()) >> leafBits // leaves in the tree
	if full == 0 {
		return t
	}
	nd, h := v.root, v.height
	for h > 1 && full <= 1<<(leafBits*(h-1)) {
		nd, h = nd.kids[0], h-1 // a shorter tree is enough
	}
	t.root, t.height = pvecTrim(nd, h, full), h
	return t
}

// pvecTrim is a frozen node of height h holding the first full leaves of nd.
func pvecTrim[T any](nd *pvecNode[T], h, full int) *pvecNode[T] {
	if h == 1 {
		if full == len(nd.leaves) {
			return nd
		}
		return &pvecNode[T]{leaves: nd.leaves[:full:full]}
	}
	per := 1 << (leafBits * (h - 1)) // leaves under each kid
	k := (full + per - 1) / per
	last := pvecTrim(nd.kids[k-1], h-1, full-(k-1)*per)
	if k == len(nd.kids) && last == nd.kids[k-1] {
		return nd
	}
	c := &pvecNode[T]{kids: make([]*pvecNode[T], k)}
	copy(c.kids, nd.kids[:k-1])
	c.kids[k-1] = last
	return c
}

// filterTail returns a vector with v's first from elements and, after
// them, those of the rest that keep accepts; v is unchanged. It costs
// what the tail costs: the elements before from are shared.
func (v pvec[T]) filterTail(from int, keep func(T) bool) pvec[T] {
	var tail []T
	for i := from; i < v.n; i++ {
		if x := v.at(i); keep(x) {
			tail = append(tail, x)
		}
	}
	return v.truncate(from).append(tail...)
}

// leafSlices yields v's elements leaf by leaf, as slices of the shared
// storage (taking an element's address is safe: it never moves).
func (v pvec[T]) leafSlices() iter.Seq[[]T] {
	return func(yield func([]T) bool) {
		if v.root != nil && !pvecWalk(v.root, v.height, yield) {
			return
		}
		if v.n > 0 {
			yield(v.tail[:v.tailLen():v.tailLen()])
		}
	}
}

// pvecWalk yields the leaves under nd in order; false when yield stopped it.
func pvecWalk[T any](nd *pvecNode[T], h int, yield func([]T) bool) bool {
	if h == 1 {
		for _, lf := range nd.leaves {
			if !yield(lf[:]) {
				return false
			}
		}
		return true
	}
	for _, k := range nd.kids {
		if !pvecWalk(k, h-1, yield) {
			return false
		}
	}
	return true
}

// all yields the elements in order.
func (v pvec[T]) all() iter.Seq[T] {
	return func(yield func(T) bool) {
		for s := range v.leafSlices() {
			for _, x := range s {
				if !yield(x) {
					return
				}
			}
		}
	}
}

// ptrs yields where each element lives, in order (it never moves).
func (v pvec[T]) ptrs() iter.Seq[*T] {
	return func(yield func(*T) bool) {
		for s := range v.leafSlices() {
			for i := range s {
				if !yield(&s[i]) {
					return
				}
			}
		}
	}
}
