// Persistent vectors and a layered id map: the index of a staged world
// shares everything with the world it was staged over, so staging one
// object costs what that object costs, not what the world holds.

package world

import (
	"iter"

	"github.com/deloreis/deloreis/objects"
)

const chunkLen = 512

// pvec is an append-only persistent vector: full chunks are shared and
// never written again; append copies the chunk list and the last chunk.
type pvec[T any] struct {
	chunks [][]T
	n      int
}

// append returns a vector with xs after v's elements; v is unchanged.
func (v pvec[T]) append(xs ...T) pvec[T] {
	if len(xs) == 0 {
		return v
	}
	chunks := make([][]T, len(v.chunks), len(v.chunks)+1+len(xs)/chunkLen)
	copy(chunks, v.chunks)
	for _, x := range xs {
		last := len(chunks) - 1
		if last < 0 || len(chunks[last]) == chunkLen {
			chunks = append(chunks, make([]T, 0, chunkLen))
			last++
		} else if last == len(v.chunks)-1 && len(chunks[last]) == len(v.chunks[last]) {
			// The last chunk is shared with v: copy it before appending.
			c := make([]T, len(chunks[last]), chunkLen)
			copy(c, chunks[last])
			chunks[last] = c
		}
		chunks[last] = append(chunks[last], x)
	}
	return pvec[T]{chunks: chunks, n: v.n + len(xs)}
}

// at is the i-th element.
func (v pvec[T]) at(i int) T { return v.chunks[i/chunkLen][i%chunkLen] }

// filterTail returns a vector with v's first from elements and, after
// them, those of the rest that keep accepts; v is unchanged. It costs
// what the tail costs: the chunks before from are shared.
func (v pvec[T]) filterTail(from int, keep func(T) bool) pvec[T] {
	var tail []T
	for i := from; i < v.n; i++ {
		if x := v.at(i); keep(x) {
			tail = append(tail, x)
		}
	}
	full := from / chunkLen
	chunks := make([][]T, full, full+1)
	copy(chunks, v.chunks[:full])
	if r := from % chunkLen; r > 0 {
		c := make([]T, r, chunkLen)
		copy(c, v.chunks[full][:r])
		chunks = append(chunks, c)
	}
	return pvec[T]{chunks: chunks, n: from}.append(tail...)
}

// all yields the elements in order.
func (v pvec[T]) all() iter.Seq[T] {
	return func(yield func(T) bool) {
		for _, c := range v.chunks {
			for _, x := range c {
				if !yield(x) {
					return
				}
			}
		}
	}
}

// idIndex finds entries by id: a shared base map and a small overlay of
// what was staged (or, as nil, discarded) since, folded into a new base
// when it grows.
type idIndex struct {
	base map[objects.ID]*Entry
	over map[objects.ID]*Entry
}

const maxOverlay = 2048

func (x idIndex) get(id objects.ID) (*Entry, bool) {
	if e, ok := x.over[id]; ok {
		return e, e != nil
	}
	e, ok := x.base[id]
	return e, ok
}

// with returns an index that also holds es; x is unchanged.
func (x idIndex) with(es []*Entry) idIndex {
	over := make(map[objects.ID]*Entry, len(x.over)+len(es))
	for _, e := range es {
		over[e.ID] = e
	}
	return x.overlay(over)
}

// without returns an index that no longer holds ids; x is unchanged.
func (x idIndex) without(ids []objects.ID) idIndex {
	over := make(map[objects.ID]*Entry, len(x.over)+len(ids))
	for _, id := range ids {
		over[id] = nil
	}
	return x.overlay(over)
}

// overlay lays changes (nil: removed) over x, folding the overlay into a
// new base when it grows past maxOverlay.
func (x idIndex) overlay(changes map[objects.ID]*Entry) idIndex {
	for k, v := range x.over {
		if _, newer := changes[k]; !newer {
			changes[k] = v
		}
	}
	if len(changes) <= maxOverlay {
		return idIndex{base: x.base, over: changes}
	}
	base := make(map[objects.ID]*Entry, len(x.base)+len(changes))
	for k, v := range x.base {
		base[k] = v
	}
	for k, v := range changes {
		if v == nil {
			delete(base, k)
		} else {
			base[k] = v
		}
	}
	return idIndex{base: base}
}

// each yields every entry, in no particular order.
func (x idIndex) each() iter.Seq2[objects.ID, *Entry] {
	return func(yield func(objects.ID, *Entry) bool) {
		for k, v := range x.over {
			if v != nil && !yield(k, v) {
				return
			}
		}
		for k, v := range x.base {
			if _, shadowed := x.over[k]; shadowed {
				continue
			}
			if !yield(k, v) {
				return
			}
		}
	}
}
