// The descriptions of the object types' members, which Fields and Schema
// put in the JSON Schema: what an op whose params are an object's fields
// (author.add_*) tells a client of each one. A member means the same in
// every type unless typeDescs says otherwise for a type.

package objects

// idForm and textForm say what an id and a free-text member admit.
const (
	idForm   = "an id (a letter or digit, then letters, digits, - or _; at most 128 bytes)"
	textForm = "free text (at most 64 KiB, no control characters)"
)

// fieldDescs describes each member as most types use it.
var fieldDescs = [nFields]string{
	fType:          "the object's type",
	fAttacker:      "the id of the attacking decision",
	fBody:          "the body literals, in order, at least one: each {atom, negated}; every head variable and every variable of a negated literal must occur in a positive one",
	fClaim:         "the object id of the claim it is about",
	fClaims:        "the object ids of the objects ratified, as a set",
	fDecision:      "the id of the decision that rules it",
	fEarlier:       "the id of the event that comes first",
	fEntity:        "the id of the entity it is about",
	fEra:           "the id of the era entity the event falls in; it must name an era in scope",
	fFrom:          "the id of the first entity: the relation's subject",
	fHead:          "the atom the rule derives: {pred, args: [{var} or {const}]}",
	fID:            "its id: " + idForm,
	fKey:           "the key, a predicate name, " + idForm + "; the fact lowers to key(entity, value)",
	fKind:          "the entity's kind",
	fLater:         "the id of the event that comes after",
	fLeft:          "one of the two ids declared the same",
	fName:          "the name as written: " + textForm,
	fOptions:       "the question's options, in order: {id, label, implies?}",
	fPred:          "the predicate name: " + idForm,
	fPrompt:        "the question as asked: " + textForm,
	fProvenance:    "who or what stands behind it: {kind: proposed, origin}, {kind: hypothesis, hyp} (in a fork workspace) or {kind: cited, decisions, state}",
	fRationale:     "why the decision was taken: " + textForm + "; absent for none",
	fRelation:      "the relation name, a predicate, " + idForm + "; the claim lowers to relation(from, to)",
	fRight:         "the other of the two ids declared the same",
	fSince:         "the id of the event or instant the value holds from; absent for none (an inertial value without one is a continuity.inertia-unanchored finding)",
	fStanding:      "the standing the revision gives the claim",
	fStatement:     "the claim the hyp variable names, quoted in its rendering: " + textForm,
	fTarget:        "the id of the attacked decision",
	fTo:            "the id of the second entity: the relation's object",
	fUntil:         "the id of the event or instant the value holds until; absent while it stays open",
	fValue:         "the value: " + textForm + "; a compact token renders as a symbol, anything else as a quoted string",
	fAccount:       "the account, what is counted (gold, men, grain): " + idForm,
	fAmount:        "the change, a non-zero integer: positive credits the account, negative debits it; |amount| at most 2^53 - 1",
	fAt:            "the id of the event or instant the change happens at",
	fConsonants:    "the consonant graphemes words are spelled with (a grapheme may be several letters: th), as a set",
	fDialect:       "the id of the dialect it belongs to",
	fForbid:        "letter sequences no word may contain, as a set; absent for none",
	fForm:          "the word as spelled: " + textForm,
	fGloss:         "what the word means: " + textForm,
	fMaxSyllables:  "the most syllables a word may have: 1 to 16, at least min_syllables",
	fMinSyllables:  "the fewest syllables a word may have: 1 to 16",
	fShapes:        "the syllable shapes over C and V (CV, CVC), each with exactly one V and at most 8 long; at least one, as a set",
	fSource:        "the source word's form: " + textForm,
	fSourceDialect: "the id of the source word's dialect (the same dialect or another)",
	fVowels:        "the vowel graphemes words are spelled with, as a set",
	fWords:         "the word forms of the dialect the name is built from, in order; absent for none",
}

// typeDescs are the members whose meaning in a type differs from
// fieldDescs'.
var typeDescs = map[Type]map[field]string{
	TypeEntity: {
		fID:   "the entity's id, by which facts, relations and names refer to it: " + idForm,
		fKind: "person, place, thing or era (events enter by author.add_event)",
		fName: "how the entity is called: " + textForm,
	},
	TypeFact:  {fEntity: "the id of the entity the value is on"},
	TypeEvent: {fID: "the event's id, by which before orders and anchors refer to it: " + idForm},
	TypeState: {
		fEntity: "the id of the entity the value is on",
		fKey:    "the fluent key, a predicate name, " + idForm,
	},
	TypeQuestion:   {fID: "the question's id, unique in the world; the id a fork opens on: " + idForm},
	TypeHypothesis: {fID: "the hyp variable's id, which hypothesis provenance names: " + idForm},
	TypeRule: {
		fName: "the rule's name, unique in the document: " + idForm + "; one clause per name",
		fProvenance: "who or what stands behind the rule, carried into every fact it derives: {kind: proposed, origin}, " +
			"{kind: hypothesis, hyp} (in a fork workspace) or {kind: cited, decisions, state}",
	},
	TypeFunctional:      {fPred: "the predicate each subject holds at most one certain value of: " + idForm},
	TypeInertial:        {fPred: "the fluent predicate whose values persist until a later distinct value: " + idForm},
	TypeSameAs:          {fLeft: "one entity id", fRight: "the other entity id, said to name the same bearer"},
	TypePredicateSameAs: {fLeft: "one predicate name", fRight: "the other predicate name, said to name the same property"},
	TypeDecision: {
		fID:         "the decision's id, unique in the document: " + idForm,
		fProvenance: "the decision's own provenance: {kind: proposed, origin} or {kind: cited, decisions, state}; absent for none",
	},
	TypeAttack:   {fClaim: "the object id of the claim the attack is about"},
	TypeStanding: {fClaim: "the object id of the claim revised", fDecision: "the id of the decision that rules the revision"},
	TypeRatify:   {fDecision: "the id of the ratifying decision"},
	TypeDialect:  {fID: "the dialect's id, which words, names and derivations name: " + idForm},
	TypeWord:     {fDialect: "the id of the dialect the word belongs to"},
	TypeName: {
		fEntity:  "the id of the entity named",
		fDialect: "the id of the dialect the name is in; the naming oracle checks it there",
		fName:    "the name as spelled in the dialect: " + textForm,
	},
	TypeDerivation: {
		fDialect: "the id of the derived word's dialect",
		fForm:    "the derived word's form: " + textForm,
	},
	TypeLedgerEntry: {fEntity: "the id of the entity whose account it is"},
}

// fieldDesc is the description of member f of a t object.
func fieldDesc(t Type, f field) string {
	if d, ok := typeDescs[t][f]; ok {
		return d
	}
	return fieldDescs[f]
}
