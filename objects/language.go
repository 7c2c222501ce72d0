// This file holds the expert lane's objects (DLI section 3.17): the
// language lane — dialects with their phonology, words, names and
// derivations between words — and the ledger entry, a counted change to an
// entity's account at an anchor. The naming oracle that reads a dialect's
// phonology is in language_oracle.go.

package objects

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CodeOutOfRange: a number is outside its bounds (a dialect's syllable
// counts, a ledger amount).
const CodeOutOfRange = "field.out-of-range"

// The bounds of a dialect's phonology: how many syllables a word may be
// given, and how long a grapheme or a syllable shape may be.
const (
	MaxSyllables     = 16
	MaxGraphemeBytes = 8
	MaxShapeLen      = 8
	// MaxAmount bounds a ledger amount: the integers JSON carries exactly.
	MaxAmount = 1<<53 - 1
)

// Dialect declares a dialect and its phonology, the naming oracle's input
// (author.add_dialect; the same shape as a project file's [[dialect]]):
// {"consonants","forbid"?,"id","max_syllables","min_syllables",
// "provenance","shapes","type":"dialect","vowels"}. Consonants and vowels
// are the graphemes a word is spelled with (a grapheme may be several
// letters: "th", "ai"), shapes the syllable shapes over C and V ("CV",
// "CVC"), each with exactly one V, forbid the letter sequences no word may
// contain. Every list is a set.
type Dialect struct {
	Ident        string // JSON "id": the dialect id
	Consonants   []string
	Vowels       []string
	Shapes       []string
	Forbid       []string // optional
	MinSyllables int
	MaxSyllables int
	Provenance   *Provenance
}

// Type returns TypeDialect.
func (*Dialect) Type() Type { return TypeDialect }

// Validate checks every field of x.
func (x *Dialect) Validate() error {
	c := checker{typ: TypeDialect}
	checkGraphemes(&c, "consonants", x.Consonants, true)
	checkGraphemes(&c, "forbid", x.Forbid, false)
	c.id("id", x.Ident)
	if x.MaxSyllables < 1 || x.MaxSyllables > MaxSyllables {
		c.add("max_syllables", CodeOutOfRange, fmt.Sprintf("max_syllables is %d; it must be 1 to %d", x.MaxSyllables, MaxSyllables))
	}
	switch {
	case x.MinSyllables < 1 || x.MinSyllables > MaxSyllables:
		c.add("min_syllables", CodeOutOfRange, fmt.Sprintf("min_syllables is %d; it must be 1 to %d", x.MinSyllables, MaxSyllables))
	case x.MinSyllables > x.MaxSyllables && x.MaxSyllables >= 1:
		c.add("min_syllables", CodeOutOfRange, fmt.Sprintf("min_syllables %d is more than max_syllables %d", x.MinSyllables, x.MaxSyllables))
	}
	x.Provenance.check(&c)
	if len(x.Shapes) == 0 {
		c.add("shapes", CodeRequired, "shapes must list at least one syllable shape")
	}
	for i, s := range x.Shapes {
		if !validShape(s) {
			c.add(indexPath("shapes", i), CodeInvalidEnum, fmt.Sprintf(
				"%s %s is not a syllable shape: C and V only, at most %d long, with exactly one V", indexPath("shapes", i), quoteShort(s), MaxShapeLen))
		}
	}
	checkGraphemes(&c, "vowels", x.Vowels, true)
	vowel := map[string]bool{}
	for _, v := range x.Vowels {
		vowel[v] = true
	}
	for i, k := range x.Consonants {
		if vowel[k] {
			c.add(indexPath("consonants", i), CodeInvalidEnum, fmt.Sprintf("%s %s is also a vowel: a grapheme is one or the other", indexPath("consonants", i), quoteShort(k)))
		}
	}
	return c.err()
}

// checkGraphemes checks a set of graphemes: lower-case letters (and
// combining marks or an apostrophe), at most MaxGraphemeBytes bytes each.
func checkGraphemes(c *checker, path string, gs []string, required bool) {
	if required && len(gs) == 0 {
		c.add(path, CodeRequired, path+" must list at least one grapheme")
	}
	for i, g := range gs {
		if !validGrapheme(g) {
			c.add(indexPath(path, i), CodeInvalidEnum, fmt.Sprintf(
				"%s %s is not a grapheme: 1 to %d bytes of lower-case letters, combining marks or an apostrophe", indexPath(path, i), quoteShort(g), MaxGraphemeBytes))
		}
	}
}

// validGrapheme reports whether g is non-empty, short, and made of
// lower-case letters, combining marks and apostrophes only.
func validGrapheme(g string) bool {
	if g == "" || len(g) > MaxGraphemeBytes || !utf8.ValidString(g) {
		return false
	}
	for _, r := range g {
		switch {
		case r == '\'':
		case unicode.IsLetter(r) && unicode.ToLower(r) == r:
		case unicode.Is(unicode.Mn, r):
		default:
			return false
		}
	}
	return true
}

// validShape reports whether s is a syllable shape: C and V only, with
// exactly one V.
func validShape(s string) bool {
	return s != "" && len(s) <= MaxShapeLen && strings.Trim(s, "CV") == "" && strings.Count(s, "V") == 1
}

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *Dialect) AppendCanonical(dst []byte) ([]byte, error) {
	if err := x.Validate(); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"consonants":`)
	e.strSet(x.Consonants)
	if len(x.Forbid) > 0 {
		e.raw(`,"forbid":`)
		e.strSet(x.Forbid)
	}
	e.raw(`,"id":`)
	e.str(x.Ident)
	e.raw(`,"max_syllables":`)
	e.b = strconv.AppendInt(e.b, int64(x.MaxSyllables), 10)
	e.raw(`,"min_syllables":`)
	e.b = strconv.AppendInt(e.b, int64(x.MinSyllables), 10)
	e.raw(`,"provenance":`)
	e.prov(x.Provenance)
	e.raw(`,"shapes":`)
	e.strSet(x.Shapes)
	e.raw(`,"type":"dialect","vowels":`)
	e.strSet(x.Vowels)
	e.raw(`}`)
	return e.done(dst)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *Dialect) ID() (ID, error) { return idOf(x) }

// Word enters a lexicon entry: a word form of a dialect and its gloss
// (author.add_word): {"dialect","form","gloss","provenance","type":"word"}.
type Word struct {
	Dialect    string // the dialect id
	Form       string // free text: the word as spelled
	Gloss      string // free text: what it means
	Provenance *Provenance
}

// Type returns TypeWord.
func (*Word) Type() Type { return TypeWord }

// Validate checks every field of x.
func (x *Word) Validate() error {
	c := checker{typ: TypeWord}
	c.id("dialect", x.Dialect)
	c.text("form", x.Form, true)
	c.text("gloss", x.Gloss, true)
	x.Provenance.check(&c)
	return c.err()
}

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *Word) AppendCanonical(dst []byte) ([]byte, error) {
	if err := x.Validate(); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"dialect":`)
	e.str(x.Dialect)
	e.raw(`,"form":`)
	e.str(x.Form)
	e.raw(`,"gloss":`)
	e.str(x.Gloss)
	e.raw(`,"provenance":`)
	e.prov(x.Provenance)
	e.raw(`,"type":"word"}`)
	return e.done(dst)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *Word) ID() (ID, error) { return idOf(x) }

