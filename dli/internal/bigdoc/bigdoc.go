// Package bigdoc makes large .dli documents for the parser's benchmarks
// and memory measurements: declarations of every common type in roughly
// the proportions of a written world.
package bigdoc

import (
	"strconv"

	"github.com/deloreis/deloreis/objects"
)

// Objects returns n declarations of mixed types: mostly entities, facts
// and relations, with events, orderings, states, questions, rules and
// ledger records among them.
func Objects(n int) []objects.Object {
	out := make([]objects.Object, 0, n)
	prov := objects.Proposed("session-7c9")
	cited := objects.Cited(objects.CitedRatified, "dl-0014", "dl-0046")
	var claim objects.ID
	for i := 0; i < n; i++ {
		out = append(out, one(i, prov, cited, &claim))
	}
	return out
}

// one returns declaration i of the mix.
func one(i int, prov, cited *objects.Provenance, claim *objects.ID) objects.Object {
	s := strconv.Itoa(i)
	switch i % 20 {
	case 0, 1, 2, 3:
		return &objects.Entity{Kind: objects.KindPerson, Ident: "person-" + s, Name: "Person " + s, Provenance: prov}
	case 4, 5, 6, 7, 8:
		return &objects.Fact{Entity: "person-" + s, Key: "tongue", Value: "low-saltish", Provenance: prov}
	case 9:
		return &objects.Fact{Entity: "person-" + s, Key: "epithet", Value: "warden of the weir " + s, Provenance: cited}
	case 10, 11, 12:
		return &objects.Relation{Relation: "serves", From: "person-" + s, To: "the-warden", Provenance: prov}
	case 13:
		return &objects.Event{Ident: "event-" + s, Era: "the-salt-years", Provenance: prov}
	case 14:
		return &objects.Before{Earlier: "event-" + s, Later: "event-" + strconv.Itoa(i+20), Provenance: prov}
	case 15:
		return &objects.State{Entity: "person-" + s, Key: "mood", Value: "grim", Since: "event-" + s, Provenance: prov}
	case 16:
		return &objects.Question{Ident: "q-" + s, Prompt: "Where did ward " + s + " stand?", Options: []objects.Option{
			{Ident: "q-" + s + "-a", Label: "The Tidewall"}, {Ident: "q-" + s + "-b", Label: "The Mill"}}}
	case 17:
		xy := []objects.Term{objects.Var("X"), objects.Var("Y")}
		return &objects.Rule{Name: "kin-" + s, Head: objects.Atom{Pred: "kin", Args: xy},
			Body: []objects.Literal{{Atom: objects.Atom{Pred: "serves", Args: xy}}}, Provenance: prov}
	case 18:
		return &objects.Decision{Ident: "dl-" + s, Rationale: "Because the tide rose.", Provenance: prov}
	}
	claim[0], claim[1], claim[2] = byte(i), byte(i>>8), byte(i>>16)
	return &objects.Standing{Claim: *claim, Standing: objects.StandingRatified, Decision: "dl-" + s}
}
