// This file holds Decode: the top-level field table shared by every type,
// the shadow record a decoded object is collected into, and the builders
// that turn a shadow into each concrete type.

package objects

import (
	"fmt"
	"math/bits"
)

// field is a top-level member name of some object type.
type field uint8

// The top-level member names of all types, in any order.
const (
	fType field = iota
	fAttacker
	fBody
	fClaim
	fClaims
	fDecision
	fEarlier
	fEntity
	fEra
	fFrom
	fHead
	fID
	fKey
	fKind
	fLater
	fLeft
	fName
	fOptions
	fPred
	fPrompt
	fProvenance
	fRationale
	fRelation
	fRight
	fSince
	fStanding
	fStatement
	fTarget
	fTo
	fUntil
	fValue
	// The expert lane's members (language.go).
	fAccount
	fAmount
	fAt
	fConsonants
	fDialect
	fForbid
	fForm
	fGloss
	fMaxSyllables
	fMinSyllables
	fShapes
	fSource
	fSourceDialect
	fVowels
	fWords
	nFields
)

// fieldNames spells each field as JSON does.
var fieldNames = [nFields]string{
	fType: "type", fAttacker: "attacker", fBody: "body", fClaim: "claim",
	fClaims: "claims", fDecision: "decision", fEarlier: "earlier",
	fEntity: "entity", fEra: "era", fFrom: "from", fHead: "head", fID: "id",
	fKey: "key", fKind: "kind", fLater: "later", fLeft: "left", fName: "name",
	fOptions: "options", fPred: "pred", fPrompt: "prompt",
	fProvenance: "provenance", fRationale: "rationale", fRelation: "relation",
	fRight: "right", fSince: "since", fStanding: "standing",
	fStatement: "statement", fTarget: "target", fTo: "to", fUntil: "until",
	fValue:   "value",
	fAccount: "account", fAmount: "amount", fAt: "at", fConsonants: "consonants",
	fDialect: "dialect", fForbid: "forbid", fForm: "form", fGloss: "gloss",
	fMaxSyllables: "max_syllables", fMinSyllables: "min_syllables",
	fShapes: "shapes", fSource: "source", fSourceDialect: "source_dialect",
	fVowels: "vowels", fWords: "words",
}

// fieldSet is a set of fields.
type fieldSet uint64

// set returns the set of fs.
func set(fs ...field) fieldSet {
	var s fieldSet
	for _, f := range fs {
		s |= 1 << f
	}
	return s
}

// has reports whether f is in s.
func (s fieldSet) has(f field) bool { return s&(1<<f) != 0 }

// shadow collects the members of a top-level object as they are decoded.
type shadow struct {
	str     [nFields]string // the string-valued members
	claim   ID
	claims  []ID
	prov    Provenance  // the provenance member as read
	hasProv bool        // whether there was one
	sprov   *Provenance // prov, shared with the decoder's other objects (intern.go)
	options []Option
	head    Atom
	body    []Literal
	lists   [nFields][]string // the string-array members (language.go)
	ints    [nFields]int64    // the integer members
	written fieldSet          // the members of str set
	general bool              // whether the general decoder wrote s
}

// reset clears what s holds. It clears only what was written: the whole
// shadow is a few kilobytes, and clearing it all for every object cost
// more than decoding a fact's members. The fast path writes only strings
// and the provenance.
func (s *shadow) reset() {
	for w := s.written; w != 0; w &= w - 1 {
		s.str[bits.TrailingZeros64(uint64(w))] = ""
	}
	s.written, s.hasProv = 0, false
	if s.sprov != nil {
		s.sprov = nil
	}
	if s.prov.Kind != "" { // the fast path writes a whole provenance or none
		s.prov = Provenance{}
	}
	if s.general {
		s.lists, s.ints = [nFields][]string{}, [nFields]int64{}
		s.claim, s.claims, s.prov = ID{}, nil, Provenance{}
		s.options, s.head, s.body = nil, Atom{}, nil
		s.general = false
	}
}

// Decode reads one object from its JSON text, which need not be canonical.
// It dispatches on "type" and returns the concrete pointer type (*Fact for
// "fact", …). It refuses input that is not one JSON object, trailing data,
// duplicate keys, unknown fields (top-level or nested), wrong JSON types
// (null included) and missing required fields, and then validates the
// object. Sets come back sorted and without repeats, and empty arrays as
// nil, so Decode(Canonical(o)) equals o once o is so normalized.
//
// The error is a *FieldError or an ErrorList. Syntax errors stop decoding
// at once; other problems are all reported together, and validation runs
// only when decoding found none.
func Decode(data []byte) (Object, error) {
	d := getDecoder(data)
	defer putDecoder(d)
	return d.decode()
}

