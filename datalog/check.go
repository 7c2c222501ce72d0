// This file holds the static checks: term validity, arities and range
// restriction when a rule is added, and stratification (strongly connected
// components of the predicate dependency graph, no cycle through negation)
// before evaluation.

package datalog

import (
	"cmp"
	"container/heap"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
)

// validateRule runs the checks AddRule makes, in a fixed order: terms,
// arities, range restriction, comparisons (compare.go), support.
func (p *Program) validateRule(r Rule) error {
	atoms := make([]Atom, 0, len(r.Body)+1)
	atoms = append(atoms, r.Head)
	for _, l := range r.Body {
		if !l.IsComparison() {
			atoms = append(atoms, l.Atom)
		}
	}
	for _, a := range atoms {
		if a.Pred == "" {
			return &Error{Code: CodeInvalidTerm, Rule: r.Name, Message: fmt.Sprintf(
				"%s has an atom with an empty predicate name; name the predicate", ruleLabel(r.Name))}
		}
		for i, t := range a.Args {
			if (t.Var == "") == (t.Const == "") {
				return &Error{Code: CodeInvalidTerm, Rule: r.Name, Pred: a.Pred, Message: fmt.Sprintf(
					"argument %d of %s in %s sets both or neither of Var and Const; set exactly one",
					i+1, a.Pred, ruleLabel(r.Name))}
			}
		}
	}
	seen := map[string]int{}
	for _, a := range atoms {
		want, ok := seen[a.Pred]
		if !ok {
			if id, known := p.preds.lookup(a.Pred); known && p.arityOf(id) >= 0 {
				want, ok = p.arityOf(id), true
			}
		}
		if ok && want != len(a.Args) {
			return arityError(r.Name, a.Pred, len(a.Args), want)
		}
		seen[a.Pred] = len(a.Args)
	}
	if err := rangeRestricted(r); err != nil {
		return err
	}
	if err := checkComparisons(r); err != nil {
		return err
	}
	if r.Support.IsZero() && !r.Support.Truncated() {
		return &Error{Code: CodeZeroSupport, Rule: r.Name, Message: fmt.Sprintf(
			"%s has the zero support, so it would never fire; set Support to datalog.One() for an unconditional rule",
			ruleLabel(r.Name))}
	}
	return nil
}

// rangeRestricted checks that every head variable and every variable of a
// negated literal occurs in a positive body atom.
func rangeRestricted(r Rule) error {
	bound := map[string]bool{}
	for _, l := range r.Body {
		if !l.Negated {
			for _, t := range l.Atom.Args {
				if t.Var != "" && t.Var != Anon {
					bound[t.Var] = true
				}
			}
		}
	}
	unbound := func(t Term, where string) error {
		if t.Var == Anon {
			return &Error{Code: CodeUnboundVariable, Rule: r.Name, Var: t.Var, Message: fmt.Sprintf(
				"the anonymous variable _ in %s of %s is never bound; name the variable and bind it in a positive body atom",
				where, ruleLabel(r.Name))}
		}
		return &Error{Code: CodeUnboundVariable, Rule: r.Name, Var: t.Var, Message: fmt.Sprintf(
			"variable %s in %s of %s is bound by no positive body atom; add a positive body atom that binds %s, or use a constant",
			t.Var, where, ruleLabel(r.Name), t.Var)}
	}
	for _, t := range r.Head.Args {
		if t.Var != "" && !bound[t.Var] {
			return unbound(t, "the head")
		}
	}
	for _, l := range r.Body {
		if l.Negated {
			for _, t := range l.Atom.Args {
				if t.Var != "" && !bound[t.Var] {
					return unbound(t, "the negated literal not "+l.Atom.Pred)
				}
			}
		}
	}
	return nil
}

// strat is one stratum: a strongly connected component of the predicate
// dependency graph, with the rules whose head is in it.
type strat struct {
	preds     []uint32 // sorted by name
	rules     []*ruleRec
	recursive bool  // some rule reads a predicate of this stratum
	inputs    []int // strata read by the rules, sorted, excluding this one
}

