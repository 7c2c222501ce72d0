// This file holds Decode's fast path: one pass over input written the way
// the store writes it — canonical JSON of a flat record whose members are
// strings and a provenance — straight into the shadow, with no prescan, no
// path stack and no closures.
//
// The fast path never reports an error. It gives up on anything it does not
// recognize (whitespace, escapes, a member out of canonical order, a value
// that is not a plain string or a canonical provenance, a field of another
// type, an object that fails validation), and Decode then runs the general
// decoder over the input from the start. So every error Decode returns
// comes from the general decoder, as before; the fast path only has to
// accept nothing the general decoder refuses, and to build what it builds
// (DL-0370). decode_fast_test.go checks both.

package objects

import "unicode/utf8"

// The classes of a byte, as bits, for the fast path's string scan.
const (
	cPlain uint8 = 1 << iota // may appear in a JSON string as it is
	cText                    // printable ASCII: passes the free-text rule
	cID                      // allowed in an id (idClass)
)

// byteClass gives each byte its classes. A string whose bytes all have
// cText passes textProblem when it is not empty and not too long, and one
// whose bytes all have cID passes idProblem when, besides, its first byte
// is of idClass 1: the scan that finds the string's end so learns, for
// nearly nothing, whether validation would pass (DL-0371).
var byteClass = func() (t [256]uint8) {
	for c := 0x20; c < 256; c++ {
		if c != '"' && c != '\\' {
			t[c] |= cPlain
		}
		if c < 0x7f {
			t[c] |= cText
		}
		if c < utf8.RuneSelf && idClass[c] != 0 {
			t[c] |= cID
		}
	}
	return t
}()

// maxFastMembers is the most string members the fast path reads: the
// widest flat record, a state, has six besides its provenance.
const maxFastMembers = 8

// span is a string member's value, as offsets into the input, with the
// classes all its bytes share.
type span struct {
	f          field
	start, end int
	class      uint8
}

// isID reports whether the value passes the id rule, as idProblem would.
func (m span) isID(data []byte) bool {
	n := m.end - m.start
	return m.class&cID != 0 && n > 0 && n <= MaxIDLen && idClass[data[m.start]] == 1
}

// isText reports whether the value passes the free-text rule, as
// textProblem would for a required field.
func (m span) isText() bool {
	n := m.end - m.start
	return m.class&cText != 0 && n > 0 && n <= MaxTextLen
}

// notPlain are the members whose value is not a plain string: the fast path
// leaves them to the general decoder (provenance excepted, which it reads
// itself).
var notPlain = set(fProvenance, fOptions, fHead, fBody, fClaim, fClaims,
	fConsonants, fVowels, fShapes, fForbid, fWords, fAmount, fMinSyllables, fMaxSyllables)

// fieldRank is each field's place in the byte order of the names, which is
// the order of canonical members.
var fieldRank = func() (r [nFields]uint8) {
	for f, name := range fieldNames {
		for _, other := range fieldNames {
			if other < name {
				r[f]++
			}
		}
	}
	return r
}()

// fastObject is what the fast path reads of an object's members.
type fastObject struct {
	members [maxFastMembers]span
	n       int
	typeAt  int      // the index in members of "type"
	seen    fieldSet // every member, provenance included
	provOK  bool     // the provenance read passes validation
	own     int      // how many members get a string of their own
	shared  fieldSet // the members that do not: shared, or refFields less
}

// decodeFast decodes d.data if it is a canonical flat record, and reports
// false, with d and its shadow to be reset, if not.
func (d *decoder) decodeFast() (Object, bool) {
	var x fastObject
	x.shared = shared
	if !d.cache.refsLooked() {
		x.shared &^= refFields
	}
	if !d.scanFast(&x) {
		return nil, false
	}
	m := x.members[x.typeAt]
	spec := lookupTypeBytes(d.data[m.start:m.end])
	if spec == nil || x.seen&^(spec.required|spec.optional|set(fType)) != 0 || spec.required&^x.seen != 0 {
		return nil, false
	}
	return d.buildFast(spec, &x)
}

// scanFast reads the members of d.data into x, and reports false at the
// first thing that is not canonical or not flat.
func (d *decoder) scanFast(x *fastObject) bool {
	data := d.data
	if len(data) < 2 || data[0] != '{' {
		return false
	}
	x.typeAt = -1
	rank := -1
	i := 1
	for {
		ks, ke, _, j := plainString(data, i)
		if j < 0 || j >= len(data) || data[j] != ':' {
			return false
		}
		f, ok := lookupField(data[ks:ke])
		// Canonical members are in strictly increasing order: so no key
		// repeats, and a repeated one falls back to the general decoder.
		if !ok || int(fieldRank[f]) <= rank {
			return false
		}
		rank = int(fieldRank[f])
		i = j + 1
		switch {
		case f == fProvenance && i < len(data) && data[i] == '{':
			if i, x.provOK = d.provenanceFast(i); i < 0 {
				return false
			}
		case notPlain.has(f) || x.n == maxFastMembers:
			return false
		default:
			start, end, class, next := plainString(data, i)
			if next < 0 {
				return false
			}
			if f == fType {
				x.typeAt = x.n
			}
			if !x.shared.has(f) {
				x.own++
			}
			x.members[x.n] = span{f, start, end, class}
			x.n++
			i = next
		}
		x.seen |= set(f)
		if i >= len(data) {
			return false
		}
		if data[i] == '}' {
			return i+1 == len(data) && x.typeAt >= 0
		}
		if data[i] != ',' {
			return false
		}
		i++
	}
}

