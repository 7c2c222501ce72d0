// Persistent vectors: the index of a staged world shares everything with
// the world it was staged over (the id index too, idmap.go), so staging
// one object costs what that object costs, not what the world holds.

package world

import "iter"

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