// stratification is the result of stratify. It is never written once
// made: growStrata makes a new one, sharing its tables (ptab.go).
//
// Its strata are in evaluation order: those computeStrata made (ncomp,
// in the order of the package documentation), then those growStrata
// added, one for each predicate that came with facts alone since (nothing
// reads them and they read nothing, so any place is an evaluation order).
// order gives the order a fresh computation would (DL-0481), for what
// lists or writes them; indices elsewhere are these.
type stratification struct {
	strata  ptab[*strat]
	stratOf ptab[int] // by pred id; -1 for predicates the program does not use
	ncomp   int       // the strata computeStrata made
	// upto[k] is the greatest of the smallest predicate names of the
	// computed strata 0..k: order finds where a grown one goes by binary
	// search.
	upto  []string
	ruled []int // the strata that have rules, in order
	// id numbers the stratification; base is the id of the one growStrata
	// grew it from (incr_dirty.go maps a model of base onto it; an id, so
	// that a chain of grown stratifications keeps none of its predecessors
	// alive). readers holds, by predicate, the heads of the rules that
	// read it: what a change of it reaches.
	id, base uint64
	readers  map[uint32][]uint32
}

// of returns the stratum of pred, -1 for a predicate not in use.
func (st *stratification) of(pred uint32) int {
	if int(pred) >= st.stratOf.len() {
		return -1
	}
	return st.stratOf.at(int(pred))
}

// depEdge is "head depends on body" through one rule.
type depEdge struct {
	to   uint32
	neg  bool
	rule *ruleRec
}

// Check runs the checks Eval runs before evaluating: today stratification
// (the per-rule checks already ran in AddRule).
func (p *Program) Check() error {
	_, err := p.stratify()
	return err
}

// strataComputed counts computeStrata's runs, for the tests that hold a
// program given only facts to extending its strata instead.
var strataComputed atomic.Int64

// stratCache is a stratification with what it was computed from: the
// rules, and the predicates in use (which only ever grow).
type stratCache struct {
	rules []*ruleRec
	npred int
	used  int
	st    *stratification
}

// stratify returns the strata in evaluation order or reports a cycle
// through negation. The result is cached until the rules or the set of
// predicates in use change, and extended (growStrata) when only the
// predicates did; it is never written.
func (p *Program) stratify() (*stratification, error) {
	used := p.uses.len()
	c := p.strat
	if c != nil && slices.Equal(c.rules, p.rules) {
		if c.npred == p.npred() && c.used == used {
			return c.st, nil
		}
		// Only facts came: new predicates are strata of their own.
		st := p.growStrata(c.st, c.used)
		p.strat = &stratCache{rules: c.rules, npred: p.npred(), used: used, st: st}
		return st, nil
	}
	st, err := p.computeStrata()
	if err == nil {
		p.strat = &stratCache{rules: slices.Clone(p.rules), npred: p.npred(), used: used, st: st}
	}
	return st, err
}

// computeStrata computes the strata or reports a cycle through negation.
func (p *Program) computeStrata() (*stratification, error) {
	strataComputed.Add(1)
	names := p.preds.snapshot().strings()
	n := p.npred()
	deps := make([][]depEdge, n)
	for _, r := range p.rules {
		for _, a := range r.pos {
			deps[r.head.pred] = append(deps[r.head.pred], depEdge{a.pred, false, r})
		}
		for _, a := range r.neg {
			deps[r.head.pred] = append(deps[r.head.pred], depEdge{a.pred, true, r})
		}
	}
	for i := range deps {
		slices.SortFunc(deps[i], func(a, b depEdge) int { return strings.Compare(names[a.to], names[b.to]) })
	}
	comp := tarjan(n, func(v uint32) bool { return p.arityOf(v) >= 0 }, deps)
	if err := negativeCycle(names, deps, comp); err != nil {
		return nil, err
	}
	return buildStrata(p, names, deps, comp), nil
}

