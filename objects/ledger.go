// This file holds the decision ledger objects: decisions, attacks between
// them, standing revisions of stored claims and ratify carriage. Only a
// decision may carry provenance; the others draw their authority from the
// decision they name.

package objects

// Decision records one baseline decision (author.record_decision):
// {"id","provenance"?,"rationale"?,"type":"decision"}.
type Decision struct {
	Ident      string      // JSON "id": the decision id
	Rationale  string      // optional free text
	Provenance *Provenance // optional
}

// Type returns TypeDecision.
func (*Decision) Type() Type { return TypeDecision }

// Validate checks every field of x.
func (x *Decision) Validate() error {
	c := checker{typ: TypeDecision}
	c.id("id", x.Ident)
	if x.Provenance != nil {
		x.Provenance.checkPresent(&c)
	}
	c.text("rationale", x.Rationale, false)
	return c.err()
}

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *Decision) AppendCanonical(dst []byte) ([]byte, error) {
	if err := x.Validate(); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"id":`)
	e.str(x.Ident)
	if x.Provenance != nil {
		e.raw(`,"provenance":`)
		e.prov(x.Provenance)
	}
	if x.Rationale != "" {
		e.raw(`,"rationale":`)
		e.str(x.Rationale)
	}
	e.raw(`,"type":"decision"}`)
	return e.done(dst)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *Decision) ID() (ID, error) { return idOf(x) }

// Attack records that one decision attacks another with respect to a claim
// (author.defeat): {"attacker","claim","target","type":"attack"}. The target
// is out while any attacker is in.
type Attack struct {
	Attacker string // the attacking decision id
	Target   string // the attacked decision id
	Claim    ID     // the object the attack is about
}

// Type returns TypeAttack.
func (*Attack) Type() Type { return TypeAttack }

// Validate checks every field of x.
func (x *Attack) Validate() error {
	c := checker{typ: TypeAttack}
	c.id("attacker", x.Attacker)
	c.objectID("claim", x.Claim)
	c.id("target", x.Target)
	return c.err()
}

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *Attack) AppendCanonical(dst []byte) ([]byte, error) {
	if err := x.Validate(); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"attacker":`)
	e.str(x.Attacker)
	e.raw(`,"claim":`)
	e.objectID(x.Claim)
	e.raw(`,"target":`)
	e.str(x.Target)
	e.raw(`,"type":"attack"}`)
	return e.done(dst)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *Attack) ID() (ID, error) { return idOf(x) }

// StandingValue is the standing a revision gives a claim.
type StandingValue string

// The standing values.
const (
	StandingProvisional StandingValue = "provisional"
	StandingRatified    StandingValue = "ratified"
	StandingDefeated    StandingValue = "defeated"
)

// validStanding reports whether s is a standing value.
func validStanding(s StandingValue) bool {
	return s == StandingProvisional || s == StandingRatified || s == StandingDefeated
}

// Standing is a standing revision of a stored claim (author.set_standing,
// author.defeat): {"claim","decision","standing","type":"standing"}. The
// claim keeps its identity; the revision is a new object naming it.
type Standing struct {
	Claim    ID            // the revised claim
	Standing StandingValue // provisional, ratified or defeated
	Decision string        // the decision id that rules the revision
}

// Type returns TypeStanding.
func (*Standing) Type() Type { return TypeStanding }

// Revises returns the ID of the claim this revision revises; the store
// files the revision under it.
func (x *Standing) Revises() ID { return x.Claim }

// Validate checks every field of x.
func (x *Standing) Validate() error {
	c := checker{typ: TypeStanding}
	c.objectID("claim", x.Claim)
	c.id("decision", x.Decision)
	c.enum("standing", string(x.Standing), validStanding(x.Standing), "provisional, ratified, defeated")
	return c.err()
}

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *Standing) AppendCanonical(dst []byte) ([]byte, error) {
	if err := x.Validate(); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"claim":`)
	e.objectID(x.Claim)
	e.raw(`,"decision":`)
	e.str(x.Decision)
	e.raw(`,"standing":`)
	e.str(string(x.Standing))
	e.raw(`,"type":"standing"}`)
	return e.done(dst)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *Standing) ID() (ID, error) { return idOf(x) }

// Ratify is ratify carriage: the claims a decision ratified
// (author.materialize with a decision): {"claims":[…],"decision",
// "type":"ratify"}. Claims is a non-empty set, encoded sorted without
// repeats.
type Ratify struct {
	Decision string // the ratifying decision id
	Claims   []ID   // the ratified objects, as a set
}

// Type returns TypeRatify.
func (*Ratify) Type() Type { return TypeRatify }

// Validate checks every field of x.
func (x *Ratify) Validate() error {
	c := checker{typ: TypeRatify}
	if len(x.Claims) == 0 {
		c.add("claims", CodeRequired, "claims is required: ratify carriage names at least one claim")
	}
	for i, id := range x.Claims {
		if id.IsZero() {
			c.objectID(indexPath("claims", i), id)
		}
	}
	c.id("decision", x.Decision)
	return c.err()
}

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *Ratify) AppendCanonical(dst []byte) ([]byte, error) {
	if err := x.Validate(); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"claims":`)
	e.idSet(x.Claims)
	e.raw(`,"decision":`)
	e.str(x.Decision)
	e.raw(`,"type":"ratify"}`)
	return e.done(dst)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *Ratify) ID() (ID, error) { return idOf(x) }
