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
// model is not one it can map onto st: its stratification is st, or the
// one growStrata grew st from (whose strata are st's first ones).
func (a *applier) dirty(st *stratification, touched []uint32) bool {
	m, prev := a.m, a.prev
	if prev == nil || prev != a.p.last || prev.strat == nil || prev.rels.len() > a.p.npred() ||
		prev.strat.id != st.id && prev.strat.id != st.base || prev.strata.len() > st.strata.len() {
		return false
	}
	var q strataHeap
	m.strata = prev.strata.clone()
	for i := m.strata.len(); i < st.strata.len(); i++ {
		q.ids = append(q.ids, i) // a new stratum
		m.strata.push(nil, m.gen)
	}
	m.rels = prev.rels.clone()
	m.rels.grow(a.p.npred(), nil, m.gen)
	for _, pred := range touched {
		if i := st.of(pred); i >= 0 {
			q.ids = append(q.ids, i)
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
		s := st.strata.at(i)
		m.strata.set(i, a.resultOf(s, m.strata.at(i)), m.gen)
		for _, pred := range s.preds {
			a.visited = append(a.visited, pred)
			if m.rel(pred) == a.prevRel(pred) {
				continue
			}
			for _, h := range st.readers[pred] {
				if k := st.of(h); k != i && !m.visited[k] {
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
	st := m.strata.at(i)
	if m.visited != nil && !m.visited[i] {
		return true, false
	}
	return st.reused, st.kept
}
