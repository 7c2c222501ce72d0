// This file holds the value readers of the decoder: strings, enums, object
// IDs and booleans, and the nested shapes — provenance, options and ground
// atoms, rule atoms, terms and body literals.

package objects

// members calls fn with each key of the object at d.pos; fn must consume the
// member's value. The input's syntax has been checked by prescan.
func (d *decoder) members(fn func(key []byte)) {
	d.pos++
	d.ws()
	if d.peek() == '}' {
		d.pos++
		return
	}
	for d.syntax == nil {
		key, ok := d.keyBytes()
		if !ok {
			return
		}
		d.ws()
		fn(key)
		d.ws()
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return
		default:
			d.endOfMember()
			return
		}
	}
}

// elements calls fn with the index of each element of the array at d.pos,
// with the path entered; fn must consume the element.
func (d *decoder) elements(fn func(i int)) {
	d.pos++
	d.ws()
	if d.peek() == ']' {
		d.pos++
		return
	}
	for i := 0; d.syntax == nil; i++ {
		d.ws()
		d.pushIndex(i)
		fn(i)
		d.pop()
		d.ws()
		switch d.peek() {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return
		default:
			d.endOfMember()
			return
		}
	}
}

// fields decodes the object at d.pos whose members are names (at most 8),
// calling read(i) with the path entered for each known member. It reports
// unknown members as not fields of "of", and repeated ones, and returns the
// set of members seen as bits.
func (d *decoder) fields(of string, names []string, read func(i int)) (seen uint8) {
	d.members(func(key []byte) {
		i := 0
		for i < len(names) && string(key) != names[i] {
			i++
		}
		switch {
		case i == len(names):
			d.fail(string(key), CodeUnknown, "is not a field of "+of)
			d.value()
		case seen&(1<<i) != 0:
			d.duplicate(names[i])
		default:
			seen |= 1 << i
			d.push(names[i])
			read(i)
			d.pop()
		}
	})
	return seen
}

// require reports each of names whose bit is in want but not in seen.
func (d *decoder) require(names []string, want, seen uint8) {
	for i, name := range names {
		if want&^seen&(1<<i) != 0 {
			d.fail(name, CodeRequired, "is required")
		}
	}
}

// is reports whether the value at d.pos starts with c; if not, it reports
// the wrong JSON type, wanting want, and skips the value.
func (d *decoder) is(c byte, want string) bool {
	d.ws()
	if d.peek() == c {
		return true
	}
	d.fail("", CodeType, "must be "+want+", not "+describe(d.peek()))
	d.value()
	return false
}

// stringValue reads a string value.
func (d *decoder) stringValue() (string, bool) {
	if !d.is('"', "a string") {
		return "", false
	}
	b, ok := d.str()
	return string(b), ok
}

// internedValue reads a string value that is likely to repeat across
// objects (intern.go).
func (d *decoder) internedValue() (string, bool) {
	if !d.is('"', "a string") {
		return "", false
	}
	b, ok := d.str()
	return d.cache.intern(b), ok
}

// enumValue reads a string value that is usually an enum word, without
// allocating for the known words.
func (d *decoder) enumValue() (string, bool) {
	if !d.is('"', "a string") {
		return "", false
	}
	b, ok := d.str()
	return enumWord(b), ok
}

// enumWord returns string(b), without allocating when b is a known enum
// word.
func enumWord(b []byte) string {
	for _, w := range enumWords {
		if string(b) == w {
			return w
		}
	}
	return string(b)
}

// enumWords are the enum values enumValue returns without allocating.
var enumWords = [...]string{"person", "place", "thing", "era", "proposed", "hypothesis", "cited",
	"provisional", "ratified", "defeated"}

// boolValue reads a boolean value.
func (d *decoder) boolValue() bool {
	d.ws()
	switch d.peek() {
	case 't':
		return d.literal("true")
	case 'f':
		d.literal("false")
		return false
	}
	d.fail("", CodeType, "must be a boolean, not "+describe(d.peek()))
	d.value()
	return false
}

// objectID reads an object ID written as 64 lowercase hex digits.
func (d *decoder) objectID() ID {
	if !d.is('"', "a string") {
		return ID{}
	}
	b, ok := d.str()
	if !ok {
		return ID{}
	}
	id, err := parseIDBytes(b)
	if err != nil {
		d.fail("", CodeInvalidID, "is not an object id: want 64 lowercase hex digits")
	}
	return id
}

// objectIDs reads a set of object IDs, returned sorted without repeats.
func (d *decoder) objectIDs() []ID {
	if !d.is('[', "an array") {
		return nil
	}
	var ids []ID
	d.elements(func(int) { ids = append(ids, d.objectID()) })
	if !sortedUniqueIDs(ids) {
		ids = normalIDs(ids)
	}
	return ids
}

// stringArray reads an array of strings in order.
func (d *decoder) stringArray() []string {
	if !d.is('[', "an array") {
		return nil
	}
	var ss []string
	d.elements(func(int) {
		v, _ := d.stringValue()
		ss = append(ss, v)
	})
	return ss
}

