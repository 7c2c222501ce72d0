// This file answers queries: the atoms of one predicate that match an atom
// pattern, with bindings, grades and supports, in a fixed order.

package datalog

import (
	"slices"
	"strings"
	"sync"
)

// Answer is one atom matching a query.
type Answer struct {
	Args     []string
	Bindings map[string]string // query variable → constant
	Grade    Grade
	Support  Poly
}

// Query returns the atoms of q.Pred that match q, graded under v and
// ordered by arguments. Constants in q filter; a variable repeated in q
// must take one value. Dead atoms are included with Grade Dead; a pattern
// whose arity differs from the predicate's matches nothing. The variable
// "_" matches anything and is not bound.
func (m *Model) Query(q Atom, v Valuation) []Answer {
	out, _ := m.QueryPage(q, v, 0, -1)
	return out
}

// QueryPage is the answers of Query from the from-th, at most limit of
// them (every one when limit is negative), and how many there are in
// all. Only the page's answers are bound, graded and given their
// supports: a page of ten answers over a predicate of a million atoms
// costs the matching and the order, not a million supports.
func (m *Model) QueryPage(q Atom, v Valuation, from, limit int) ([]Answer, int) {
	out := []Answer{}
	pid, ok := m.preds.lookup(q.Pred)
	if !ok || int(pid) >= m.rels.len() || m.rel(pid) == nil || m.rel(pid).arity != len(q.Args) {
		return out, 0
	}
	rel := m.rel(pid)
	var cols []int
	var key []uint32
	for i, t := range q.Args {
		if t.Var == "" {
			c, ok := m.consts.lookup(t.Const)
			if !ok {
				return out, 0
			}
			cols, key = append(cols, i), append(key, c)
		}
	}
	consts := m.consts.snapshot()
	from = max(from, 0)
	need := -1 // the rows up to the page's end: every one
	if limit >= 0 {
		need = from + limit
	}
	order, total := m.queryOrder(q, rel, consts, candidateRows{rel, cols, key}, need)
	from = min(from, len(order))
	end := len(order)
	if limit >= 0 {
		end = min(end, from+limit)
	}
	g := m.Grader(v)
	for _, row := range order[from:end] {
		args := m.argStrings(rel, row, consts)
		b, _ := bindQuery(q, args)
		out = append(out, Answer{Args: args, Bindings: b, Grade: g.gradeAtom(pid, row), Support: m.publicPoly(pid, row)})
	}
	return out, total
}

// candidateRows are the live rows of rel whose columns cols hold key.
type candidateRows struct {
	rel  *relation
	cols []int
	key  []uint32
}

// each yields the rows.
func (c candidateRows) each(yield func(row uint32) bool) {
	rel := c.rel
	switch {
	case len(c.cols) == 0:
		for i := range rel.n {
			if rel.alive(uint32(i)) && !yield(uint32(i)) {
				return
			}
		}
	case len(c.cols) == rel.arity:
		if r, ok := rel.find(c.key); ok {
			yield(r)
		}
	default:
		ix := rel.index(c.cols)
		for h := ix.lookup(rel, c.key); h != 0; h = ix.nextOf(h - 1) {
			if rel.alive(h-1) && !yield(h-1) {
				return
			}
		}
	}
}

// count is how many rows there are.
func (c candidateRows) count() int {
	if len(c.cols) == 0 {
		return c.rel.live
	}
	n := 0
	for range c.each {
		n++
	}
	return n
}

// queryOrder returns the rows of rel among candidates (read only when
// no order is kept) that match q, ordered by their arguments, and how
// many match. A large order is kept with the model (it never changes), a
// few patterns at a time, so that reading the next page of a query costs
// the page, not the sort again. A page near the start of a large order
// not kept (need, the rows up to its end, at most a pageShare of them) is
// selected instead of sorted: only the order's first rows are returned
// (need of them, or selectedMin when that is more and still near the
// start), and kept as the start of the order, so that the next pages
// near it cost the page too.
func (m *Model) queryOrder(q Atom, rel *relation, consts nameList, candidates candidateRows, need int) ([]uint32, int) {
	key := patternKey(q)
	if k, ok := m.orders.find(key); ok && k.holds(need) {
		return k.rows, k.total
	}
	n := candidates.count()
	if need >= 0 && n >= keptOrderMin && need <= n/pageShare {
		first := max(need, min(selectedMin, n/pageShare))
		rows, total := selectFirst(q, rel, consts, candidates, first)
		m.orders.keep(keptOrder{key: key, rows: rows, total: total, start: true})
		return rows, total
	}
	type match struct {
		row  uint32
		args []string
	}
	matches := make([]match, 0, n)
	for row := range candidates.each {
		args := m.argStrings(rel, row, consts)
		if matchQuery(q, args) {
			matches = append(matches, match{row, args})
		}
	}
	slices.SortFunc(matches, func(a, b match) int { return slices.Compare(a.args, b.args) })
	order := make([]uint32, len(matches))
	for i, x := range matches {
		order[i] = x.row
	}
	if len(order) >= keptOrderMin {
		m.orders.keep(keptOrder{key: key, rows: order, total: len(order)})
	}
	return order, len(order)
}

