// Tests of the expert lane's objects (language.go) and of the naming
// oracle (language_oracle.go).

package objects

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func init() {
	// The field tables of validate_test.go, extended with this lane's
	// fields so that the id and text properties cover them.
	idFields = append(idFields,
		fieldCase{TypeDialect, "id", false, func(o Object, v string) { o.(*Dialect).Ident = v }},
		fieldCase{TypeWord, "dialect", false, func(o Object, v string) { o.(*Word).Dialect = v }},
		fieldCase{TypeName, "dialect", false, func(o Object, v string) { o.(*Name).Dialect = v }},
		fieldCase{TypeName, "entity", false, func(o Object, v string) { o.(*Name).Entity = v }},
		fieldCase{TypeDerivation, "dialect", false, func(o Object, v string) { o.(*Derivation).Dialect = v }},
		fieldCase{TypeDerivation, "source_dialect", false, func(o Object, v string) { o.(*Derivation).SourceDialect = v }},
		fieldCase{TypeLedgerEntry, "entity", false, func(o Object, v string) { o.(*LedgerEntry).Entity = v }},
		fieldCase{TypeLedgerEntry, "account", false, func(o Object, v string) { o.(*LedgerEntry).Account = v }},
		fieldCase{TypeLedgerEntry, "at", false, func(o Object, v string) { o.(*LedgerEntry).At = v }},
	)
	textFields = append(textFields,
		fieldCase{TypeWord, "form", false, func(o Object, v string) { o.(*Word).Form = v }},
		fieldCase{TypeWord, "gloss", false, func(o Object, v string) { o.(*Word).Gloss = v }},
		fieldCase{TypeName, "name", false, func(o Object, v string) { o.(*Name).Name = v }},
		fieldCase{TypeName, "words[1]", false, func(o Object, v string) { o.(*Name).Words[1] = v }},
		fieldCase{TypeDerivation, "form", false, func(o Object, v string) { o.(*Derivation).Form = v }},
		fieldCase{TypeDerivation, "source", false, func(o Object, v string) { o.(*Derivation).Source = v }},
	)
	validateCases = append(validateCases,
		validateCase{"dialect shape without a vowel", TypeDialect, func(o Object) { o.(*Dialect).Shapes = []string{"CC", "CV"} },
			[]problemKey{p("shapes[0]", CodeInvalidEnum)}},
		validateCase{"dialect shape with two vowels", TypeDialect, func(o Object) { o.(*Dialect).Shapes = []string{"CV", "VCV"} },
			[]problemKey{p("shapes[1]", CodeInvalidEnum)}},
		validateCase{"dialect grapheme upper case", TypeDialect, func(o Object) { o.(*Dialect).Vowels = []string{"A", "e"} },
			[]problemKey{p("vowels[0]", CodeInvalidEnum)}},
		validateCase{"dialect grapheme with a space", TypeDialect, func(o Object) { o.(*Dialect).Forbid = []string{"n r"} },
			[]problemKey{p("forbid[0]", CodeInvalidEnum)}},
		validateCase{"dialect grapheme both kinds", TypeDialect, func(o Object) { o.(*Dialect).Consonants = []string{"a", "l"} },
			[]problemKey{p("consonants[0]", CodeInvalidEnum)}},
		validateCase{"dialect bounds crossed", TypeDialect, func(o Object) { o.(*Dialect).MinSyllables = 5 },
			[]problemKey{p("min_syllables", CodeOutOfRange)}},
		validateCase{"dialect bound too high", TypeDialect, func(o Object) { o.(*Dialect).MaxSyllables = MaxSyllables + 1 },
			[]problemKey{p("max_syllables", CodeOutOfRange)}},
		validateCase{"dialect without forbid", TypeDialect, func(o Object) { o.(*Dialect).Forbid = nil }, nil},
		validateCase{"name without words", TypeName, func(o Object) { o.(*Name).Words = nil }, nil},
		validateCase{"ledger amount zero", TypeLedgerEntry, func(o Object) { o.(*LedgerEntry).Amount = 0 },
			[]problemKey{p("amount", CodeOutOfRange)}},
		validateCase{"ledger amount too big", TypeLedgerEntry, func(o Object) { o.(*LedgerEntry).Amount = MaxAmount + 1 },
			[]problemKey{p("amount", CodeOutOfRange)}},
		validateCase{"ledger amount at the bound", TypeLedgerEntry, func(o Object) { o.(*LedgerEntry).Amount = -MaxAmount }, nil},
	)
}