// decisionSet reads a provenance's decisions, sorted without repeats, as
// a set shared with the other objects that cite the same (intern.go).
func (d *decoder) decisionSet() []string {
	if !d.is('[', "an array") {
		return nil
	}
	ss := d.strs[:0]
	d.elements(func(int) {
		v, _ := d.internedValue()
		ss = append(ss, v)
	})
	d.strs = ss // its length tells putDecoder what to clear
	if !sortedUnique(ss) {
		ss = normalStrings(ss)
	}
	return d.cache.internSet(ss)
}

// provNames are the members of a provenance, by bit.
var provNames = []string{"kind", "origin", "hyp", "decisions", "state"}

// The members of a provenance, as bits of provNames.
const (
	pKind uint8 = 1 << iota
	pOrigin
	pHyp
	pDecisions
	pState
)

// provenance reads a provenance into p and reports whether the value was an
// object. Members that are not of the given kind are reported as unknown.
func (d *decoder) provenance(p *Provenance) bool {
	if !d.is('{', "an object") {
		return false
	}
	seen := d.fields("provenance", provNames, func(i int) {
		switch uint8(1) << i {
		case pKind:
			v, _ := d.enumValue()
			p.Kind = ProvenanceKind(v)
		case pOrigin:
			p.Origin, _ = d.internedValue()
		case pHyp:
			p.Hyp, _ = d.internedValue()
		case pDecisions:
			p.Decisions = d.decisionSet()
		case pState:
			v, _ := d.enumValue()
			p.State = CitedState(v)
		}
	})
	var want uint8
	switch p.Kind {
	case ProvenanceProposed:
		want = pOrigin
	case ProvenanceHypothesis:
		want = pHyp
	case ProvenanceCited:
		want = pDecisions | pState
	default:
		d.require(provNames, pKind, seen)
		return true // validation reports a bad kind
	}
	for i, name := range provNames {
		if seen&^(want|pKind)&(1<<i) != 0 {
			d.fail(name, CodeUnknown, "is not a field of "+string(p.Kind)+" provenance")
		}
	}
	d.require(provNames, want, seen)
	return true
}

// optionNames are the members of a question option, by bit.
var optionNames = []string{"id", "label", "implies"}

// options reads the options of a question, in order.
func (d *decoder) options() []Option {
	if !d.is('[', "an array") {
		return nil
	}
	var opts []Option
	d.elements(func(int) {
		var o Option
		if d.is('{', "an object") {
			seen := d.fields("an option", optionNames, func(i int) {
				switch i {
				case 0:
					o.Ident, _ = d.stringValue()
				case 1:
					o.Label, _ = d.stringValue()
				case 2:
					o.Implies = d.groundAtom()
				}
			})
			d.require(optionNames, 0b011, seen)
		}
		opts = append(opts, o)
	})
	return opts
}

// atomNames are the members of an atom, by bit.
var atomNames = []string{"args", "pred"}

// groundAtom reads a ground atom: a predicate over string constants.
func (d *decoder) groundAtom() *GroundAtom {
	if !d.is('{', "an object") {
		return nil
	}
	a := &GroundAtom{}
	seen := d.fields("a ground atom", atomNames, func(i int) {
		if i == 0 {
			a.Args = d.stringArray()
		} else {
			a.Pred, _ = d.stringValue()
		}
	})
	d.require(atomNames, 0b11, seen)
	return a
}

// atom reads a rule atom into a: a predicate over terms.
func (d *decoder) atom(a *Atom) {
	if !d.is('{', "an object") {
		return
	}
	seen := d.fields("an atom", atomNames, func(i int) {
		if i == 1 {
			a.Pred, _ = d.stringValue()
			return
		}
		if !d.is('[', "an array") {
			return
		}
		d.elements(func(int) {
			var t Term
			d.term(&t)
			a.Args = append(a.Args, t)
		})
	})
	d.require(atomNames, 0b11, seen)
}

// termNames are the members of a term, by bit.
var termNames = []string{"var", "const"}

// term reads a term: exactly one of {"var":…} or {"const":…}.
func (d *decoder) term(t *Term) {
	if !d.is('{', "an object") {
		return
	}
	seen := d.fields("a term", termNames, func(i int) {
		if i == 0 {
			t.Var, _ = d.stringValue()
		} else {
			t.Const, _ = d.stringValue()
		}
	})
	switch seen {
	case 0:
		d.fail("", CodeRequired, "needs exactly one of var or const")
	case 0b11:
		d.fail("const", CodeUnknown, "is not allowed beside var: a term is exactly one of var or const")
	}
}

// literalNames are the members of a body literal, by bit.
var literalNames = []string{"atom", "negated"}

// body reads the body literals of a rule, in order.
func (d *decoder) body() []Literal {
	if !d.is('[', "an array") {
		return nil
	}
	var lits []Literal
	d.elements(func(int) {
		var l Literal
		if d.is('{', "an object") {
			seen := d.fields("a body literal", literalNames, func(i int) {
				if i == 0 {
					d.atom(&l.Atom)
				} else {
					l.Negated = d.boolValue()
				}
			})
			d.require(literalNames, 0b11, seen)
		}
		lits = append(lits, l)
	})
	return lits
}