// buildFast fills the shadow from the members the fast path read, then
// builds and validates the object as decode does.
func (d *decoder) buildFast(spec *typeSpec, x *fastObject) (Object, bool) {
	s := &d.shadow
	s.written = x.seen
	members := x.members[:x.n]
	// The members that are neither interned nor enum words share one
	// allocation: an entity's id and name are one string, not two.
	var own string
	if x.own > 1 {
		own = string(d.ownBytes(members, x.shared))
	}
	for _, m := range members {
		b := d.data[m.start:m.end]
		switch {
		case m.f == fType:
			continue
		case len(b) == 0 && spec.optional.has(m.f):
			return nil, false
		case m.f == fKind || m.f == fStanding:
			s.str[m.f] = enumWord(b)
		case refFields.has(m.f) && x.shared.has(m.f):
			v, found := d.cache.internFound(b)
			d.cache.noteRef(found)
			s.str[m.f] = v
		case x.shared.has(m.f):
			s.str[m.f] = d.cache.intern(b)
		case x.own == 1:
			s.str[m.f] = string(b)
		default:
			s.str[m.f], own = own[:len(b)], own[len(b):]
		}
	}
	o := spec.build(s)
	if !(x.provOK && vouch(spec.typ, d.data, members, s.str[fKind])) && o.Validate() != nil {
		return nil, false
	}
	return o, true
}

// ownBytes gathers into d.scratch the values of members that get a string
// of their own (those not in shared), in order.
func (d *decoder) ownBytes(members []span, shared fieldSet) []byte {
	d.scratch = d.scratch[:0]
	for _, m := range members {
		if !shared.has(m.f) {
			d.scratch = append(d.scratch, d.data[m.start:m.end]...)
		}
	}
	return d.scratch
}

// shared are the string members whose values are not a string of their
// own: "type", enum words and interned values.
var shared = internFields | set(fType, fKind, fStanding)

// refFields are the interned members that name entities: at scale, too
// many for the cache (refTally).
var refFields = set(fEntity, fFrom, fTo)

// vouch reports whether the string members of an object of type t, with
// a valid provenance, pass its Validate, judged from the classes of their
// bytes (and kind, an entity's kind as decoded); false when it cannot
// tell, or for a type whose Validate checks more than each member alone.
// It follows the Validate methods of these types (claims.go);
// TestSpanClassesMatchRules and TestVouchEdges hold it to them (DL-0371).
func vouch(t Type, data []byte, members []span, kind string) bool {
	var texts fieldSet
	switch t {
	case TypeEntity:
		texts = set(fName)
	case TypeFact, TypeState:
		texts = set(fValue)
	case TypeRelation, TypeEvent, TypeBefore, TypeFunctional, TypeInertial, TypeSameAs, TypePredicateSameAs:
	default:
		return false
	}
	for _, m := range members {
		switch {
		case m.f == fType:
		case m.f == fKind:
			if !validEntityKind(EntityKind(kind)) {
				return false
			}
		case texts.has(m.f):
			if !m.isText() {
				return false
			}
		case !m.isID(data):
			return false
		}
	}
	return true
}

// plainString reads the string starting with '"' at data[i] if it has no
// escapes and no control characters. It returns the offsets of its
// content, the classes all its bytes share and the index after its closing
// quote, or next < 0 if there is no such string at i.
func plainString(data []byte, i int) (start, end int, class uint8, next int) {
	if i >= len(data) || data[i] != '"' {
		return 0, 0, 0, -1
	}
	class = 0xff
	j := i + 1
	for ; j < len(data); j++ {
		c := byteClass[data[j]]
		if c&cPlain == 0 {
			break
		}
		class &= c
	}
	if j >= len(data) || data[j] != '"' {
		return 0, 0, 0, -1
	}
	return i + 1, j, class, j + 1
}

// The canonical provenances, around their string values.
const (
	proposedHead = `{"kind":"proposed","origin":`
	hypHead      = `{"hyp":`
	hypTail      = `,"kind":"hypothesis"}`
	citedHead    = `{"decisions":[`
	citedMiddle  = `],"kind":"cited","state":`
)

// hasPrefix reports whether data[i:] starts with p.
func hasPrefix(data []byte, i int, p string) bool {
	return len(data)-i >= len(p) && string(data[i:i+len(p)]) == p
}

