// This file reports the program's strata and dependencies, for callers that
// want to know what a change touches, and the model's evaluation figures.

package datalog

import (
	"slices"
	"strings"
)

// Stratum describes one stratum: a strongly connected component of the
// predicate dependency graph. Strata are listed in evaluation order (every
// stratum after those it reads; ties by smallest predicate name).
type Stratum struct {
	Preds     []string // the predicates it defines, sorted
	Rules     []string // the names of the rules whose head is one of them, sorted
	Reads     []string // predicates of earlier strata its rules read, sorted
	Negates   []string // the subset of Reads read under negation, sorted
	Recursive bool     // some rule reads a predicate of this stratum
}

// Strata returns the strata in evaluation order, or the stratification
// error.
func (p *Program) Strata() ([]Stratum, error) {
	st, err := p.stratify()
	if err != nil {
		return nil, err
	}
	list := p.preds.snapshot()
	names := list.strings()
	out := make([]Stratum, 0, st.strata.len())
	for _, i := range st.order(list) {
		s := st.strata.at(i)
		o := Stratum{Preds: []string{}, Rules: []string{}, Reads: []string{}, Negates: []string{}, Recursive: s.recursive}
		for _, pred := range s.preds {
			o.Preds = append(o.Preds, names[pred])
		}
		for _, r := range s.rules {
			o.Rules = append(o.Rules, r.rule.Name)
			for _, a := range r.pos {
				if st.of(a.pred) != i {
					o.Reads = append(o.Reads, names[a.pred])
				}
			}
			for _, a := range r.neg {
				if st.of(a.pred) != i {
					o.Reads = append(o.Reads, names[a.pred])
					o.Negates = append(o.Negates, names[a.pred])
				}
			}
		}
		for _, l := range []*[]string{&o.Preds, &o.Rules, &o.Reads, &o.Negates} {
			slices.SortFunc(*l, strings.Compare)
			*l = slices.Compact(*l)
		}
		out = append(out, o)
	}
	return out, nil
}

// Dependents returns the given predicates and every predicate whose atoms
// can change when their facts or rules change (those that read them,
// transitively), sorted. Unknown names are ignored.
//
// It marks predicates rule by rule until nothing changes rather than
// building a map of readers: a server calls it on every staged add, and
// the passes (as many as the longest chain of rules, over a few dozen
// rules) cost less than the maps did. The marks are a set of the marked
// alone, not a table by predicate: a workspace holds a predicate for
// every key staged into it.
func (p *Program) Dependents(preds ...string) []string {
	seen := map[uint32]bool{}
	for _, name := range preds {
		if id, ok := p.preds.lookup(name); ok && p.arityOf(id) >= 0 {
			seen[id] = true
		}
	}
	reads := func(lits []catom) bool {
		for _, a := range lits {
			if seen[a.pred] {
				return true
			}
		}
		return false
	}
	for changed := len(seen) > 0; changed; {
		changed = false
		for _, r := range p.rules {
			if h := r.head.pred; !seen[h] && (reads(r.pos) || reads(r.neg)) {
				seen[h] = true
				changed = true
			}
		}
	}
	names := p.preds.snapshot()
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, names.at(id))
	}
	slices.SortFunc(out, strings.Compare)
	return out
}

// Stats are figures of one evaluation.
type Stats struct {
	Strata    int // strata in the program
	Reused    int // strata taken over unchanged from the previous model
	Atoms     int // atoms in the model
	Truncated int // atoms whose support was cut by the bounds
	// Maintained counts the strata updated in place from the previous
	// model (incremental maintenance, sharing all they did not change);
	// the others (Strata - Reused - Maintained) were evaluated from scratch.
	Maintained int
}

// Stats returns the figures of the evaluation that built m.
func (m *Model) Stats() Stats {
	s := Stats{Strata: m.strata.len()}
	for i := range m.strata.len() {
		switch reused, kept := m.stratFlags(i); {
		case reused:
			s.Reused++
		case kept:
			s.Maintained++
		}
	}
	for _, rel := range m.rels.all() {
		if rel != nil {
			s.Atoms += rel.live
			s.Truncated += rel.ntaint
		}
	}
	return s
}