// decode is Decode on a reset decoder: the fast path (decode_fast.go), or
// else the general decoder.
func (d *decoder) decode() (Object, error) {
	if o, ok := d.decodeFast(); ok {
		return o, nil
	}
	d.shadow.reset()
	return d.decodeGeneral()
}

// decodeGeneral decodes any input, and reports every error Decode reports.
func (d *decoder) decodeGeneral() (Object, error) {
	d.shadow.general = true
	spec, err := d.prescan()
	if err != nil {
		return nil, err
	}
	d.typ = spec.typ
	d.topObject(spec, &d.shadow)
	if d.syntax != nil {
		return nil, d.syntax
	}
	if len(d.errs) > 0 {
		return nil, d.errs.Err()
	}
	if d.shadow.hasProv {
		d.shadow.sprov = d.cache.internProv(&d.shadow.prov)
	}
	o := spec.build(&d.shadow)
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return o, nil
}

// prescan checks the syntax of the whole input, that it is one object with
// nothing after it, and finds the registry row of its "type".
func (d *decoder) prescan() (*typeSpec, error) {
	d.ws()
	if d.pos >= len(d.data) {
		d.syntaxErr(d.pos, "empty input")
		return nil, d.syntax
	}
	top := d.peek()
	typeAt := -1
	if top == '{' {
		if !d.topMembers(&typeAt) {
			return nil, d.syntax
		}
	} else if !d.value() {
		return nil, d.syntax
	}
	d.ws()
	if d.pos < len(d.data) {
		d.syntaxErr(d.pos, "trailing data after the object")
		return nil, d.syntax
	}
	switch {
	case top != '{':
		return nil, &FieldError{Code: CodeType, Message: "an object must be a json object, not " + describe(top)}
	case typeAt < 0:
		return nil, &FieldError{Field: "type", Code: CodeRequired, Message: "type is required"}
	}
	d.pos = typeAt
	if c := d.peek(); c != '"' {
		return nil, &FieldError{Field: "type", Code: CodeType, Message: "type must be a string, not " + describe(c)}
	}
	t, _ := d.str()
	d.pos = 0
	for i := range registry {
		if string(t) == string(registry[i].typ) {
			return &registry[i], nil
		}
	}
	return nil, &FieldError{Field: "type", Code: CodeInvalidEnum,
		Message: fmt.Sprintf("type %s is not a lore object type", quoteShort(string(t)))}
}

// topMembers checks the members of the top-level object and records where
// the value of its first "type" member starts.
func (d *decoder) topMembers(typeAt *int) bool {
	d.depth = 1
	defer func() { d.depth = 0 }()
	d.pos++
	d.ws()
	if d.peek() == '}' {
		d.pos++
		return true
	}
	for {
		k, ok := d.keyBytes()
		if !ok {
			return false
		}
		d.ws()
		if *typeAt < 0 && string(k) == "type" {
			*typeAt = d.pos
		}
		if !d.value() {
			return false
		}
		d.ws()
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return true
		default:
			return d.endOfMember()
		}
	}
}

// topObject decodes the members of the top-level object into s.
func (d *decoder) topObject(spec *typeSpec, s *shadow) {
	allowed := spec.required | spec.optional | set(fType)
	var seen fieldSet
	d.ws()
	d.members(func(key []byte) {
		f, ok := lookupField(key)
		switch {
		case !ok || !allowed.has(f):
			d.fail(string(key), CodeUnknown, "is not a field of "+string(spec.typ))
			d.value()
			return
		case seen.has(f):
			d.duplicate(fieldNames[f])
			return
		}
		seen |= set(f)
		s.written |= set(f)
		d.push(fieldNames[f])
		d.member(spec, f, s)
		d.pop()
	})
	for f := fType + 1; f < nFields; f++ {
		if spec.required.has(f) && !seen.has(f) {
			d.fail(fieldNames[f], CodeRequired, "is required")
		}
	}
}

