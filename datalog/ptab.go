// This file holds ptab, the persistent table by predicate or stratum
// index that a staged program's versions share: chunks of 256 elements,
// each owned by the generation that made it, so that a version is a copy
// of the chunk pointers (n/256 of them) and a write copies one chunk.
// Staging one fact into a program of 100,000 predicates used to copy
// every such table whole.

package datalog

import (
	"iter"
	"slices"
)

const (
	ptabShift = 8
	ptabChunk = 1 << ptabShift
	ptabMask  = ptabChunk - 1
)

// ptab is a persistent array. A value is owned by one version: give
// another version clone(), never a copy of the struct.
type ptab[T any] struct {
	ch []*ptChunk[T]
	n  int
}

// ptChunk holds up to ptabChunk elements; only gen writes it.
type ptChunk[T any] struct {
	gen uint64
	v   []T
}

// len returns the number of elements.
func (t *ptab[T]) len() int { return t.n }

// at returns element i (i < len).
func (t *ptab[T]) at(i int) T { return t.ch[i>>ptabShift].v[i&ptabMask] }

// all yields every index with its element, in order.
func (t *ptab[T]) all() iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		for c, k := range t.ch {
			for j, x := range k.v {
				if c<<ptabShift+j >= t.n || !yield(c<<ptabShift+j, x) {
					return
				}
			}
		}
	}
}

// clone returns a version sharing every chunk with t.
func (t *ptab[T]) clone() ptab[T] {
	return ptab[T]{ch: slices.Clone(t.ch), n: t.n}
}

// own returns chunk c, copied first unless gen made it.
func (t *ptab[T]) own(c int, gen uint64) *ptChunk[T] {
	k := t.ch[c]
	if k.gen != gen {
		v := make([]T, len(k.v), max(cap(k.v), len(k.v)+1))
		copy(v, k.v)
		k = &ptChunk[T]{gen: gen, v: v}
		t.ch[c] = k
	}
	return k
}

// set writes element i (i < len) under generation gen.
func (t *ptab[T]) set(i int, x T, gen uint64) {
	t.own(i>>ptabShift, gen).v[i&ptabMask] = x
}

// push appends x under generation gen.
func (t *ptab[T]) push(x T, gen uint64) {
	if t.n&ptabMask == 0 {
		t.ch = append(t.ch, &ptChunk[T]{gen: gen, v: make([]T, 0, min(ptabChunk, max(8, t.n)))})
	}
	k := t.own(len(t.ch)-1, gen)
	k.v = append(k.v, x)
	t.n++
}

// grow appends x until t has n elements.
func (t *ptab[T]) grow(n int, x T, gen uint64) {
	for t.n < n {
		t.push(x, gen)
	}
}

// ptabOf returns a table of xs under generation gen.
func ptabOf[T any](xs []T, gen uint64) ptab[T] {
	var t ptab[T]
	for c := 0; c < len(xs); c += ptabChunk {
		t.ch = append(t.ch, &ptChunk[T]{gen: gen, v: slices.Clone(xs[c:min(c+ptabChunk, len(xs))])})
	}
	t.n = len(xs)
	return t
}
