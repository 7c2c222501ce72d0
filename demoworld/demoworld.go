// Package demoworld is the small world bundled with deloreis: a few
// commits of Arthurian lore, a branch that explores a contested account and
// its merge back, so that a fresh machine has something real to log, show,
// push and clone. It is data and one function; it holds no logic the store
// does not.
package demoworld

import (
	"fmt"
	"time"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// Scope is the scope the demo lore lives in.
const Scope = "camelot"

// step is one commit of the demo: on which branch, what it says, what it adds.
type step struct {
	branch  string
	summary string
	op      string
	objects []objects.Object
}

func proposed() *objects.Provenance { return objects.Proposed("session-7c9") }

func ratified(d string) *objects.Provenance { return objects.Cited(objects.CitedRatified, d) }

func steps() []step {
	return []step{
		{lorestore.DefaultBranch, "materialize camelot: 3 entities", "materialize", []objects.Object{
			&objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: proposed()},
			&objects.Entity{Kind: objects.KindPlace, Ident: "logres", Name: "Logres", Provenance: proposed()},
			&objects.Entity{Kind: objects.KindEra, Ident: "the-grail-years", Name: "The Grail Years", Provenance: proposed()},
		}},
		{lorestore.DefaultBranch, "record decision canon-1", "record_decision", []objects.Object{
			&objects.Decision{Ident: "canon-1", Rationale: "Galahad's lineage follows the Vulgate cycle."},
		}},
		{lorestore.DefaultBranch, "materialize camelot: 2 facts, 1 relation", "materialize", []objects.Object{
			&objects.Fact{Entity: "galahad", Key: "father", Value: "lancelot", Provenance: ratified("canon-1")},
			&objects.Fact{Entity: "galahad", Key: "epithet", Value: "the pure knight", Provenance: proposed()},
			&objects.Relation{Relation: "dwells-in", From: "galahad", To: "logres", Provenance: proposed()},
			&objects.Entity{Kind: objects.KindPerson, Ident: "lancelot", Name: "Lancelot", Provenance: proposed()},
		}},
		{"sarras-account", "materialize camelot: 1 question, 2 events", "materialize", []objects.Object{
			&objects.Question{Ident: "where-the-grail-rests", Prompt: "Where does the Grail rest at last?", Options: []objects.Option{
				{Ident: "sarras", Label: "In Sarras, beyond the sea", Implies: &objects.GroundAtom{Pred: "rests-in", Args: []string{"grail", "sarras"}}},
				{Ident: "corbenic", Label: "In Corbenic, the castle of the Fisher King"},
			}},
			&objects.Event{Ident: "the-achievement", Era: "the-grail-years", Provenance: proposed()},
			&objects.Event{Ident: "the-passing", Era: "the-grail-years", Provenance: proposed()},
		}},
		{lorestore.DefaultBranch, "materialize camelot: 1 functional declaration", "materialize", []objects.Object{
			&objects.Functional{Pred: "father", Provenance: ratified("canon-1")},
		}},
		{"sarras-account", "materialize camelot: 1 before", "materialize", []objects.Object{
			&objects.Before{Earlier: "the-achievement", Later: "the-passing", Provenance: proposed()},
		}},
	}
}

// Build creates the demo store at dir (which must not exist or be empty):
// the steps above, committed one by one, then the branch merged into main.
// Commit times start at a fixed instant and advance a minute a step, so the
// history reads the same on every machine.
func Build(dir string) (*lorestore.Store, error) {
	clock := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	now := func() time.Time { clock = clock.Add(time.Minute); return clock }
	s, err := lorestore.Init(dir, lorestore.Options{Now: now, StoreID: "de1011e5de1011e5de1011e5de1011e5", Author: lorestore.Signature{Name: "Demo Keeper", Email: "keeper@deloreis.invalid"}})
	if err != nil {
		return nil, err
	}
	if err := build(s); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func build(s *lorestore.Store) error {
	for i, st := range steps() {
		if st.branch != lorestore.DefaultBranch {
			if _, err := s.Head(st.branch); err != nil {
				if _, err := s.CreateBranch(st.branch, lorestore.DefaultBranch); err != nil {
					return err
				}
			}
		}
		b := lorestore.NewBatch()
		for _, o := range st.objects {
			if _, err := b.Put(Scope, o); err != nil {
				return fmt.Errorf("demoworld: step %d: %w", i, err)
			}
		}
		m := lorestore.NewMessage(st.summary, st.op, Scope)
		if _, err := s.Commit(b, m, lorestore.CommitOptions{Branch: st.branch}); err != nil {
			return fmt.Errorf("demoworld: step %d: %w", i, err)
		}
	}
	_, err := s.Merge("sarras-account", lorestore.MergeOptions{})
	return err
}
