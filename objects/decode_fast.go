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

import "bytes"

// plainByte marks the bytes that may appear inside a JSON string as they
// are: anything but a control character, '"' and '\\'.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// maxFastMembers is the most top-level members the fast path reads: the
// widest flat record (state, derivation) has seven.
const maxFastMembers = 8

// span is a member's string value, as offsets into the input.
type span struct {
	f          field
	start, end int
}

// notPlain are the members whose value is not a plain string: the fast path
// leaves them to the general decoder (provenance excepted, which it reads
// itself).
var notPlain = set(fProvenance, fOptions, fHead, fBody, fClaim, fClaims,
	fConsonants, fVowels, fShapes, fForbid, fWords, fAmount, fMinSyllables, fMaxSyllables)

// decodeFast decodes d.data if it is a canonical flat record, and reports
// false, with d and its shadow as they were, if not.
func (d *decoder) decodeFast() (Object, bool) {
	data := d.data
	if len(data) < 2 || data[0] != '{' {
		return nil, false
	}
	var members [maxFastMembers]span
	n := 0
	typeAt := -1
	var seen fieldSet
	var prev []byte
	i := 1
	for {
		key, j, ok := plainString(data, i)
		// Canonical members are in strictly increasing order: so no key
		// repeats, and a repeated one falls back to the general decoder.
		if !ok || j >= len(data) || data[j] != ':' || bytes.Compare(prev, key) >= 0 || n == maxFastMembers {
			return nil, false
		}
		prev = key
		f, ok := lookupField(key)
		if !ok {
			return nil, false
		}
		i = j + 1
		switch {
		case f == fProvenance && i < len(data) && data[i] == '{':
			if i, ok = d.provenanceFast(i); !ok {
				return nil, false
			}
		case notPlain.has(f):
			return nil, false
		default:
			var start int
			start = i + 1
			if _, i, ok = plainString(data, i); !ok {
				return nil, false
			}
			if f == fType {
				typeAt = n
			}
			members[n] = span{f, start, i - 1}
			n++
		}
		seen |= set(f)
		if i >= len(data) {
			return nil, false
		}
		if data[i] == '}' {
			i++
			break
		}
		if data[i] != ',' {
			return nil, false
		}
		i++
	}
	if i != len(data) || typeAt < 0 {
		return nil, false
	}
	m := members[typeAt]
	spec := lookupTypeBytes(data[m.start:m.end])
	if spec == nil || seen&^(spec.required|spec.optional|set(fType)) != 0 || spec.required&^seen != 0 {
		return nil, false
	}
	return d.buildFast(spec, members[:n], seen)
}

// buildFast fills the shadow from the members the fast path read, then
// builds and validates the object as decode does.
func (d *decoder) buildFast(spec *typeSpec, members []span, seen fieldSet) (Object, bool) {
	s := &d.shadow
	s.written = seen
	for _, m := range members {
		b := d.data[m.start:m.end]
		switch {
		case m.f == fType:
			continue
		case len(b) == 0 && spec.optional.has(m.f):
			return nil, false
		case m.f == fKind || m.f == fStanding:
			s.str[m.f] = enumWord(b)
		case internFields.has(m.f):
			s.str[m.f] = d.cache.intern(b)
		default:
			s.str[m.f] = string(b)
		}
	}
	d.typ = spec.typ
	if s.hasProv {
		s.sprov = d.cache.internProv(&s.prov)
	}
	o := spec.build(s)
	if o.Validate() != nil {
		return nil, false
	}
	return o, true
}

// plainString reads the string starting with '"' at data[i] if it has no
// escapes and no control characters, and returns its content and the index
// after its closing quote.
func plainString(data []byte, i int) ([]byte, int, bool) {
	if i >= len(data) || data[i] != '"' {
		return nil, 0, false
	}
	j := i + 1
	for j < len(data) && plainByte[data[j]] {
		j++
	}
	if j >= len(data) || data[j] != '"' {
		return nil, 0, false
	}
	return data[i+1 : j], j + 1, true
}

// The canonical provenances, up to their first string value.
const (
	proposedHead = `{"kind":"proposed","origin":`
	hypHead      = `{"hyp":`
	hypTail      = `,"kind":"hypothesis"}`
	citedHead    = `{"decisions":[`
	citedMiddle  = `],"kind":"cited","state":`
)

// provenanceFast reads the canonical provenance at data[i] into the shadow
// and returns the index after it.
func (d *decoder) provenanceFast(i int) (int, bool) {
	data := d.data
	p := &d.shadow.prov
	var v []byte
	var ok bool
	switch rest := data[i:]; {
	case bytes.HasPrefix(rest, []byte(proposedHead)):
		if v, i, ok = plainString(data, i+len(proposedHead)); !ok || i >= len(data) || data[i] != '}' {
			return 0, false
		}
		*p = Provenance{Kind: ProvenanceProposed, Origin: d.cache.intern(v)}
		i++
	case bytes.HasPrefix(rest, []byte(hypHead)):
		if v, i, ok = plainString(data, i+len(hypHead)); !ok || !bytes.HasPrefix(data[i:], []byte(hypTail)) {
			return 0, false
		}
		*p = Provenance{Kind: ProvenanceHypothesis, Hyp: d.cache.intern(v)}
		i += len(hypTail)
	case bytes.HasPrefix(rest, []byte(citedHead)):
		return d.citedFast(i + len(citedHead))
	default:
		return 0, false
	}
	d.shadow.hasProv = true
	return i, true
}

// citedFast reads a cited provenance from its first decision at data[i].
func (d *decoder) citedFast(i int) (int, bool) {
	data := d.data
	ss := d.strs[:0]
	for {
		v, j, ok := plainString(data, i)
		if !ok || j >= len(data) {
			return 0, false
		}
		ss = append(ss, d.cache.intern(v))
		i = j + 1
		if data[j] == ']' {
			break
		}
		if data[j] != ',' {
			return 0, false
		}
	}
	d.strs = ss[:0]
	i-- // back to the ']'
	if !bytes.HasPrefix(data[i:], []byte(citedMiddle)) {
		return 0, false
	}
	state, i, ok := plainString(data, i+len(citedMiddle))
	if !ok || i >= len(data) || data[i] != '}' {
		return 0, false
	}
	if !sortedUnique(ss) {
		ss = normalStrings(ss)
	}
	d.shadow.prov = Provenance{Kind: ProvenanceCited, Decisions: d.cache.internSet(ss), State: CitedState(enumWord(state))}
	d.shadow.hasProv = true
	return i + 1, true
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
