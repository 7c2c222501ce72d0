// The index of a scope's objects: every object by id and by kind, with the
// names each declares, gathered once so that lowering and checks read from
// one place.

package world

import (
	"sort"

	"github.com/deloreis/deloreis/objects"
)

// Entry is one object of the world and whether it is staged (not yet
// committed).
type Entry struct {
	ID     objects.ID
	Object objects.Object
	Staged bool
}

// index holds a scope's objects by kind.
type index struct {
	entries []Entry
	byID    map[objects.ID]*Entry

	entities   map[string]*objects.Entity // by id; the first declared wins
	events     map[string]*objects.Event
	decisions  map[string]*objects.Decision
	hypotheses map[string]*objects.Hypothesis
	questions  map[string]*objects.Question
	optionOf   map[string]string // option id → question id

	facts      []Entry // *objects.Fact
	relations  []Entry // *objects.Relation
	befores    []Entry // *objects.Before
	states     []Entry // *objects.State
	rules      []Entry // *objects.Rule
	functional []Entry // *objects.Functional
	inertial   []Entry // *objects.Inertial
	sameAs     []Entry // *objects.SameAs
	predSameAs []Entry // *objects.PredicateSameAs
	attacks    []Entry // *objects.Attack
	standing   []Entry // *objects.Standing
	ratify     []Entry // *objects.Ratify
}

// newIndex sorts entries by id (so that every result is independent of the
// order objects arrive in) and files them by kind. A duplicate id is kept
// once; a staged copy of a committed object counts as committed.
func newIndex(entries []Entry) *index {
	ix := &index{
		byID:       map[objects.ID]*Entry{},
		entities:   map[string]*objects.Entity{},
		events:     map[string]*objects.Event{},
		decisions:  map[string]*objects.Decision{},
		hypotheses: map[string]*objects.Hypothesis{},
		questions:  map[string]*objects.Question{},
		optionOf:   map[string]string{},
	}
	sorted := append([]Entry(nil), entries...)
	sort.SliceStable(sorted, func(i, j int) bool { return lessID(sorted[i].ID, sorted[j].ID) })
	for _, e := range sorted {
		if prev, ok := ix.byID[e.ID]; ok {
			prev.Staged = prev.Staged && e.Staged
			continue
		}
		ix.entries = append(ix.entries, e)
		ix.byID[e.ID] = &ix.entries[len(ix.entries)-1]
	}
	// Pointers into entries are stable now that it no longer grows.
	for i := range ix.entries {
		ix.byID[ix.entries[i].ID] = &ix.entries[i]
		ix.file(ix.entries[i])
	}
	return ix
}

func lessID(a, b objects.ID) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// file puts one entry under its kind.
func (ix *index) file(e Entry) {
	switch o := e.Object.(type) {
	case *objects.Entity:
		if _, ok := ix.entities[o.Ident]; !ok {
			ix.entities[o.Ident] = o
		}
	case *objects.Event:
		if _, ok := ix.events[o.Ident]; !ok {
			ix.events[o.Ident] = o
		}
	case *objects.Decision:
		if _, ok := ix.decisions[o.Ident]; !ok {
			ix.decisions[o.Ident] = o
		}
	case *objects.Hypothesis:
		ix.hypotheses[o.Ident] = o
	case *objects.Question:
		// A question grows by new versions as options are added; the one
		// with the most options is the current one.
		if q, ok := ix.questions[o.Ident]; !ok || len(o.Options) > len(q.Options) {
			ix.questions[o.Ident] = o
		}
		for _, opt := range o.Options {
			ix.optionOf[opt.Ident] = o.Ident
		}
	case *objects.Fact:
		ix.facts = append(ix.facts, e)
	case *objects.Relation:
		ix.relations = append(ix.relations, e)
	case *objects.Before:
		ix.befores = append(ix.befores, e)
	case *objects.State:
		ix.states = append(ix.states, e)
	case *objects.Rule:
		ix.rules = append(ix.rules, e)
	case *objects.Functional:
		ix.functional = append(ix.functional, e)
	case *objects.Inertial:
		ix.inertial = append(ix.inertial, e)
	case *objects.SameAs:
		ix.sameAs = append(ix.sameAs, e)
	case *objects.PredicateSameAs:
		ix.predSameAs = append(ix.predSameAs, e)
	case *objects.Attack:
		ix.attacks = append(ix.attacks, e)
	case *objects.Standing:
		ix.standing = append(ix.standing, e)
	case *objects.Ratify:
		ix.ratify = append(ix.ratify, e)
	}
}

// isEra reports whether id is a declared era entity.
func (ix *index) isEra(id string) bool {
	e, ok := ix.entities[id]
	return ok && e.Kind == objects.KindEra
}

// known reports whether id names an entity or an event in scope.
func (ix *index) known(id string) bool {
	_, ent := ix.entities[id]
	_, ev := ix.events[id]
	return ent || ev
}