// pageShare: a page whose end lies within the first 1/pageShare of a
// large query's candidates is selected rather than the whole sorted.
const pageShare = 16

// selectedMin is how many rows a selection keeps at least: the first 25
// pages of ten.
const selectedMin = 256

// selectFirst returns the first need rows among rows that match q, in
// the order of their arguments, and how many match: one pass keeping the
// need least in a heap, no row listed and no row's arguments copied. Rows are distinct
// tuples, so the order is total and the rows are those a sort would put
// first.
func selectFirst(q Atom, rel *relation, consts nameList, candidates candidateRows, need int) ([]uint32, int) {
	args := make([]string, rel.arity)
	cmpRows := func(a, b uint32) int {
		ra, rb := rel.row(a), rel.row(b)
		for i := range ra {
			if ra[i] == rb[i] {
				continue
			}
			if c := strings.Compare(consts.at(ra[i]), consts.at(rb[i])); c != 0 {
				return c
			}
		}
		return 0
	}
	h := rowHeap{above: func(a, b uint32) bool { return cmpRows(a, b) > 0 }} // the greatest on top
	total := 0
	for row := range candidates.each {
		for i, v := range rel.row(row) {
			args[i] = consts.at(v)
		}
		if !matchQuery(q, args) {
			continue
		}
		total++
		switch {
		case len(h.rows) < need:
			h.push(row)
		case need > 0 && cmpRows(row, h.rows[0]) < 0:
			h.rows[0] = row
			h.down(0)
		}
	}
	slices.SortFunc(h.rows, cmpRows)
	return h.rows, total
}

// rowHeap is a binary heap of rows, each above its children:
// above(child, parent) never holds.
type rowHeap struct {
	rows  []uint32
	above func(a, b uint32) bool
}

func (h *rowHeap) push(row uint32) {
	h.rows = append(h.rows, row)
	for i := len(h.rows) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.above(h.rows[i], h.rows[p]) {
			return
		}
		h.rows[p], h.rows[i] = h.rows[i], h.rows[p]
		i = p
	}
}

// down moves the row at i down to its place.
func (h *rowHeap) down(i int) {
	for n := len(h.rows); ; {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && h.above(h.rows[c+1], h.rows[c]) {
			c++
		}
		if !h.above(h.rows[c], h.rows[i]) {
			return
		}
		h.rows[i], h.rows[c] = h.rows[c], h.rows[i]
		i = c
	}
}

// keptOrders is how many query orders a model keeps, the oldest going
// first; keptOrderMin the fewest matches an order must have to be kept.
const (
	keptOrders   = 4
	keptOrderMin = 1024
)

// keptOrder is the order of one query pattern's matches, or its start.
type keptOrder struct {
	key   string
	rows  []uint32
	total int  // how many rows match
	start bool // rows are the order's first, selected (total may be more)
}

// holds reports whether the order's first need rows are kept (every
// row's when need is negative).
func (k keptOrder) holds(need int) bool {
	return !k.start || len(k.rows) == k.total || need >= 0 && need <= len(k.rows)
}

// queryOrders are a model's kept orders.
type queryOrders struct {
	mu   sync.Mutex
	kept []keptOrder
}

// find returns the order kept for key.
func (o *queryOrders) find(key string) (keptOrder, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, k := range o.kept {
		if k.key == key {
			return k, true
		}
	}
	return keptOrder{}, false
}

// keep keeps an order, letting the oldest go when full. An order kept for
// the same pattern stays unless the new one holds more rows (a whole
// order where the start was kept, a longer start): a reader that sorted
// the same pattern at the same time keeps nothing twice.
func (o *queryOrders) keep(k keptOrder) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, old := range o.kept {
		if old.key == k.key {
			if len(k.rows) > len(old.rows) || old.start && !k.start {
				o.kept[i] = k
			}
			return
		}
	}
	if len(o.kept) == keptOrders {
		o.kept = o.kept[1:]
	}
	o.kept = append(o.kept, k)
}

// patternKey names a query pattern: its predicate and terms.
func patternKey(q Atom) string {
	var b strings.Builder
	b.WriteString(q.Pred)
	for _, t := range q.Args {
		if t.Var == "" {
			b.WriteString("\x00c")
			b.WriteString(t.Const)
		} else {
			b.WriteString("\x00v")
			b.WriteString(t.Var)
		}
	}
	return b.String()
}

// matchQuery reports whether args match q's terms: its constants, and
// one value for each variable named more than once.
func matchQuery(q Atom, args []string) bool {
	for i, t := range q.Args {
		switch {
		case t.Var == "":
			if args[i] != t.Const {
				return false
			}
		case t.Var == Anon:
		default:
			for j := range i {
				if q.Args[j].Var == t.Var && args[j] != args[i] {
					return false
				}
			}
		}
	}
	return true
}

// bindQuery matches args against q's terms and binds q's variables.
func bindQuery(q Atom, args []string) (map[string]string, bool) {
	if !matchQuery(q, args) {
		return nil, false
	}
	b := map[string]string{}
	for i, t := range q.Args {
		if t.Var != "" && t.Var != Anon {
			b[t.Var] = args[i]
		}
	}
	return b, true
}
