// This file holds Program.Eval and the Model it returns: the relations of
// every predicate with their supports, read by name.

package datalog

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

var modelSerial atomic.Uint64

// Model is the result of evaluating a program: every derived atom with its
// support polynomial. A Model is immutable and safe for concurrent use.
type Model struct {
	serial    uint64
	gen       uint64 // the generation its relations were written under
	bounds    Bounds
	consts    *interner
	preds     *interner
	lits      *litTable
	predNames nameList
	rels      ptab[*relation]    // by pred id; nil for predicates the program does not use (rel reads it)
	strata    ptab[*stratResult] // by stratum index
	strat     *stratification    // the stratification it was evaluated under
	visited   map[int]bool       // the strata an incremental evaluation visited (incr_dirty.go); nil: all
	curIdx    []int              // scratch during evaluation
	atOnce    bool               // strata are being evaluated at once: each copies literals into an arena of its own
	info      litList
	arena     arena
	delta     *modelDelta // what EvalFrom changed from the model it started from (changes.go)
	orders    queryOrders // the orders of large queries' matches, kept for their next pages (query.go)

	guard       *guard // the budget, during evaluation (budget.go)
	derivations int    // the derivations its evaluation made, under a budget

	mentionsOnce sync.Once
	depIdx       *depIndex
}

// GroundFact is one atom of a model with its support.
type GroundFact struct {
	Pred    string
	Args    []string
	Support Poly
}

// Eval checks the program (stratification) and evaluates it, incrementally
// from the program's previous model (or its clone source's): it is
// EvalFrom of that model.
func (p *Program) Eval() (*Model, error) {
	return p.EvalFrom(p.last)
}

// EvalFrom checks the program and evaluates it, computing the model from
// prev, a model of p or of a program p was cloned from (directly or not),
// as far as the change allows: strata the change cannot reach are shared
// with prev, strata it reaches are maintained in place from the facts that
// changed (see the package documentation), and the rest are evaluated from
// scratch. The result is identical to evaluating p from scratch. prev is
// left unchanged and stays valid; nil, or a model of an unrelated program,
// evaluates from scratch.
func (p *Program) EvalFrom(prev *Model) (*Model, error) {
	st, err := p.stratify()
	if err != nil {
		return nil, err
	}
	if prev != nil && (prev.consts != p.consts || prev.preds != p.preds || prev.lits != p.lits || prev.bounds != p.bounds) {
		prev = nil
	}
	p.gen.Store(versionClock.Add(1)) // the fact sets the model reads are read-only from now on
	m := &Model{
		serial: modelSerial.Add(1), gen: versionClock.Add(1), bounds: p.bounds,
		consts: p.consts, preds: p.preds, lits: p.lits,
		predNames: p.preds.snapshot(), strat: st, curIdx: borrowCur(p.npred()),
		guard: p.guard,
	}
	a := newApplier(p, prev, m)
	if !a.dirty(st, p.touched) {
		m.rels.grow(p.npred(), nil, m.gen)
		if prev == nil && atOnce(p, st) {
			a.strataAtOnce(st)
		} else {
			for i := range st.strata.len() {
				a.stratum(i, st.strata.at(i))
			}
		}
	}
	returnCur(m.curIdx)
	m.curIdx = nil
	if m.guard != nil {
		m.derivations, m.guard = int(m.guard.derived.Load()), nil
	}
	if prev != nil {
		m.delta = a.delta()
	}
	m.info = p.lits.snapshot()
	p.last, p.touched = m, nil
	return m, nil
}

// rel returns pred's relation, nil for a predicate the program does not
// use.
func (m *Model) rel(pred uint32) *relation {
	if int(pred) >= m.rels.len() {
		return nil
	}
	return m.rels.at(int(pred))
}

// stratOf returns the index of pred's stratum, -1 for a predicate the
// program does not use.
func (m *Model) stratOf(pred uint32) int { return m.strat.of(pred) }

// lookupAtom finds the relation row of pred(args).
func (m *Model) lookupAtom(pred string, args []string) (uint32, uint32, bool) {
	pid, ok := m.preds.lookup(pred)
	if !ok || int(pid) >= m.rels.len() || m.rel(pid) == nil || m.rel(pid).arity != len(args) {
		return 0, 0, false
	}
	t := make([]uint32, len(args))
	for i, a := range args {
		c, ok := m.consts.lookup(a)
		if !ok {
			return 0, 0, false
		}
		t[i] = c
	}
	row, ok := m.rel(pid).find(t)
	return pid, row, ok
}

// Support returns the support of pred(args): zero when the atom was not
// derived. A truncated support is flagged (Poly.Truncated) and evaluates
// exactly through Poly.Eval.
func (m *Model) Support(pred string, args ...string) Poly {
	pid, row, ok := m.lookupAtom(pred, args)
	if !ok {
		return Poly{}
	}
	return m.publicPoly(pid, row)
}

// publicPoly renders a row's support as a Poly.
func (m *Model) publicPoly(pred, row uint32) Poly {
	rel := m.rel(pred)
	p := rel.poly(row)
	mons := make([][]plit, len(p))
	for i, mo := range p {
		ls := make([]plit, len(mo.lits))
		for j, id := range mo.lits {
			ls[j] = m.plitOf(id)
		}
		mons[i] = ls
	}
	trunc := rel.tainted(row)
	out := normalize(mons, trunc)
	if trunc {
		out.d.exact = &atomRef{m: m, pred: pred, row: row}
	}
	return out
}

// plitOf renders literal id as a public literal.
func (m *Model) plitOf(id uint32) plit {
	li := m.info.at(id)
	switch li.kind {
	case litNeg:
		row, _ := m.rel(li.pred).find(li.args)
		return plit{name: m.info.name(id), neg: &atomRef{m: m, pred: li.pred, row: row}}
	case litForeign:
		x := m.info.extraOf(li)
		f := x.foreign
		return plit{name: x.name, neg: &f}
	}
	return plit{name: m.info.extraOf(li).name}
}

// argStrings renders a row's constants.
func (m *Model) argStrings(rel *relation, row uint32, consts nameList) []string {
	vals := rel.row(row)
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = consts.at(v)
	}
	return out
}

// Facts returns every atom of pred with its support, ordered by arguments
// (element by element, as strings).
func (m *Model) Facts(pred string) []GroundFact {
	pid, ok := m.preds.lookup(pred)
	if !ok || int(pid) >= m.rels.len() || m.rel(pid) == nil {
		return []GroundFact{}
	}
	rel := m.rel(pid)
	consts := m.consts.snapshot()
	out := make([]GroundFact, 0, rel.live)
	for _, row := range rel.liveRows() {
		out = append(out, GroundFact{Pred: pred, Args: m.argStrings(rel, row, consts), Support: m.publicPoly(pid, row)})
	}
	slices.SortFunc(out, func(a, b GroundFact) int { return slices.Compare(a.Args, b.Args) })
	return out
}

// Len returns the number of atoms of pred.
func (m *Model) Len(pred string) int {
	pid, ok := m.preds.lookup(pred)
	if !ok || int(pid) >= m.rels.len() || m.rel(pid) == nil {
		return 0
	}
	return m.rel(pid).live
}

// Preds returns the names of the program's predicates (those with a fact or
// in a rule when it was evaluated), sorted.
func (m *Model) Preds() []string {
	var out []string
	for pid, rel := range m.rels.all() {
		if rel != nil {
			out = append(out, m.predNames.at(uint32(pid)))
		}
	}
	slices.SortFunc(out, strings.Compare)
	if out == nil {
		out = []string{}
	}
	return out
}