// provenanceFast reads the canonical provenance at data[i] into the shadow,
// and returns the index after it (or -1) and whether its values pass
// validation. A provenance read before comes from the cache, as it is.
func (d *decoder) provenanceFast(i int) (int, bool) {
	s := &d.shadow
	if r := d.cache.rawLookup(d.data, i); r != nil {
		s.sprov, s.hasProv = r.p, true
		return i + len(r.text), r.valid
	}
	end, valid := d.readProvenance(i)
	if end < 0 {
		return -1, false
	}
	s.sprov, s.hasProv = d.cache.internProv(&s.prov), true
	d.cache.rawStore(d.data[i:end], s.sprov, valid)
	return end, valid
}

// readProvenance parses the canonical provenance at data[i] into
// d.shadow.prov, and returns the index after it (or -1) and whether its
// values pass validation.
func (d *decoder) readProvenance(i int) (int, bool) {
	data := d.data
	p := &d.shadow.prov
	var m span
	switch {
	case hasPrefix(data, i, proposedHead):
		if m.start, m.end, m.class, i = plainString(data, i+len(proposedHead)); i < 0 || i >= len(data) || data[i] != '}' {
			return -1, false
		}
		*p = Provenance{Kind: ProvenanceProposed, Origin: d.cache.intern(data[m.start:m.end])}
		i++
	case hasPrefix(data, i, hypHead):
		if m.start, m.end, m.class, i = plainString(data, i+len(hypHead)); i < 0 || !hasPrefix(data, i, hypTail) {
			return -1, false
		}
		*p = Provenance{Kind: ProvenanceHypothesis, Hyp: d.cache.intern(data[m.start:m.end])}
		i += len(hypTail)
	case hasPrefix(data, i, citedHead):
		return d.citedFast(i + len(citedHead))
	default:
		return -1, false
	}
	return i, m.isID(data)
}

// citedFast reads a cited provenance from its first decision at data[i].
func (d *decoder) citedFast(i int) (int, bool) {
	data := d.data
	// The set is read into d.strs, whose length tells reset what to clear.
	d.strs = d.strs[:0]
	ok := true
	for {
		var m span
		m.start, m.end, m.class, i = plainString(data, i)
		if i < 0 || i >= len(data) {
			return -1, false
		}
		ok = ok && m.isID(data)
		d.strs = append(d.strs, d.cache.intern(data[m.start:m.end]))
		if data[i] == ']' {
			break
		}
		if data[i] != ',' {
			return -1, false
		}
		i++
	}
	ss := d.strs
	if !hasPrefix(data, i, citedMiddle) {
		return -1, false
	}
	start, end, _, i := plainString(data, i+len(citedMiddle))
	if i < 0 || i >= len(data) || data[i] != '}' {
		return -1, false
	}
	if !sortedUnique(ss) {
		ss = normalStrings(ss)
	}
	state := CitedState(enumWord(data[start:end]))
	d.shadow.prov = Provenance{Kind: ProvenanceCited, Decisions: d.cache.internSet(ss), State: state}
	return i + 1, ok && validCitedState(state)
}

// lookupTypeBytes returns the registry row of the type named t, or nil.
func lookupTypeBytes(t []byte) *typeSpec {
	for i := range registry {
		if string(t) == string(registry[i].typ) {
			return &registry[i]
		}
	}
	return nil
}

// lookupField returns the field named key. A switch, which the compiler
// turns into a search on length and bytes, costs a fraction of a map
// lookup's hashing; TestLookupField holds it to fieldNames.
func lookupField(key []byte) (field, bool) {
	switch string(key) {
	case "type":
		return fType, true
	case "attacker":
		return fAttacker, true
	case "body":
		return fBody, true
	case "claim":
		return fClaim, true
	case "claims":
		return fClaims, true
	case "decision":
		return fDecision, true
	case "earlier":
		return fEarlier, true
	case "entity":
		return fEntity, true
	case "era":
		return fEra, true
	case "from":
		return fFrom, true
	case "head":
		return fHead, true
	case "id":
		return fID, true
	case "key":
		return fKey, true
	case "kind":
		return fKind, true
	case "later":
		return fLater, true
	case "left":
		return fLeft, true
	case "name":
		return fName, true
	case "options":
		return fOptions, true
	case "pred":
		return fPred, true
	case "prompt":
		return fPrompt, true
	case "provenance":
		return fProvenance, true
	case "rationale":
		return fRationale, true
	case "relation":
		return fRelation, true
	case "right":
		return fRight, true
	case "since":
		return fSince, true
	case "standing":
		return fStanding, true
	case "statement":
		return fStatement, true
	case "target":
		return fTarget, true
	case "to":
		return fTo, true
	case "until":
		return fUntil, true
	case "value":
		return fValue, true
	case "account":
		return fAccount, true
	case "amount":
		return fAmount, true
	case "at":
		return fAt, true
	case "consonants":
		return fConsonants, true
	case "dialect":
		return fDialect, true
	case "forbid":
		return fForbid, true
	case "form":
		return fForm, true
	case "gloss":
		return fGloss, true
	case "max_syllables":
		return fMaxSyllables, true
	case "min_syllables":
		return fMinSyllables, true
	case "shapes":
		return fShapes, true
	case "source":
		return fSource, true
	case "source_dialect":
		return fSourceDialect, true
	case "vowels":
		return fVowels, true
	case "words":
		return fWords, true
	}
	return 0, false
}