// tarjan labels every used node with its strongly connected component.
// Unused nodes get -1. It is iterative, so deep graphs cannot overflow.
func tarjan(n int, used func(uint32) bool, deps [][]depEdge) []int {
	index := make([]int, n)
	low := make([]int, n)
	comp := make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i], comp[i] = -1, -1
	}
	var stack []uint32
	type frame struct {
		v uint32
		e int
	}
	next, ncomp := 0, 0
	for root := range n {
		if !used(uint32(root)) || index[root] >= 0 {
			continue
		}
		call := []frame{{uint32(root), 0}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, uint32(root))
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			if f.e < len(deps[f.v]) {
				w := deps[f.v][f.e].to
				f.e++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{w, 0})
				} else if onStack[w] {
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			call = call[:len(call)-1]
			if len(call) > 0 {
				u := call[len(call)-1].v
				low[u] = min(low[u], low[v])
			}
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = ncomp
					if w == v {
						break
					}
				}
				ncomp++
			}
		}
	}
	return comp
}

// negativeCycle reports a rule.unstratifiable error for the smallest (by
// head name, negated predicate name, rule name) negative edge inside a
// component, with the shortest cycle through it.
func negativeCycle(names []string, deps [][]depEdge, comp []int) error {
	var best *depEdge
	var bestHead uint32
	for h, es := range deps {
		for i := range es {
			e := &es[i]
			if !e.neg || comp[e.to] != comp[h] {
				continue
			}
			if best == nil || cmp.Or(strings.Compare(names[h], names[bestHead]),
				strings.Compare(names[e.to], names[best.to]),
				strings.Compare(e.rule.rule.Name, best.rule.rule.Name)) < 0 {
				best, bestHead = e, uint32(h)
			}
		}
	}
	if best == nil {
		return nil
	}
	// Shortest path best.to → … → bestHead inside the component.
	prev := map[uint32]uint32{best.to: best.to}
	queue := []uint32{best.to}
	for len(queue) > 0 && !hasKey(prev, bestHead) {
		v := queue[0]
		queue = queue[1:]
		for _, e := range deps[v] {
			if comp[e.to] == comp[v] && !hasKey(prev, e.to) {
				prev[e.to] = v
				queue = append(queue, e.to)
			}
		}
	}
	var back []uint32
	for v := bestHead; ; v = prev[v] {
		back = append(back, v)
		if v == best.to {
			break
		}
	}
	// cycle: head, best.to, …, (predecessor of head); back is head…best.to reversed.
	cycle := []string{names[bestHead]}
	if best.to != bestHead {
		for i := len(back) - 1; i >= 1; i-- {
			cycle = append(cycle, names[back[i]])
		}
	}
	text := strings.Join(append(slices.Clone(cycle), cycle[0]), " -> ")
	start := 0
	for i, c := range cycle {
		if c < cycle[start] {
			start = i
		}
	}
	rotated := append(slices.Clone(cycle[start:]), cycle[:start]...)
	return &Error{Code: CodeUnstratifiable, Rule: best.rule.rule.Name, Pred: names[bestHead], Cycle: rotated,
		Message: fmt.Sprintf("%s negates %s, but %s depends on itself through it (%s); remove the negation or break the cycle",
			ruleLabel(best.rule.rule.Name), names[best.to], names[bestHead], text)}
}

func hasKey(m map[uint32]uint32, k uint32) bool { _, ok := m[k]; return ok }

// compHeap orders components by their smallest predicate name.
type compHeap struct {
	ids  []int
	name []string
}

func (h *compHeap) Len() int           { return len(h.ids) }
func (h *compHeap) Less(i, j int) bool { return h.name[h.ids[i]] < h.name[h.ids[j]] }
func (h *compHeap) Swap(i, j int)      { h.ids[i], h.ids[j] = h.ids[j], h.ids[i] }
func (h *compHeap) Push(x any)         { h.ids = append(h.ids, x.(int)) }
func (h *compHeap) Pop() any {
	x := h.ids[len(h.ids)-1]
	h.ids = h.ids[:len(h.ids)-1]
	return x
}

