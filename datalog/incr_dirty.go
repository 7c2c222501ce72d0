// This file holds the incremental evaluation that visits only the strata a
// change reaches. When a program is evaluated from its own last model
// under the same stratification, or one growStrata made from it, the
// strata that can differ are those of the predicates whose facts or arity
// changed since (Program.touched), the new ones, and — transitively —
// those whose rules read a relation a visited stratum changed. Every
// other stratum keeps the previous model's result and relations without
// being looked at, so that staging one fact into a program of 100,000
// predicates costs what it changes, not a pass over every stratum.

package datalog

import (
	"container/heap"
	"sync/atomic"
)

// dirtyEvals counts the evaluations that visited only the strata their
// change reaches, for the tests that hold staging to that path.
var dirtyEvals atomic.Int64

// dirty evaluates st from a.prev visiting only the strata the change
// reaches, or reports false (having written nothing) when the previous
// model is not one it can map onto st.
func (a *applier) dirty(st *stratification, touched []uint32) bool {
	m, prev := a.m, a.prev
	if prev.stID == 0 || len(prev.rels) > len(m.rels) {
		return false
	}
	var at []int // where st inserted strata into prev's
	switch {
	case prev.stID == st.id:
	case prev.stID == st.base:
		at = st.at
	default:
		return false
	}
	if len(prev.strata)+len(at) != len(st.strata) {
		return false
	}
	m.strata = make([]*stratResult, 0, len(st.strata))
	var q strataHeap
	from := 0
	for _, k := range at {
		m.strata = append(m.strata, prev.strata[from:k]...)
		q.ids = append(q.ids, len(m.strata)) // a new stratum
		m.strata = append(m.strata, nil)
		from = k
	}
	m.strata = append(m.strata, prev.strata[from:]...)
	copy(m.rels, prev.rels)
	for _, pred := range touched {
		if int(pred) < len(st.stratOf) && st.stratOf[pred] >= 0 {
			q.ids = append(q.ids, st.stratOf[pred])
		}
	}
	heap.Init(&q)
	dirtyEvals.Add(1)
	a.partial, m.visited = true, map[int]bool{}
	for q.Len() > 0 {
		i := heap.Pop(&q).(int)
		if m.visited[i] {
			continue
		}
		m.visited[i] = true
		s := st.strata[i]
		m.strata[i] = a.resultOf(s, m.strata[i])
		for _, pred := range s.preds {
			a.visited = append(a.visited, pred)
			if m.rels[pred] == a.prevRel(pred) {
				continue
			}
			for _, h := range st.readers[pred] {
				if k := st.stratOf[h]; k != i && !m.visited[k] {
					heap.Push(&q, k)
				}
			}
		}
	}
	return true
}

// strataHeap is a min-heap of stratum indices: strata are visited in
// evaluation order, each after every visited stratum it reads.
type strataHeap struct{ ids []int }

func (h *strataHeap) Len() int           { return len(h.ids) }
func (h *strataHeap) Less(i, j int) bool { return h.ids[i] < h.ids[j] }
func (h *strataHeap) Swap(i, j int)      { h.ids[i], h.ids[j] = h.ids[j], h.ids[i] }
func (h *strataHeap) Push(x any)         { h.ids = append(h.ids, x.(int)) }
func (h *strataHeap) Pop() any {
	x := h.ids[len(h.ids)-1]
	h.ids = h.ids[:len(h.ids)-1]
	return x
}

// stratFlags returns whether the i-th stratum of m was taken over from
// the previous model unchanged, and whether it was maintained in place:
// a stratum an incremental evaluation did not visit was taken over.
func (m *Model) stratFlags(i int) (reused, kept bool) {
	st := m.strata[i]
	if m.visited != nil && !m.visited[i] {
		return true, false
	}
	return st.reused, st.kept
}