// languageObject returns a random valid object of one of this lane's
// types, or nil for another type.
func (g *gen) languageObject(t Type) Object {
	graphemes := func(n int, from string) []string {
		var out []string
		letters := []rune(from)
		for range n {
			k := 1 + g.r.IntN(2)
			var b strings.Builder
			for range k {
				b.WriteRune(pick(g, letters))
			}
			out = append(out, b.String())
		}
		return out
	}
	switch t {
	case TypeDialect:
		lo := 1 + g.r.IntN(MaxSyllables)
		d := &Dialect{Ident: g.id(), Consonants: graphemes(1+g.r.IntN(5), "bcdfgþðñç"), Vowels: graphemes(1+g.r.IntN(4), "aeiouéø"),
			Shapes:       []string{pick(g, []string{"V", "CV", "CVC", "CCV", "VCC"}), pick(g, []string{"CV", "CVCC"}), "CV"},
			MinSyllables: lo, MaxSyllables: lo + g.r.IntN(MaxSyllables-lo+1), Provenance: g.prov()}
		if g.r.IntN(2) == 0 {
			d.Forbid = graphemes(1+g.r.IntN(3), "bcdaeiþ'")
		}
		return d
	case TypeWord:
		return &Word{Dialect: g.id(), Form: g.text(), Gloss: g.text(), Provenance: g.prov()}
	case TypeName:
		n := &Name{Entity: g.id(), Dialect: g.id(), Name: g.text(), Provenance: g.prov()}
		for k := g.r.IntN(3); k > 0; k-- {
			n.Words = append(n.Words, g.text())
		}
		return n
	case TypeDerivation:
		return &Derivation{Dialect: g.id(), Form: g.text(), SourceDialect: g.id(), Source: g.text(), Provenance: g.prov()}
	case TypeLedgerEntry:
		a := int64(1 + g.r.IntN(1<<20))
		if g.r.IntN(2) == 0 {
			a = -a
		}
		if g.r.IntN(10) == 0 {
			a = MaxAmount
		}
		return &LedgerEntry{Entity: g.id(), Account: g.id(), Amount: a, At: g.id(), Provenance: g.prov()}
	}
	return nil
}

// normalizeDialect puts a dialect's sets in the form Decode returns.
func normalizeDialect(x *Dialect) {
	for _, s := range []*[]string{&x.Consonants, &x.Vowels, &x.Shapes, &x.Forbid} {
		if len(*s) > 0 {
			*s = normalStrings(*s)
		} else {
			*s = nil
		}
	}
}

