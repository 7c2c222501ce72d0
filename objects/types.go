// This file holds the Object interface, the Type enumeration and the one
// registry from which the type list, the store sections and the decoder's
// per-type field tables are all derived.

package objects

import "bytes"

// Type is the value of an object's "type" member: its first-level
// discriminator.
type Type string

// The lore object types.
const (
	TypeEntity          Type = "entity"
	TypeFact            Type = "fact"
	TypeRelation        Type = "relation"
	TypeEvent           Type = "event"
	TypeBefore          Type = "before"
	TypeQuestion        Type = "question"
	TypeHypothesis      Type = "hypothesis"
	TypeRule            Type = "rule"
	TypeFunctional      Type = "functional"
	TypeInertial        Type = "inertial"
	TypeSameAs          Type = "same_as"
	TypePredicateSameAs Type = "predicate_same_as"
	TypeState           Type = "state"
	TypeDecision        Type = "decision"
	TypeAttack          Type = "attack"
	TypeStanding        Type = "standing"
	TypeRatify          Type = "ratify"
	TypeDialect         Type = "dialect"
	TypeWord            Type = "word"
	TypeName            Type = "name"
	TypeDerivation      Type = "derivation"
	TypeLedgerEntry     Type = "ledger_entry"
)

// The sections of a scope in which the store keeps objects (DESIGN.md
// section 3, "Trees"), as returned by Section.
const (
	SectionClaims    = "claims"
	SectionDecisions = "decisions"
	SectionAttacks   = "attacks"
	SectionStanding  = "standing"
)

// Object is a lore object: one immutable, content-addressed value.
type Object interface {
	// Type returns the object's "type" value.
	Type() Type
	// Validate returns nil, a *FieldError, or an ErrorList of every
	// problem found.
	Validate() error
	// AppendCanonical validates the object, then appends its RFC 8785
	// canonical JSON to dst. On error it returns dst unchanged.
	AppendCanonical(dst []byte) ([]byte, error)
	// ID returns the BLAKE3-256 of the canonical bytes.
	ID() (ID, error)
}

// typeSpec is one row of the registry.
type typeSpec struct {
	typ      Type
	section  string
	required fieldSet // top-level members that must be present, besides "type"
	optional fieldSet // top-level members that may be present
	build    func(*shadow) Object
}

// registry lists every type in the order Types reports them. Decode, Types
// and Section read it; nothing else lists the types.
var registry = [...]typeSpec{
	{TypeEntity, SectionClaims, set(fKind, fID, fName, fProvenance), 0, buildEntity},
	{TypeFact, SectionClaims, set(fEntity, fKey, fValue, fProvenance), 0, buildFact},
	{TypeRelation, SectionClaims, set(fRelation, fFrom, fTo, fProvenance), 0, buildRelation},
	{TypeEvent, SectionClaims, set(fID, fEra, fProvenance), 0, buildEvent},
	{TypeBefore, SectionClaims, set(fEarlier, fLater, fProvenance), 0, buildBefore},
	{TypeQuestion, SectionClaims, set(fID, fPrompt, fOptions), 0, buildQuestion},
	{TypeHypothesis, SectionClaims, set(fID, fStatement), 0, buildHypothesis},
	{TypeRule, SectionClaims, set(fName, fHead, fBody, fProvenance), 0, buildRule},
	{TypeFunctional, SectionClaims, set(fPred, fProvenance), 0, buildFunctional},
	{TypeInertial, SectionClaims, set(fPred, fProvenance), 0, buildInertial},
	{TypeSameAs, SectionClaims, set(fLeft, fRight, fProvenance), 0, buildSameAs},
	{TypePredicateSameAs, SectionClaims, set(fLeft, fRight, fProvenance), 0, buildPredicateSameAs},
	{TypeState, SectionClaims, set(fEntity, fKey, fValue, fProvenance), set(fSince, fUntil), buildState},
	{TypeDecision, SectionDecisions, set(fID), set(fRationale, fProvenance), buildDecision},
	{TypeAttack, SectionAttacks, set(fAttacker, fTarget, fClaim), 0, buildAttack},
	{TypeStanding, SectionStanding, set(fClaim, fStanding, fDecision), 0, buildStanding},
	{TypeRatify, SectionDecisions, set(fDecision, fClaims), 0, buildRatify},
	// The expert lane (language.go): claims, after the ledger types so that
	// the order of the types before them stays as it was.
	{TypeDialect, SectionClaims, set(fID, fConsonants, fVowels, fShapes, fMinSyllables, fMaxSyllables, fProvenance), set(fForbid), buildDialect},
	{TypeWord, SectionClaims, set(fDialect, fForm, fGloss, fProvenance), 0, buildWord},
	{TypeName, SectionClaims, set(fEntity, fDialect, fName, fProvenance), set(fWords), buildName},
	{TypeDerivation, SectionClaims, set(fDialect, fForm, fSource, fSourceDialect, fProvenance), 0, buildDerivation},
	{TypeLedgerEntry, SectionClaims, set(fEntity, fAccount, fAmount, fAt, fProvenance), 0, buildLedgerEntry},
}

// lookupType returns the registry row of t.
func lookupType(t Type) *typeSpec {
	for i := range registry {
		if registry[i].typ == t {
			return &registry[i]
		}
	}
	return nil
}

// Types returns every object type, in a fixed order: the claims (entity
// through state), then decision, attack, standing and ratify.
func Types() []Type {
	ts := make([]Type, len(registry))
	for i := range registry {
		ts[i] = registry[i].typ
	}
	return ts
}

// Section returns the section of a scope in which the store keeps objects of
// type t: SectionClaims for entity through state (questions and hypotheses
// included), SectionDecisions for decisions and ratify carriage,
// SectionAttacks for attacks and SectionStanding for standing revisions. It
// returns "" for an unknown type.
func Section(t Type) string {
	if s := lookupType(t); s != nil {
		return s.section
	}
	return ""
}

// Canonical returns the RFC 8785 canonical JSON of o, after validating it.
func Canonical(o Object) ([]byte, error) {
	bp := getBuf()
	defer putBuf(bp)
	b, err := o.AppendCanonical((*bp)[:0])
	*bp = b
	if err != nil {
		return nil, err
	}
	return bytes.Clone(b), nil
}