// member decodes the value of top-level member f into s.
func (d *decoder) member(spec *typeSpec, f field, s *shadow) {
	switch f {
	case fType:
		d.value() // read by prescan
	case fProvenance:
		s.hasProv = d.provenance(&s.prov)
	case fOptions:
		s.options = d.options()
	case fHead:
		d.atom(&s.head)
	case fBody:
		s.body = d.body()
	case fClaim:
		s.claim = d.objectID()
	case fClaims:
		s.claims = d.objectIDs()
	case fConsonants, fVowels, fShapes, fForbid, fWords:
		s.lists[f] = d.stringArray()
		if s.lists[f] == nil && spec.optional.has(f) {
			d.fail("", CodeRequired, "is present but empty: omit an optional field instead")
		}
	case fAmount, fMinSyllables, fMaxSyllables:
		s.ints[f] = d.intValue()
	case fKind, fStanding:
		s.str[f], _ = d.enumValue()
	default:
		var v string
		var ok bool
		if internFields.has(f) {
			v, ok = d.internedValue()
		} else {
			v, ok = d.stringValue()
		}
		if ok && v == "" && spec.optional.has(f) {
			d.fail("", CodeRequired, "is present but empty: omit an optional field instead")
		}
		s.str[f] = v
	}
}

// internFields are the string members whose values repeat across objects
// (names of keys and relations, references to entities, events, dialects
// and decisions): they are decoded through the string cache (intern.go).
// Free text and the objects' own ids are not.
var internFields = set(fEntity, fKey, fRelation, fFrom, fTo, fEarlier, fLater, fEra, fPred,
	fLeft, fRight, fSince, fUntil, fDecision, fAttacker, fTarget, fDialect, fSourceDialect, fAccount)

// duplicate reports member name repeated in one object, and skips it.
func (d *decoder) duplicate(name string) {
	d.fail(name, CodeInvalidJSON, "appears twice: a key may appear once in an object")
	d.value()
}

// The builders, one per type, named in the registry.

func buildEntity(s *shadow) Object {
	return &Entity{Kind: EntityKind(s.str[fKind]), Ident: s.str[fID], Name: s.str[fName], Provenance: s.sprov}
}

func buildFact(s *shadow) Object {
	return &Fact{Entity: s.str[fEntity], Key: s.str[fKey], Value: s.str[fValue], Provenance: s.sprov}
}

func buildRelation(s *shadow) Object {
	return &Relation{Relation: s.str[fRelation], From: s.str[fFrom], To: s.str[fTo], Provenance: s.sprov}
}

func buildEvent(s *shadow) Object {
	return &Event{Ident: s.str[fID], Era: s.str[fEra], Provenance: s.sprov}
}

func buildBefore(s *shadow) Object {
	return &Before{Earlier: s.str[fEarlier], Later: s.str[fLater], Provenance: s.sprov}
}

func buildQuestion(s *shadow) Object {
	return &Question{Ident: s.str[fID], Prompt: s.str[fPrompt], Options: s.options}
}

func buildHypothesis(s *shadow) Object {
	return &Hypothesis{Ident: s.str[fID], Statement: s.str[fStatement]}
}

func buildRule(s *shadow) Object {
	return &Rule{Name: s.str[fName], Head: s.head, Body: s.body, Provenance: s.sprov}
}

func buildFunctional(s *shadow) Object {
	return &Functional{Pred: s.str[fPred], Provenance: s.sprov}
}

func buildInertial(s *shadow) Object {
	return &Inertial{Pred: s.str[fPred], Provenance: s.sprov}
}

func buildSameAs(s *shadow) Object {
	return &SameAs{Left: s.str[fLeft], Right: s.str[fRight], Provenance: s.sprov}
}

func buildPredicateSameAs(s *shadow) Object {
	return &PredicateSameAs{Left: s.str[fLeft], Right: s.str[fRight], Provenance: s.sprov}
}

func buildState(s *shadow) Object {
	return &State{Entity: s.str[fEntity], Key: s.str[fKey], Value: s.str[fValue],
		Since: s.str[fSince], Until: s.str[fUntil], Provenance: s.sprov}
}

func buildDecision(s *shadow) Object {
	x := &Decision{Ident: s.str[fID], Rationale: s.str[fRationale]}
	if s.hasProv {
		x.Provenance = s.sprov
	}
	return x
}

func buildAttack(s *shadow) Object {
	return &Attack{Attacker: s.str[fAttacker], Target: s.str[fTarget], Claim: s.claim}
}

func buildStanding(s *shadow) Object {
	return &Standing{Claim: s.claim, Standing: StandingValue(s.str[fStanding]), Decision: s.str[fDecision]}
}

func buildRatify(s *shadow) Object {
	return &Ratify{Decision: s.str[fDecision], Claims: s.claims}
}