// buildStrata orders the components topologically (inputs first, ties by
// smallest predicate name) and attaches the rules.
func buildStrata(p *Program, names []string, deps [][]depEdge, comp []int) *stratification {
	ncomp := 0
	for _, c := range comp {
		ncomp = max(ncomp, c+1)
	}
	members := make([][]uint32, ncomp)
	for v, c := range comp {
		if c >= 0 {
			members[c] = append(members[c], uint32(v))
		}
	}
	minName := make([]string, ncomp)
	indeg := make([]int, ncomp)
	users := make([][]int, ncomp) // component → components that read it
	for c, ms := range members {
		slices.SortFunc(ms, func(a, b uint32) int { return strings.Compare(names[a], names[b]) })
		minName[c] = names[ms[0]]
		seen := map[int]bool{}
		for _, v := range ms {
			for _, e := range deps[v] {
				if d := comp[e.to]; d != c && !seen[d] {
					seen[d] = true
					indeg[c]++
					users[d] = append(users[d], c)
				}
			}
		}
	}
	h := &compHeap{name: minName}
	for c := range ncomp {
		if indeg[c] == 0 {
			h.ids = append(h.ids, c)
		}
	}
	heap.Init(h)
	order := make([]int, ncomp) // component → stratum index
	upto := make([]string, 0, ncomp)
	strata := make([]*strat, 0, ncomp)
	all := make([]strat, ncomp)
	for h.Len() > 0 {
		c := heap.Pop(h).(int)
		order[c] = len(strata)
		s := &all[len(strata)]
		s.preds = members[c]
		strata = append(strata, s)
		upto = append(upto, max(minName[c], lastOr(upto, "")))
		for _, u := range users[c] {
			if indeg[u]--; indeg[u] == 0 {
				heap.Push(h, u)
			}
		}
	}
	stratOf := make([]int, len(comp))
	for v, c := range comp {
		stratOf[v] = -1
		if c >= 0 {
			stratOf[v] = order[c]
		}
	}
	st := &stratification{ncomp: ncomp, upto: upto}
	st.ruled = attachRules(p.rules, strata, stratOf)
	st.readers, st.id = readersOf(p.rules), versionClock.Add(1)
	st.strata, st.stratOf = ptabOf(strata, st.id), ptabOf(stratOf, st.id)
	return st
}

// attachRules gives each stratum the rules whose head it holds, marks it
// recursive when one reads its own stratum, and notes the strata it reads
// (sorted); it returns the strata that hold rules, in order. It is apart
// from the ordering of buildStrata because it needs every stratum placed.
func attachRules(rules []*ruleRec, strata []*strat, stratOf []int) []int {
	for _, r := range rules {
		s := strata[stratOf[r.head.pred]]
		s.rules = append(s.rules, r)
		for _, a := range append(slices.Clone(r.pos), r.neg...) {
			if d := stratOf[a.pred]; d == stratOf[r.head.pred] {
				s.recursive = true
			} else if !slices.Contains(s.inputs, d) {
				s.inputs = append(s.inputs, d)
			}
		}
	}
	var ruled []int
	for i, s := range strata {
		slices.Sort(s.inputs)
		if len(s.rules) > 0 {
			ruled = append(ruled, i)
		}
	}
	return ruled
}

// readersOf maps each predicate a rule reads to the heads of the rules
// that read it.
func readersOf(rules []*ruleRec) map[uint32][]uint32 {
	out := map[uint32][]uint32{}
	for _, r := range rules {
		for _, lits := range [][]catom{r.pos, r.neg} {
			for _, a := range lits {
				if !slices.Contains(out[a.pred], r.head.pred) {
					out[a.pred] = append(out[a.pred], r.head.pred)
				}
			}
		}
	}
	return out
}

// lastOr returns the last of ss, or or when there is none.
func lastOr(ss []string, or string) string {
	if len(ss) == 0 {
		return or
	}
	return ss[len(ss)-1]
}