// Name gives an entity a name in a dialect, optionally built from words of
// that dialect, in order (author.add_name):
// {"dialect","entity","name","provenance","type":"name","words"?}.
type Name struct {
	Entity     string   // the entity id
	Dialect    string   // the dialect id
	Name       string   // free text: the name as spelled
	Words      []string // optional: the word forms it is built from, in order
	Provenance *Provenance
}

// Type returns TypeName.
func (*Name) Type() Type { return TypeName }

// Validate checks every field of x.
func (x *Name) Validate() error {
	c := checker{typ: TypeName}
	c.id("dialect", x.Dialect)
	c.id("entity", x.Entity)
	c.text("name", x.Name, true)
	x.Provenance.check(&c)
	for i, w := range x.Words {
		c.textAt(w, func() string { return indexPath("words", i) })
	}
	return c.err()
}

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *Name) AppendCanonical(dst []byte) ([]byte, error) {
	if err := x.Validate(); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"dialect":`)
	e.str(x.Dialect)
	e.raw(`,"entity":`)
	e.str(x.Entity)
	e.raw(`,"name":`)
	e.str(x.Name)
	e.raw(`,"provenance":`)
	e.prov(x.Provenance)
	e.raw(`,"type":"name"`)
	if len(x.Words) > 0 {
		e.raw(`,"words":`)
		e.strs(x.Words)
	}
	e.raw(`}`)
	return e.done(dst)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *Name) ID() (ID, error) { return idOf(x) }

// Derivation records an etymology: a word of one dialect comes from a word
// of the same or another dialect (author.add_derivation):
// {"dialect","form","provenance","source","source_dialect",
// "type":"derivation"}.
type Derivation struct {
	Dialect       string // the derived word's dialect
	Form          string // the derived word's form
	SourceDialect string // the source word's dialect
	Source        string // the source word's form
	Provenance    *Provenance
}

// Type returns TypeDerivation.
func (*Derivation) Type() Type { return TypeDerivation }

// Validate checks every field of x.
func (x *Derivation) Validate() error {
	c := checker{typ: TypeDerivation}
	c.id("dialect", x.Dialect)
	c.text("form", x.Form, true)
	x.Provenance.check(&c)
	c.text("source", x.Source, true)
	c.id("source_dialect", x.SourceDialect)
	return c.err()
}

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *Derivation) AppendCanonical(dst []byte) ([]byte, error) {
	if err := x.Validate(); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"dialect":`)
	e.str(x.Dialect)
	e.raw(`,"form":`)
	e.str(x.Form)
	e.raw(`,"provenance":`)
	e.prov(x.Provenance)
	e.raw(`,"source":`)
	e.str(x.Source)
	e.raw(`,"source_dialect":`)
	e.str(x.SourceDialect)
	e.raw(`,"type":"derivation"}`)
	return e.done(dst)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *Derivation) ID() (ID, error) { return idOf(x) }

