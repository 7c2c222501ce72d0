// This file holds ptab, the persistent table by predicate or stratum
// index that a staged program's versions share: a 32-way trie (trie.go)
// whose nodes each belong to the generation that made them, so that a
// version is a copy of the root and a write copies one root-to-leaf path.
// Staging one fact into a program of 100,000 predicates used to copy
// every such table whole, and then every 256-element chunk pointer of it
// (DL-0498).

package datalog

import "iter"

// ptab is a persistent array. A value is owned by one version: give
// another version clone(), never a copy of the struct, and write the
// original afterwards only under another generation (Program.Clone and
// EvalFrom move the program to a new one; a model or stratification is
// not written once made).
type ptab[T any] struct{ t ptrie[T] }

// len returns the number of elements.
func (t *ptab[T]) len() int { return t.t.n }

// at returns element i (i < len).
func (t *ptab[T]) at(i int) T { return *t.t.at(i) }

// all yields every index with its element, in order.
func (t *ptab[T]) all() iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		if t.t.root != nil {
			walkTrie(t.t.root, t.t.shift, 0, t.t.n, yield)
		}
	}
}

// walkTrie yields the elements below nd, the first of them at index base,
// up to index n; false when yield stopped it.
func walkTrie[T any](nd *tnode[T], shift uint8, base, n int, yield func(int, T) bool) bool {
	if shift == 0 {
		for j, x := range nd.elems {
			if base+j >= n || !yield(base+j, x) {
				return false
			}
		}
		return true
	}
	for k, c := range nd.kids {
		if !walkTrie(c, shift-trieBits, base+k<<shift, n, yield) {
			return false
		}
	}
	return true
}

// clone returns a version sharing every node with t.
func (t *ptab[T]) clone() ptab[T] { return *t }

// set writes element i (i < len) under generation gen.
func (t *ptab[T]) set(i int, x T, gen uint64) { *t.t.ref(i, gen) = x }

// push appends x under generation gen.
func (t *ptab[T]) push(x T, gen uint64) { t.t.push(x, gen) }

// grow appends x until t has n elements.
func (t *ptab[T]) grow(n int, x T, gen uint64) {
	if t.t.n == 0 && n > trieWidth {
		xs := make([]T, n)
		for i := range xs {
			xs[i] = x
		}
		t.t = buildTrie(xs, gen)
		return
	}
	for t.t.n < n {
		t.t.push(x, gen)
	}
}

// ptabOf returns a table of xs under generation gen.
func ptabOf[T any](xs []T, gen uint64) ptab[T] {
	return ptab[T]{t: buildTrie(xs, gen)}
}