func TestDecodeLanguage(t *testing.T) {
	tests := []struct {
		name string
		json string
		want []problemKey
	}{
		{"amount a fraction", `{"type":"ledger_entry","entity":"e","account":"a","amount":1.5,"at":"t","provenance":{"kind":"proposed","origin":"s"}}`,
			[]problemKey{p("amount", CodeType)}},
		{"amount an exponent", `{"type":"ledger_entry","entity":"e","account":"a","amount":1e3,"at":"t","provenance":{"kind":"proposed","origin":"s"}}`,
			[]problemKey{p("amount", CodeType)}},
		{"amount a string", `{"type":"ledger_entry","entity":"e","account":"a","amount":"5","at":"t","provenance":{"kind":"proposed","origin":"s"}}`,
			[]problemKey{p("amount", CodeType)}},
		{"amount minus zero", `{"type":"ledger_entry","entity":"e","account":"a","amount":-0,"at":"t","provenance":{"kind":"proposed","origin":"s"}}`,
			[]problemKey{p("amount", CodeType)}},
		{"amount beyond 2^53", `{"type":"ledger_entry","entity":"e","account":"a","amount":9007199254740992,"at":"t","provenance":{"kind":"proposed","origin":"s"}}`,
			[]problemKey{p("amount", CodeType)}},
		{"amount missing", `{"type":"ledger_entry","entity":"e","account":"a","at":"t","provenance":{"kind":"proposed","origin":"s"}}`,
			[]problemKey{p("amount", CodeRequired)}},
		{"shapes not strings", `{"type":"dialect","id":"d","consonants":["l"],"vowels":["a"],"shapes":[1],"min_syllables":1,"max_syllables":2,"provenance":{"kind":"proposed","origin":"s"}}`,
			[]problemKey{p("shapes[0]", CodeType)}},
		{"empty forbid", `{"type":"dialect","id":"d","consonants":["l"],"vowels":["a"],"shapes":["CV"],"forbid":[],"min_syllables":1,"max_syllables":2,"provenance":{"kind":"proposed","origin":"s"}}`,
			[]problemKey{p("forbid", CodeRequired)}},
		{"dialect field on a word", `{"type":"word","dialect":"d","form":"f","gloss":"g","shapes":["CV"],"provenance":{"kind":"proposed","origin":"s"}}`,
			[]problemKey{p("shapes", CodeUnknown)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := Decode([]byte(tt.json))
			if o != nil {
				t.Fatalf("Decode = %#v, want an error", o)
			}
			checkProblems(t, err, tt.want...)
		})
	}
	// Sets come back sorted without repeats; words keep their order.
	o, err := Decode([]byte(`{"type":"dialect","id":"d","consonants":["th","l","th"],"vowels":["e","a"],"shapes":["CVC","CV"],"min_syllables":1,"max_syllables":2,"provenance":{"kind":"proposed","origin":"s"}}`))
	if err != nil {
		t.Fatal(err)
	}
	d := o.(*Dialect)
	if !reflect.DeepEqual(d.Consonants, []string{"l", "th"}) || !reflect.DeepEqual(d.Vowels, []string{"a", "e"}) || !reflect.DeepEqual(d.Shapes, []string{"CV", "CVC"}) {
		t.Errorf("sets not normalized: %+v", d)
	}
	o, err = Decode([]byte(`{"type":"name","entity":"e","dialect":"d","name":"Mirwen","words":["wen","mir"],"provenance":{"kind":"proposed","origin":"s"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if w := o.(*Name).Words; !reflect.DeepEqual(w, []string{"wen", "mir"}) {
		t.Errorf("words = %v, want their order kept", w)
	}
}

// riverSpeech is the dialect of the oracle tests (and of the examples).
func riverSpeech() *Dialect { return examples()[TypeDialect].(*Dialect) }

func TestCheckName(t *testing.T) {
	type prob struct {
		code string
		at   int
	}
	tests := []struct {
		name      string
		syllables []string
		problems  []prob
	}{
		{"Mirwen", []string{"mir", "wen"}, nil},
		{"Tholamir", []string{"tho", "la", "mir"}, nil},
		{"Elowen", []string{"e", "lo", "wen"}, nil},
		{"Isoline", []string{"i", "so", "li", "ne"}, nil},      // maximal onset: so.li, not sol.i
		{"Mira-Lowen", []string{"mi", "ra", "lo", "wen"}, nil}, // hyphenated: each word alone
		{"Mira Thelo", []string{"mi", "ra", "the", "lo"}, nil}, // two words
		{"Mir", nil, []prob{{ProblemTooFew, 0}}},
		{"Salamoriwena", nil, []prob{{ProblemTooMany, 0}}},
		{"Mirken", nil, []prob{{ProblemLetterUnknown, 3}}},
		{"Anrel", nil, []prob{{ProblemClusterForbid, 1}, {ProblemShape, 1}}},
		{"Arnwel", nil, []prob{{ProblemShape, 1}}}, // a.r-n-w: one onset cannot take three
		{"Eawl", nil, []prob{{ProblemClusterForbid, 2}, {ProblemShape, 2}}},
		{"", nil, []prob{{ProblemNameEmpty, 0}}},
		{"Mira  Thelo", nil, []prob{{ProblemNameEmpty, 5}}},
		{"-Mira", nil, []prob{{ProblemNameEmpty, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := riverSpeech().CheckName(tt.name)
			var ps []prob
			for _, pr := range got.Problems {
				ps = append(ps, prob{pr.Code, pr.At})
				if pr.Message == "" {
					t.Errorf("problem %s has no message", pr.Code)
				}
			}
			if !reflect.DeepEqual(ps, tt.problems) {
				t.Errorf("problems = %+v, want %+v (%+v)", ps, tt.problems, got.Problems)
			}
			if got.Vetted != (len(tt.problems) == 0) {
				t.Errorf("vetted = %v with %d problems", got.Vetted, len(got.Problems))
			}
			if tt.syllables != nil && !reflect.DeepEqual(got.Syllables, tt.syllables) {
				t.Errorf("syllables = %q, want %q", got.Syllables, tt.syllables)
			}
			if got.Syllables == nil || got.Problems == nil {
				t.Error("nil lists: the wire wants [] for none")
			}
		})
	}
}

// TestCheckNameShapes: which words a dialect's shapes admit, and the
// longest-grapheme-first spelling (th is one consonant, not t then h).
func TestCheckNameShapes(t *testing.T) {
	d := &Dialect{Ident: "cv-only", Consonants: []string{"k", "t", "th"}, Vowels: []string{"a", "ai", "i"},
		Shapes: []string{"CV"}, MinSyllables: 1, MaxSyllables: 3, Provenance: Proposed("s")}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{
		"Katha": true, "Kaita": true, "Thai": true, "Kat": false, "Akta": false, "Tk": false, "Kaa": false,
	} {
		if got := d.CheckName(name); got.Vetted != want {
			t.Errorf("%s: vetted = %v, want %v (%+v)", name, got.Vetted, want, got.Problems)
		}
	}
	if got := d.CheckName("Kaitha").Syllables; !reflect.DeepEqual(got, []string{"kai", "tha"}) {
		t.Errorf("Kaitha syllables = %q", got)
	}
}

// TestCheckNameLinear: a name at the byte limit is checked in one pass
// (the test would time out on a quadratic division), and problems are
// capped.
func TestCheckNameLinear(t *testing.T) {
	d := riverSpeech()
	d.MaxSyllables = MaxSyllables
	long := strings.Repeat("ma", MaxTextLen/2)
	got := d.CheckName(long)
	if got.Vetted || len(got.Problems) != 1 || got.Problems[0].Code != ProblemTooMany {
		t.Errorf("long name: %+v", got.Problems)
	}
	bad := strings.Repeat("x ", 1000)
	got = d.CheckName(bad)
	if len(got.Problems) != problemsCap || got.Problems[problemsCap-1].Code != ProblemMore {
		t.Errorf("problems not capped: %d, last %+v", len(got.Problems), got.Problems[len(got.Problems)-1])
	}
}

// validateCase is the element type of validate_test.go's validateCases.
type validateCase = struct {
	name   string
	typ    Type
	mutate func(o Object)
	want   []problemKey
}

// TestCheckNameProperties: over random names from the dialect's letters
// (and a few others), a vetted name's syllables spell its words, each
// syllable has a shape of the dialect, and a rejected one says why.
func TestCheckNameProperties(t *testing.T) {
	d := riverSpeech()
	shapes := map[string]bool{}
	for _, s := range d.Shapes {
		shapes[s] = true
	}
	letters := []rune("lmnrsthwaeioLMAk -")
	g := &gen{r: rand.New(rand.NewPCG(11, 12))}
	vetted := 0
	for range 20000 {
		var b strings.Builder
		for n := 1 + g.r.IntN(12); n > 0; n-- {
			b.WriteRune(pick(g, letters))
		}
		name := b.String()
		c := d.CheckName(name)
		if !c.Vetted {
			if len(c.Problems) == 0 {
				t.Fatalf("%q: not vetted, no problem", name)
			}
			for _, p := range c.Problems {
				if p.At < 0 || p.At > len([]rune(name)) || p.Code == "" || p.Message == "" {
					t.Fatalf("%q: bad problem %+v", name, p)
				}
			}
			continue
		}
		vetted++
		folded := strings.NewReplacer(" ", "", "-", "").Replace(strings.ToLower(name))
		if got := strings.Join(c.Syllables, ""); got != folded {
			t.Fatalf("%q: syllables %q spell %q", name, c.Syllables, got)
		}
		for _, s := range c.Syllables {
			shape := ""
			for _, r := range strings.ReplaceAll(s, "th", "t") {
				if strings.ContainsRune("aeio", r) {
					shape += "V"
				} else {
					shape += "C"
				}
			}
			if !shapes[shape] {
				t.Fatalf("%q: syllable %q has shape %s", name, s, shape)
			}
		}
	}
	if vetted < 500 {
		t.Errorf("only %d of 20,000 random names passed: the property is barely tested", vetted)
	}
}

// FuzzCheckName: no name makes the oracle panic, and its verdict is
// consistent with its problems.
func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"Mirwen", "", " ", "--", "İstanbul", "Ǆemal", "a\u0301", strings.Repeat("a", 300)} {
		f.Add(s)
	}
	d := riverSpeech()
	f.Fuzz(func(t *testing.T, name string) {
		c := d.CheckName(name)
		if c.Vetted != (len(c.Problems) == 0) || c.Syllables == nil || c.Problems == nil {
			t.Fatalf("%q: %+v", name, c)
		}
	})
}
