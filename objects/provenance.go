// This file holds Provenance, the record of where a claim comes from, with
// its validation and canonical encoding.

package objects

import "slices"

// ProvenanceKind says which of the three provenance forms a Provenance is.
type ProvenanceKind string

// The provenance kinds.
const (
	// ProvenanceProposed records an origin and asserts no ruling.
	ProvenanceProposed ProvenanceKind = "proposed"
	// ProvenanceHypothesis scopes a claim to a fork-local hyp variable.
	ProvenanceHypothesis ProvenanceKind = "hypothesis"
	// ProvenanceCited names declared decisions and a state.
	ProvenanceCited ProvenanceKind = "cited"
)

// CitedState is the state a cited provenance claims for its decisions.
type CitedState string

// The cited states.
const (
	CitedProvisional CitedState = "provisional"
	CitedRatified    CitedState = "ratified"
)

// Provenance records where a claim comes from. Exactly the fields of its
// Kind are set:
//
//	{"kind":"proposed","origin":<id>}
//	{"kind":"hypothesis","hyp":<id>}
//	{"kind":"cited","decisions":[<id>…],"state":"provisional"|"ratified"}
//
// Decisions is a set: it must be non-empty, and it is encoded sorted by bytes
// without repeats, so its order and repeats do not change an object's ID.
//
// Objects hold their provenance by pointer, and one *Provenance is shared
// by every object that has the same (the decoders hand out one per distinct
// provenance, and an import passes one to all it builds): a million claims
// of one session hold one provenance, not a million copies (DL-0352). So a
// Provenance attached to an object is never written, nor is its Decisions'
// backing array: to change one, copy it (Clone) and change the copy. A nil
// provenance is a missing one, which Validate reports.
type Provenance struct {
	Kind      ProvenanceKind
	Origin    string     // proposed: the session or source that proposed it
	Hyp       string     // hypothesis: the hyp variable
	Decisions []string   // cited: the decision ids cited, as a set
	State     CitedState // cited: provisional or ratified
}

// Proposed returns a proposed provenance with the given origin.
func Proposed(origin string) *Provenance {
	return &Provenance{Kind: ProvenanceProposed, Origin: origin}
}

// Hypothetical returns a hypothesis provenance naming the hyp variable.
func Hypothetical(hyp string) *Provenance {
	return &Provenance{Kind: ProvenanceHypothesis, Hyp: hyp}
}

// Cited returns a cited provenance of the given state and decisions.
func Cited(state CitedState, decisions ...string) *Provenance {
	return &Provenance{Kind: ProvenanceCited, Decisions: decisions, State: state}
}

// Clone returns a copy of p that shares nothing with it, for a caller that
// means to change it; nil for nil.
func (p *Provenance) Clone() *Provenance {
	if p == nil {
		return nil
	}
	c := *p
	c.Decisions = slices.Clone(p.Decisions)
	return &c
}

// IsZero reports whether p is nil or the zero Provenance, either of which
// is no provenance.
func (p *Provenance) IsZero() bool {
	return p == nil || p.Kind == "" && p.Origin == "" && p.Hyp == "" && len(p.Decisions) == 0 && p.State == ""
}

// equal reports whether p and q have the same fields, Decisions in the same
// order.
func (p *Provenance) equal(q *Provenance) bool {
	return p.Kind == q.Kind && p.Origin == q.Origin && p.Hyp == q.Hyp && p.State == q.State &&
		slices.Equal(p.Decisions, q.Decisions)
}

// check validates p as the required "provenance" member of an object.
func (p *Provenance) check(c *checker) {
	if p.IsZero() {
		c.add("provenance", CodeRequired, "provenance is required")
		return
	}
	p.checkPresent(c)
}

// checkPresent validates p as a "provenance" member that is present.
func (p *Provenance) checkPresent(c *checker) {
	const (
		kind      = "provenance.kind"
		origin    = "provenance.origin"
		hyp       = "provenance.hyp"
		decisions = "provenance.decisions"
		state     = "provenance.state"
	)
	switch p.Kind {
	case ProvenanceProposed:
		c.id(origin, p.Origin)
	case ProvenanceHypothesis:
		c.id(hyp, p.Hyp)
	case ProvenanceCited:
		if len(p.Decisions) == 0 {
			c.add(decisions, CodeRequired, decisions+" is required: a cited provenance names at least one decision")
		}
		for i, d := range p.Decisions {
			c.idAt(d, func() string { return indexPath(decisions, i) })
		}
		c.enum(state, string(p.State), validCitedState(p.State), "provisional, ratified")
	default:
		c.enum(kind, string(p.Kind), false, "proposed, hypothesis, cited")
		return
	}
	// The message's words are joined only for a member out of place:
	// joining them for every valid provenance cost a sixth of Validate.
	of := func() string { return string(p.Kind) + " provenance" }
	if p.Origin != "" && p.Kind != ProvenanceProposed {
		c.unknown(origin, of())
	}
	if p.Hyp != "" && p.Kind != ProvenanceHypothesis {
		c.unknown(hyp, of())
	}
	if p.Kind != ProvenanceCited {
		if len(p.Decisions) > 0 {
			c.unknown(decisions, of())
		}
		if p.State != "" {
			c.unknown(state, of())
		}
	}
}

// validCitedState reports whether s is a cited state.
func validCitedState(s CitedState) bool {
	return s == CitedProvisional || s == CitedRatified
}

// prov appends a validated provenance.
func (e *enc) prov(p *Provenance) {
	switch p.Kind {
	case ProvenanceProposed:
		e.raw(`{"kind":"proposed","origin":`)
		e.str(p.Origin)
		e.raw(`}`)
	case ProvenanceHypothesis:
		e.raw(`{"hyp":`)
		e.str(p.Hyp)
		e.raw(`,"kind":"hypothesis"}`)
	case ProvenanceCited:
		e.raw(`{"decisions":`)
		e.strSet(p.Decisions)
		e.raw(`,"kind":"cited","state":`)
		e.str(string(p.State))
		e.raw(`}`)
	}
}

// ProvenanceOf returns the provenance of a claim-bearing object, and false
// for the objects that assert no claim (questions, hypotheses) or draw
// their authority from a decision (decisions, attacks, standing revisions,
// ratify carriage).
// The provenance returned is the object's own, shared and never written.
func ProvenanceOf(o Object) (*Provenance, bool) {
	switch x := o.(type) {
	case *Entity:
		return x.Provenance, true
	case *Fact:
		return x.Provenance, true
	case *Relation:
		return x.Provenance, true
	case *Event:
		return x.Provenance, true
	case *Before:
		return x.Provenance, true
	case *Rule:
		return x.Provenance, true
	case *Functional:
		return x.Provenance, true
	case *Inertial:
		return x.Provenance, true
	case *SameAs:
		return x.Provenance, true
	case *PredicateSameAs:
		return x.Provenance, true
	case *State:
		return x.Provenance, true
	case *Dialect:
		return x.Provenance, true
	case *Word:
		return x.Provenance, true
	case *Name:
		return x.Provenance, true
	case *Derivation:
		return x.Provenance, true
	case *LedgerEntry:
		return x.Provenance, true
	}
	return nil, false
}
