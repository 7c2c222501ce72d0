// Decoding the expert lane's objects: their builders and the one reader
// they need that no other type does, an integer member.

package objects

import "strconv"

// intValue reads a JSON number that is an integer within ±MaxAmount: no
// fraction, no exponent (canonical JSON writes an integer as its digits).
func (d *decoder) intValue() int64 {
	d.ws()
	c := d.peek()
	if c != '-' && (c < '0' || c > '9') {
		d.fail("", CodeType, "must be an integer, not "+describe(c))
		d.value()
		return 0
	}
	start := d.pos
	if !d.number() {
		return 0
	}
	n, err := strconv.ParseInt(string(d.data[start:d.pos]), 10, 64)
	if err != nil || n > MaxAmount || n < -MaxAmount {
		d.fail("", CodeType, "must be an integer within ±9007199254740991, not "+quoteShort(string(d.data[start:d.pos])))
		return 0
	}
	if n == 0 && d.data[start] == '-' {
		d.fail("", CodeType, "must be an integer written canonically, not -0")
	}
	return n
}

func buildDialect(s *shadow) Object {
	return &Dialect{Ident: s.str[fID], Consonants: normalSet(s.lists[fConsonants]), Vowels: normalSet(s.lists[fVowels]),
		Shapes: normalSet(s.lists[fShapes]), Forbid: normalSet(s.lists[fForbid]),
		MinSyllables: int(s.ints[fMinSyllables]), MaxSyllables: int(s.ints[fMaxSyllables]), Provenance: s.sprov}
}

func buildWord(s *shadow) Object {
	return &Word{Dialect: s.str[fDialect], Form: s.str[fForm], Gloss: s.str[fGloss], Provenance: s.sprov}
}

func buildName(s *shadow) Object {
	return &Name{Entity: s.str[fEntity], Dialect: s.str[fDialect], Name: s.str[fName], Words: s.lists[fWords], Provenance: s.sprov}
}

func buildDerivation(s *shadow) Object {
	return &Derivation{Dialect: s.str[fDialect], Form: s.str[fForm], SourceDialect: s.str[fSourceDialect],
		Source: s.str[fSource], Provenance: s.sprov}
}

func buildLedgerEntry(s *shadow) Object {
	return &LedgerEntry{Entity: s.str[fEntity], Account: s.str[fAccount], Amount: s.ints[fAmount], At: s.str[fAt], Provenance: s.sprov}
}

// normalSet returns a set sorted without repeats, nil when empty.
func normalSet(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	if !sortedUnique(ss) {
		ss = normalStrings(ss)
	}
	return ss
}
