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
// what was staged since, folded into a new base when it grows.
type idIndex struct {
	base map[objects.ID]*Entry
	over map[objects.ID]*Entry
}

const maxOverlay = 2048

func (x idIndex) get(id objects.ID) (*Entry, bool) {
	if e, ok := x.over[id]; ok {
		return e, true
	}
	e, ok := x.base[id]
	return e, ok
}

// with returns an index that also holds es; x is unchanged.
func (x idIndex) with(es []*Entry) idIndex {
	if len(x.over)+len(es) > maxOverlay {
		base := make(map[objects.ID]*Entry, len(x.base)+len(x.over)+len(es))
		for k, v := range x.base {
			base[k] = v
		}
		for k, v := range x.over {
			base[k] = v
		}
		for _, e := range es {
			base[e.ID] = e
		}
		return idIndex{base: base}
	}
	over := make(map[objects.ID]*Entry, len(x.over)+len(es))
	for k, v := range x.over {
		over[k] = v
	}
	for _, e := range es {
		over[e.ID] = e
	}
	return idIndex{base: x.base, over: over}
}

// each yields every entry, in no particular order.
func (x idIndex) each() iter.Seq2[objects.ID, *Entry] {
	return func(yield func(objects.ID, *Entry) bool) {
		for k, v := range x.over {
			if !yield(k, v) {
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
