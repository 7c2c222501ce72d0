// This file indexes which atoms a provenance variable can re-grade: the
// atoms whose kept supports mention it, and the closure through negated
// literals and ground instances of truncated atoms. A caller that changes
// one variable's truth re-grades those atoms and keeps every other grade.

package datalog

import (
	"slices"
	"strings"
)

// depIndex is built once per model, on first use.
type depIndex struct {
	mentions map[uint32][]aref // literal id → atoms whose kept support has it
	negLit   map[aref]uint32   // atom → id of its negated literal
	readers  map[aref][]aref   // atom → truncated atoms with an instance reading it
	ruleLit  map[uint32][]aref // literal id → truncated atoms with an instance or fact whose own support has it
}

func (m *Model) deps() *depIndex {
	m.mentionsOnce.Do(m.buildDeps)
	return m.depIdx
}

func (m *Model) buildDeps() {
	d := &depIndex{mentions: map[uint32][]aref{}, negLit: map[aref]uint32{},
		readers: map[aref][]aref{}, ruleLit: map[uint32][]aref{}}
	for pid, rel := range m.rels.all() {
		if rel == nil || rel.allOne() {
			continue
		}
		for i := range rel.n {
			row := uint32(i)
			if !rel.alive(row) {
				continue
			}
			a := aref{uint32(pid), row}
			for _, mo := range rel.poly(row) {
				for _, id := range mo.lits {
					if l := d.mentions[id]; len(l) == 0 || l[len(l)-1] != a {
						d.mentions[id] = append(l, a)
					}
				}
			}
		}
	}
	for id := range uint32(m.info.len()) {
		if li := m.info.at(id); li.kind == litNeg && m.rel(li.pred) != nil {
			if row, ok := m.rel(li.pred).find(li.args); ok {
				d.negLit[aref{li.pred, row}] = id
			}
		}
	}
	for i := range m.strata.len() {
		if s := m.strata.at(i); s.region != nil {
			d.addRegion(s.region)
		}
	}
	m.depIdx = d
}

func (d *depIndex) addRegion(reg *region) {
	for _, in := range reg.inst {
		head := reg.atoms[in.head]
		for _, id := range litsOf(reg.rules[in.rule].support) {
			d.ruleLit[id] = append(d.ruleLit[id], head)
		}
		for _, rf := range reg.refs[in.lo:in.hi] {
			if rf.kind() != refLocal {
				a := aref{rf.pred(), rf.row()}
				d.readers[a] = append(d.readers[a], head)
			}
		}
	}
	for _, f := range reg.facts {
		for _, id := range litsOf(f.fact.sup) {
			d.ruleLit[id] = append(d.ruleLit[id], reg.atoms[f.local])
		}
	}
}

func litsOf(p ipoly) []uint32 {
	var out []uint32
	for _, mo := range p {
		out = append(out, mo.lits...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// affected returns every atom whose grade can change when the truth of
// any of the literal ids changes.
func (m *Model) affected(ids []uint32) []aref {
	d := m.deps()
	seen := map[aref]bool{}
	var queue []aref
	push := func(as []aref) {
		for _, a := range as {
			if !seen[a] {
				seen[a] = true
				queue = append(queue, a)
			}
		}
	}
	for _, id := range ids {
		push(d.mentions[id])
		push(d.ruleLit[id])
	}
	for len(queue) > 0 {
		a := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if id, ok := d.negLit[a]; ok {
			push(d.mentions[id])
		}
		push(d.readers[a])
		if s := m.strata.at(m.stratOf(a.pred)); s.region != nil {
			reg := s.region
			if l := reg.local[a.pred]; l != nil && l[a.row] >= 0 {
				for _, i := range reg.users[reg.userOff[l[a.row]]:reg.userOff[l[a.row]+1]] {
					push([]aref{reg.atoms[reg.inst[i].head]})
				}
			}
		}
	}
	out := make([]aref, 0, len(seen))
	for a := range seen {
		out = append(out, a)
	}
	return out
}

// varIDs returns the literal ids of the named variables that the model's
// supports can mention.
func (m *Model) varIDs(vars []string) []uint32 {
	var ids []uint32
	for _, v := range vars {
		m.lits.mu.RLock()
		id, ok := m.lits.vars[v]
		m.lits.mu.RUnlock()
		if ok && int(id) < m.info.len() {
			ids = append(ids, id)
		}
	}
	return ids
}

// groundFacts renders atoms sorted by predicate, then arguments.
func (m *Model) groundFacts(as []aref, withSupport bool) []GroundFact {
	consts := m.consts.snapshot()
	out := make([]GroundFact, len(as))
	for i, a := range as {
		out[i] = GroundFact{Pred: m.predNames.at(a.pred), Args: m.argStrings(m.rel(a.pred), a.row, consts)}
		if withSupport {
			out[i].Support = m.publicPoly(a.pred, a.row)
		}
	}
	slices.SortFunc(out, func(a, b GroundFact) int {
		if c := strings.Compare(a.Pred, b.Pred); c != 0 {
			return c
		}
		return slices.Compare(a.Args, b.Args)
	})
	return out
}

// Mentions returns the atoms whose kept support mentions variable v, with
// their supports, sorted by predicate and arguments.
func (m *Model) Mentions(v string) []GroundFact {
	var as []aref
	for _, id := range m.varIDs([]string{v}) {
		as = append(as, m.deps().mentions[id]...)
	}
	return m.groundFacts(as, true)
}

// Affected returns every atom whose grade can change when the truth of any
// of the named variables changes: those whose support mentions one, those
// whose support negates an affected atom, and truncated atoms whose ground
// instances read one; sorted by predicate and arguments, supports omitted.
// Atoms of other models reached through foreign literals are not included.
func (m *Model) Affected(vars ...string) []GroundFact {
	return m.groundFacts(m.affected(m.varIDs(vars)), false)
}

// Update returns a grader under v, which differs from g's valuation at most
// in the changed variables. It keeps every grade g computed except those
// the change can affect, so re-grading after a defeat costs only the
// affected atoms.
func (g *Grader) Update(v Valuation, changed ...string) *Grader {
	m := g.m
	n := &Grader{m: m, v: v, lit: g.lit.clone(), grades: make([]memo, len(g.grades))}
	for i := range g.grades {
		n.grades[i] = g.grades[i].clone()
	}
	ids := m.varIDs(changed)
	for id := range uint32(m.info.len()) {
		if m.info.at(id).kind == litForeign {
			ids = append(ids, id) // foreign atoms are graded under v too
		}
	}
	for _, id := range ids {
		n.lit.set(id, 0)
	}
	d := m.deps()
	for _, a := range m.affected(ids) {
		n.grades[a.pred].set(a.row, 0)
		if id, ok := d.negLit[a]; ok {
			n.lit.set(id, 0)
		}
	}
	return n
}
