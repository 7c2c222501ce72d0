// This file holds one typical instance of every object type, shared by the
// golden, decode, fuzz and benchmark tests.

package objects

import "testing"

// mustID parses a hex object ID or fails the test.
func mustID(t testing.TB, s string) ID {
	t.Helper()
	id, err := ParseID(s)
	if err != nil {
		t.Fatalf("ParseID(%q): %v", s, err)
	}
	return id
}

// hexID returns an object ID whose 32 bytes are all b.
func hexID(b byte) ID {
	var id ID
	for i := range id {
		id[i] = b
	}
	return id
}

// examples returns one instance of every type, keyed by type. Each is
// already normalized, so it equals its own decoded canonical form.
func examples() map[Type]Object {
	proposed := Proposed("session-7c9")
	cited := Cited(CitedRatified, "dl-0014", "dl-0046")
	return map[Type]Object{
		TypeEntity:   &Entity{Kind: KindPerson, Ident: "mireth", Name: "Mireth of the Saltmarsh", Provenance: proposed},
		TypeFact:     &Fact{Entity: "mireth", Key: "tongue", Value: "low-saltish", Provenance: proposed},
		TypeRelation: &Relation{Relation: "serves", From: "mireth", To: "the-warden", Provenance: proposed},
		TypeEvent:    &Event{Ident: "the-drowning", Era: "the-salt-years", Provenance: proposed},
		TypeBefore:   &Before{Earlier: "the-drowning", Later: "the-reclaiming", Provenance: cited},
		TypeQuestion: &Question{Ident: "where-the-first-ward-stood", Prompt: "Where did the first ward stand?",
			Options: []Option{
				{Ident: "the-tidewall", Label: "The Tidewall",
					Implies: &GroundAtom{Pred: "stood_at", Args: []string{"first-ward", "the-tidewall"}}},
				{Ident: "the-old-mill", Label: "The \"Old\" Mill — by the weir"},
			}},
		TypeHypothesis: &Hypothesis{Ident: "coast-runs-north", Statement: "The coast runs north."},
		TypeRule: &Rule{Name: "kin-of-kin",
			Head: Atom{Pred: "kin", Args: []Term{Var("X"), Var("Z")}},
			Body: []Literal{
				{Atom: Atom{Pred: "kin", Args: []Term{Var("X"), Var("Y")}}},
				{Atom: Atom{Pred: "kin", Args: []Term{Var("Y"), Var("Z")}}},
				{Atom: Atom{Pred: "exiled", Args: []Term{Var("X"), Const("the salt court")}}, Negated: true},
			},
			Provenance: Hypothetical("coast-runs-north")},
		TypeFunctional:      &Functional{Pred: "tongue", Provenance: proposed},
		TypeInertial:        &Inertial{Pred: "holds-office", Provenance: cited},
		TypeSameAs:          &SameAs{Left: "mireth", Right: "the-saltwife", Provenance: proposed},
		TypePredicateSameAs: &PredicateSameAs{Left: "speaks", Right: "tongue", Provenance: proposed},
		TypeState: &State{Entity: "mireth", Key: "holds-office", Value: "warden of the weir",
			Since: "the-drowning", Provenance: proposed},
		TypeDecision: &Decision{Ident: "dl-0046", Rationale: "Materialized facts read certain.",
			Provenance: &Provenance{Kind: ProvenanceProposed, Origin: "session-7c9"}},
		TypeAttack:   &Attack{Attacker: "dl-0081", Target: "dl-0046", Claim: hexID(0xab)},
		TypeStanding: &Standing{Claim: hexID(0xab), Standing: StandingDefeated, Decision: "dl-0081"},
		TypeRatify:   &Ratify{Decision: "dl-0046", Claims: []ID{hexID(0x01), hexID(0xab)}},
		TypeDialect: &Dialect{Ident: "river-speech", Consonants: []string{"l", "m", "n", "r", "s", "th", "w"},
			Vowels: []string{"a", "e", "i", "o"}, Shapes: []string{"CV", "CVC", "V"}, Forbid: []string{"nr", "wl"},
			MinSyllables: 2, MaxSyllables: 4, Provenance: proposed},
		TypeWord:        &Word{Dialect: "river-speech", Form: "wen", Gloss: "water, running water", Provenance: proposed},
		TypeName:        &Name{Entity: "mireth", Dialect: "river-speech", Name: "Mirwen", Words: []string{"mir", "wen"}, Provenance: proposed},
		TypeDerivation:  &Derivation{Dialect: "river-speech", Form: "wen", SourceDialect: "old-salt", Source: "wenna", Provenance: proposed},
		TypeLedgerEntry: &LedgerEntry{Entity: "the-warden", Account: "weir-tolls", Amount: -120, At: "the-drowning", Provenance: cited},
	}
}

// typicalFact is the fact the benchmarks encode.
func typicalFact() *Fact {
	return &Fact{Entity: "mireth", Key: "tongue", Value: "low-saltish, with a river lilt",
		Provenance: Proposed("session-7c9")}
}