// LedgerEntry records a counted change to one account of an entity at an
// anchor (an event or instant id) (author.add_ledger_entry):
// {"account","amount","at","entity","provenance","type":"ledger_entry"}.
// Amount is a non-zero integer: positive credits the account, negative
// debits it.
type LedgerEntry struct {
	Entity     string // the entity whose account it is
	Account    string // the account id (what is counted: gold, men, grain)
	Amount     int64  // the change, non-zero, |amount| ≤ MaxAmount
	At         string // the anchor the change happens at
	Provenance *Provenance
}

// Type returns TypeLedgerEntry.
func (*LedgerEntry) Type() Type { return TypeLedgerEntry }

// Validate checks every field of x.
func (x *LedgerEntry) Validate() error {
	c := checker{typ: TypeLedgerEntry}
	c.id("account", x.Account)
	switch {
	case x.Amount == 0:
		c.add("amount", CodeOutOfRange, "amount is 0: an entry records a change")
	case x.Amount > MaxAmount || x.Amount < -MaxAmount:
		c.add("amount", CodeOutOfRange, fmt.Sprintf("amount %d is beyond ±%d", x.Amount, int64(MaxAmount)))
	}
	c.id("at", x.At)
	c.id("entity", x.Entity)
	x.Provenance.check(&c)
	return c.err()
}

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *LedgerEntry) AppendCanonical(dst []byte) ([]byte, error) {
	if err := x.Validate(); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"account":`)
	e.str(x.Account)
	e.raw(`,"amount":`)
	e.b = strconv.AppendInt(e.b, x.Amount, 10)
	e.raw(`,"at":`)
	e.str(x.At)
	e.raw(`,"entity":`)
	e.str(x.Entity)
	e.raw(`,"provenance":`)
	e.prov(x.Provenance)
	e.raw(`,"type":"ledger_entry"}`)
	return e.done(dst)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *LedgerEntry) ID() (ID, error) { return idOf(x) }
