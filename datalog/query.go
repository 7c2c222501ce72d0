// This file answers queries: the atoms of one predicate that match an atom
// pattern, with bindings, grades and supports, in a fixed order.

package datalog

import (
	"slices"
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
	out := []Answer{}
	pid, ok := m.preds.lookup(q.Pred)
	if !ok || int(pid) >= len(m.rels) || m.rels[pid] == nil || m.arity[pid] != len(q.Args) {
		return out
	}
	rel := m.rels[pid]
	var cols []int
	var key []uint32
	for i, t := range q.Args {
		if t.Var == "" {
			c, ok := m.consts.lookup(t.Const)
			if !ok {
				return out
			}
			cols, key = append(cols, i), append(key, c)
		}
	}
	var rows []uint32
	switch {
	case len(cols) == 0:
		rows = rel.liveRows()
	case len(cols) == rel.arity:
		if r, ok := rel.find(key); ok {
			rows = []uint32{r}
		}
	default:
		ix := rel.index(cols)
		for h := ix.lookup(rel, key); h != 0; h = ix.nextOf(h - 1) {
			if rel.alive(h - 1) {
				rows = append(rows, h-1)
			}
		}
	}
	g := m.Grader(v)
	consts := m.consts.snapshot()
	for _, row := range rows {
		args := m.argStrings(rel, row, consts)
		b, ok := bindQuery(q, args)
		if !ok {
			continue
		}
		out = append(out, Answer{Args: args, Bindings: b, Grade: g.gradeAtom(pid, row), Support: m.publicPoly(pid, row)})
	}
	slices.SortFunc(out, func(a, b Answer) int { return slices.Compare(a.Args, b.Args) })
	return out
}

// bindQuery matches args against q's terms.
func bindQuery(q Atom, args []string) (map[string]string, bool) {
	b := map[string]string{}
	for i, t := range q.Args {
		if t.Var == "" {
			if args[i] != t.Const {
				return nil, false
			}
			continue
		}
		if t.Var == Anon {
			continue
		}
		if prev, ok := b[t.Var]; ok && prev != args[i] {
			return nil, false
		}
		b[t.Var] = args[i]
	}
	return b, true
}
