// This file holds the validation tests: every id field and free text field
// of every type against a table of bad values, zero values of every type,
// enums, provenance shapes, terms, duplicate options and error lists.

package objects

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// problemKey is what a test expects of one FieldError.
type problemKey struct{ field, code string }

// problems flattens a Validate or Decode error into its (field, code)
// pairs, checking the shape every error must have.
func problems(t *testing.T, err error) []problemKey {
	t.Helper()
	if err == nil {
		return nil
	}
	var list ErrorList
	var one *FieldError
	switch {
	case errors.As(err, &list):
		if len(list) < 2 {
			t.Errorf("an ErrorList of %d errors was returned; want a bare *FieldError", len(list))
		}
		for i := 1; i < len(list); i++ {
			if list[i-1].Field > list[i].Field {
				t.Errorf("errors not sorted by field: %q before %q", list[i-1].Field, list[i].Field)
			}
		}
	case errors.As(err, &one):
		list = ErrorList{one}
	default:
		t.Fatalf("error %T is neither *FieldError nor ErrorList: %v", err, err)
	}
	var out []problemKey
	for _, e := range list {
		// The message is lowercase apart from the path and quoted values.
		if rest := strings.TrimPrefix(e.Message, e.Field); rest == "" || strings.ToLower(rest[:1]) != rest[:1] {
			t.Errorf("message %q should be lowercase after the path", e.Message)
		}
		if e.Field != "" && !strings.Contains(e.Message, e.Field) {
			t.Errorf("message %q does not say where (%s)", e.Message, e.Field)
		}
		out = append(out, problemKey{e.Field, e.Code})
	}
	return out
}

// checkProblems compares an error with the expected problems, in order.
func checkProblems(t *testing.T, err error, want ...problemKey) {
	t.Helper()
	got := problems(t, err)
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got problems %v, want %v (error: %v)", got, want, err)
	}
}

// fieldCase names one string field of one type and how to set it in a
// fresh example.
type fieldCase struct {
	typ      Type
	path     string
	optional bool
	set      func(o Object, v string)
}

// idFields lists every id field of every type, nested ones included.
var idFields = []fieldCase{
	{TypeEntity, "id", false, func(o Object, v string) { o.(*Entity).Ident = v }},
	{TypeEntity, "provenance.origin", false, func(o Object, v string) { ownProv(o).Origin = v }},
	{TypeFact, "entity", false, func(o Object, v string) { o.(*Fact).Entity = v }},
	{TypeFact, "key", false, func(o Object, v string) { o.(*Fact).Key = v }},
	{TypeRelation, "relation", false, func(o Object, v string) { o.(*Relation).Relation = v }},
	{TypeRelation, "from", false, func(o Object, v string) { o.(*Relation).From = v }},
	{TypeRelation, "to", false, func(o Object, v string) { o.(*Relation).To = v }},
	{TypeEvent, "id", false, func(o Object, v string) { o.(*Event).Ident = v }},
	{TypeEvent, "era", false, func(o Object, v string) { o.(*Event).Era = v }},
	{TypeBefore, "earlier", false, func(o Object, v string) { o.(*Before).Earlier = v }},
	{TypeBefore, "later", false, func(o Object, v string) { o.(*Before).Later = v }},
	{TypeBefore, "provenance.decisions[1]", false, func(o Object, v string) { ownProv(o).Decisions[1] = v }},
	{TypeQuestion, "id", false, func(o Object, v string) { o.(*Question).Ident = v }},
	{TypeQuestion, "options[1].id", false, func(o Object, v string) { o.(*Question).Options[1].Ident = v }},
	{TypeQuestion, "options[0].implies.pred", false, func(o Object, v string) { o.(*Question).Options[0].Implies.Pred = v }},
	{TypeHypothesis, "id", false, func(o Object, v string) { o.(*Hypothesis).Ident = v }},
	{TypeRule, "name", false, func(o Object, v string) { o.(*Rule).Name = v }},
	{TypeRule, "head.pred", false, func(o Object, v string) { o.(*Rule).Head.Pred = v }},
	{TypeRule, "head.args[1].var", false, func(o Object, v string) { o.(*Rule).Head.Args[1].Var = v }},
	{TypeRule, "body[2].atom.pred", false, func(o Object, v string) { o.(*Rule).Body[2].Atom.Pred = v }},
	{TypeRule, "body[1].atom.args[0].var", false, func(o Object, v string) { o.(*Rule).Body[1].Atom.Args[0].Var = v }},
	{TypeRule, "provenance.hyp", false, func(o Object, v string) { ownProv(o).Hyp = v }},
	{TypeFunctional, "pred", false, func(o Object, v string) { o.(*Functional).Pred = v }},
	{TypeInertial, "pred", false, func(o Object, v string) { o.(*Inertial).Pred = v }},
	{TypeSameAs, "left", false, func(o Object, v string) { o.(*SameAs).Left = v }},
	{TypeSameAs, "right", false, func(o Object, v string) { o.(*SameAs).Right = v }},
	{TypePredicateSameAs, "left", false, func(o Object, v string) { o.(*PredicateSameAs).Left = v }},
	{TypePredicateSameAs, "right", false, func(o Object, v string) { o.(*PredicateSameAs).Right = v }},
	{TypeState, "entity", false, func(o Object, v string) { o.(*State).Entity = v }},
	{TypeState, "key", false, func(o Object, v string) { o.(*State).Key = v }},
	{TypeState, "since", true, func(o Object, v string) { o.(*State).Since = v }},
	{TypeState, "until", true, func(o Object, v string) { o.(*State).Until = v }},
	{TypeDecision, "id", false, func(o Object, v string) { o.(*Decision).Ident = v }},
	{TypeDecision, "provenance.origin", false, func(o Object, v string) { ownProv(o).Origin = v }},
	{TypeAttack, "attacker", false, func(o Object, v string) { o.(*Attack).Attacker = v }},
	{TypeAttack, "target", false, func(o Object, v string) { o.(*Attack).Target = v }},
	{TypeStanding, "decision", false, func(o Object, v string) { o.(*Standing).Decision = v }},
	{TypeRatify, "decision", false, func(o Object, v string) { o.(*Ratify).Decision = v }},
}

// textFields lists every free text field of every type.
var textFields = []fieldCase{
	{TypeEntity, "name", false, func(o Object, v string) { o.(*Entity).Name = v }},
	{TypeFact, "value", false, func(o Object, v string) { o.(*Fact).Value = v }},
	{TypeQuestion, "prompt", false, func(o Object, v string) { o.(*Question).Prompt = v }},
	{TypeQuestion, "options[1].label", false, func(o Object, v string) { o.(*Question).Options[1].Label = v }},
	{TypeQuestion, "options[0].implies.args[1]", false, func(o Object, v string) { o.(*Question).Options[0].Implies.Args[1] = v }},
	{TypeHypothesis, "statement", false, func(o Object, v string) { o.(*Hypothesis).Statement = v }},
	{TypeRule, "body[2].atom.args[1].const", false, func(o Object, v string) { o.(*Rule).Body[2].Atom.Args[1].Const = v }},
	{TypeState, "value", false, func(o Object, v string) { o.(*State).Value = v }},
	{TypeDecision, "rationale", true, func(o Object, v string) { o.(*Decision).Rationale = v }},
}

// emptyPath is where an empty value of the field at path is reported: an
// empty var or const leaves a term with neither, which is the term's problem.
func emptyPath(path string) string {
	for _, suffix := range []string{".var", ".const"} {
		if strings.HasSuffix(path, suffix) {
			return strings.TrimSuffix(path, suffix)
		}
	}
	return path
}

// badIDs are values no id field accepts, with the code they raise.
var badIDs = []struct{ v, code string }{
	{"../x", CodeInvalidID},
	{"a b", CodeInvalidID},
	{"a.b", CodeInvalidID},
	{"a:b", CodeInvalidID},
	{`a"b`, CodeInvalidID},
	{"-a", CodeInvalidID},
	{"_a", CodeInvalidID},
	{"\u0301a", CodeInvalidID}, // a combining mark cannot start an id
	{"a\u00a0b", CodeInvalidID},
	{"", CodeRequired},
	{strings.Repeat("a", MaxIDLen+1), CodeTooLong},
	{strings.Repeat("é", MaxIDLen/2) + "a", CodeTooLong},
	{"a\tb", CodeControlChar},
	{"a\nb", CodeControlChar},
	{"a\x00b", CodeControlChar},
	{"a\x7fb", CodeControlChar},
	{"a\u0085b", CodeControlChar},
	{"a.b\tc", CodeControlChar}, // control characters are reported first
	{"a\xffb", CodeInvalidUTF8},
	{"a\xed\xa0\x80", CodeInvalidUTF8}, // an encoded surrogate
}

// goodIDs are values every id field accepts.
var goodIDs = []string{
	"mireth", "1066", "a-b_c", "X", "Ærø", "क्षत्रिय", "e\u0301toile", "日本",
	strings.Repeat("a", MaxIDLen), strings.Repeat("é", MaxIDLen/2),
}

func TestValidateIDFields(t *testing.T) {
	for _, fc := range idFields {
		for _, bad := range badIDs {
			name := fmt.Sprintf("%s.%s=%.12q", fc.typ, fc.path, bad.v)
			t.Run(name, func(t *testing.T) {
				o := examples()[fc.typ]
				fc.set(o, bad.v)
				if bad.v == "" && fc.optional {
					checkProblems(t, o.Validate())
					return
				}
				path := fc.path
				if bad.v == "" {
					path = emptyPath(path)
				}
				checkProblems(t, o.Validate(), problemKey{path, bad.code})
			})
		}
		for _, good := range goodIDs {
			o := examples()[fc.typ]
			fc.set(o, good)
			if err := o.Validate(); err != nil {
				t.Errorf("%s.%s = %q: %v", fc.typ, fc.path, good, err)
			}
		}
	}
}

func TestValidIDMatchesValidation(t *testing.T) {
	for _, bad := range badIDs {
		if ValidID(bad.v) {
			t.Errorf("ValidID(%q) = true", bad.v)
		}
	}
	for _, good := range goodIDs {
		if !ValidID(good) {
			t.Errorf("ValidID(%q) = false", good)
		}
	}
}

// badTexts are values no free text field accepts.
var badTexts = []struct{ v, code string }{
	{"line\nbreak", CodeControlChar},
	{"tab\there", CodeControlChar},
	{"cr\r", CodeControlChar},
	{"\x00", CodeControlChar},
	{"del\x7f", CodeControlChar},
	{"c1\u0080", CodeControlChar},
	{"c1\u009f", CodeControlChar},
	{"bad\xc3", CodeInvalidUTF8},
	{"\xed\xbf\xbf", CodeInvalidUTF8},
	{"\xc0\x80", CodeInvalidUTF8}, // overlong NUL
	{strings.Repeat("x", MaxTextLen+1), CodeTooLong},
}

// goodTexts are values every free text field accepts.
var goodTexts = []string{
	`He said "no" \ then: left. {braces} [brackets]`,
	"Ærø — ünïcødé 𝔘 日本語",
	"line\u2028separator is not a control character",
	"'single' <angle> & amp",
	strings.Repeat("x", MaxTextLen),
}

func TestValidateTextFields(t *testing.T) {
	for _, fc := range textFields {
		for _, bad := range badTexts {
			name := fmt.Sprintf("%s.%s=%.12q", fc.typ, fc.path, bad.v)
			t.Run(name, func(t *testing.T) {
				o := examples()[fc.typ]
				fc.set(o, bad.v)
				checkProblems(t, o.Validate(), problemKey{fc.path, bad.code})
			})
		}
		o := examples()[fc.typ]
		fc.set(o, "")
		if fc.optional {
			checkProblems(t, o.Validate())
		} else {
			checkProblems(t, o.Validate(), problemKey{emptyPath(fc.path), CodeRequired})
		}
		for _, good := range goodTexts {
			o := examples()[fc.typ]
			fc.set(o, good)
			if err := o.Validate(); err != nil {
				t.Errorf("%s.%s = %.20q: %v", fc.typ, fc.path, good, err)
			}
		}
	}
}

// p is shorthand for a problemKey.
func p(field, code string) problemKey { return problemKey{field, code} }

func TestValidateZeroValues(t *testing.T) {
	req := CodeRequired
	tests := []struct {
		o    Object
		want []problemKey
	}{
		{&Entity{}, []problemKey{p("id", req), p("kind", req), p("name", req), p("provenance", req)}},
		{&Fact{}, []problemKey{p("entity", req), p("key", req), p("provenance", req), p("value", req)}},
		{&Relation{}, []problemKey{p("from", req), p("provenance", req), p("relation", req), p("to", req)}},
		{&Event{}, []problemKey{p("era", req), p("id", req), p("provenance", req)}},
		{&Before{}, []problemKey{p("earlier", req), p("later", req), p("provenance", req)}},
		{&Question{}, []problemKey{p("id", req), p("prompt", req)}},
		{&Hypothesis{}, []problemKey{p("id", req), p("statement", req)}},
		{&Rule{}, []problemKey{p("body", req), p("head.pred", req), p("name", req), p("provenance", req)}},
		{&Functional{}, []problemKey{p("pred", req), p("provenance", req)}},
		{&Inertial{}, []problemKey{p("pred", req), p("provenance", req)}},
		{&SameAs{}, []problemKey{p("left", req), p("provenance", req), p("right", req)}},
		{&PredicateSameAs{}, []problemKey{p("left", req), p("provenance", req), p("right", req)}},
		{&State{}, []problemKey{p("entity", req), p("key", req), p("provenance", req), p("value", req)}},
		{&Decision{}, []problemKey{p("id", req)}},
		{&Attack{}, []problemKey{p("attacker", req), p("claim", req), p("target", req)}},
		{&Standing{}, []problemKey{p("claim", req), p("decision", req), p("standing", req)}},
		{&Ratify{}, []problemKey{p("claims", req), p("decision", req)}},
		{&Dialect{}, []problemKey{p("consonants", req), p("id", req), p("max_syllables", CodeOutOfRange),
			p("min_syllables", CodeOutOfRange), p("provenance", req), p("shapes", req), p("vowels", req)}},
		{&Word{}, []problemKey{p("dialect", req), p("form", req), p("gloss", req), p("provenance", req)}},
		{&Name{}, []problemKey{p("dialect", req), p("entity", req), p("name", req), p("provenance", req)}},
		{&Derivation{}, []problemKey{p("dialect", req), p("form", req), p("provenance", req), p("source", req), p("source_dialect", req)}},
		{&LedgerEntry{}, []problemKey{p("account", req), p("amount", CodeOutOfRange), p("at", req), p("entity", req), p("provenance", req)}},
	}
	if len(tests) != len(Types()) {
		t.Fatalf("%d zero-value cases for %d types", len(tests), len(Types()))
	}
	for _, tt := range tests {
		t.Run(string(tt.o.Type()), func(t *testing.T) {
			err := tt.o.Validate()
			checkProblems(t, err, tt.want...)
			dst := []byte("prefix")
			out, aerr := tt.o.AppendCanonical(dst)
			if aerr == nil || string(out) != "prefix" {
				t.Errorf("AppendCanonical = %q, %v; want dst unchanged and an error", out, aerr)
			}
			if _, ierr := tt.o.ID(); ierr == nil {
				t.Error("ID of an invalid object succeeded")
			}
			if b, cerr := Canonical(tt.o); cerr == nil || b != nil {
				t.Errorf("Canonical = %q, %v; want nil and an error", b, cerr)
			}
		})
	}
}

// validateCases mutate an example and list the problems Validate reports.
var validateCases = []struct {
	name   string
	typ    Type
	mutate func(o Object)
	want   []problemKey
}{
	{"entity kind", TypeEntity, func(o Object) { o.(*Entity).Kind = "robot" },
		[]problemKey{p("kind", CodeInvalidEnum)}},
	{"entity kind case", TypeEntity, func(o Object) { o.(*Entity).Kind = "Person" },
		[]problemKey{p("kind", CodeInvalidEnum)}},
	{"provenance kind", TypeFact, func(o Object) { ownProv(o).Kind = "decreed" },
		[]problemKey{p("provenance.kind", CodeInvalidEnum)}},
	{"provenance kind empty", TypeFact, func(o Object) { ownProv(o).Kind = "" },
		[]problemKey{p("provenance.kind", CodeRequired)}},
	{"cited state", TypeBefore, func(o Object) { ownProv(o).State = "final" },
		[]problemKey{p("provenance.state", CodeInvalidEnum)}},
	{"cited state missing", TypeBefore, func(o Object) { ownProv(o).State = "" },
		[]problemKey{p("provenance.state", CodeRequired)}},
	{"cited no decisions", TypeBefore, func(o Object) { ownProv(o).Decisions = nil },
		[]problemKey{p("provenance.decisions", CodeRequired)}},
	{"cited repeated decisions are a set", TypeBefore, func(o Object) {
		ownProv(o).Decisions = []string{"b", "a", "a"}
	}, nil},
	{"proposed with hyp", TypeFact, func(o Object) { ownProv(o).Hyp = "h" },
		[]problemKey{p("provenance.hyp", CodeUnknown)}},
	{"proposed with cited fields", TypeFact, func(o Object) {
		ownProv(o).Decisions = []string{"d"}
		ownProv(o).State = CitedRatified
	}, []problemKey{p("provenance.decisions", CodeUnknown), p("provenance.state", CodeUnknown)}},
	{"cited with origin", TypeBefore, func(o Object) { ownProv(o).Origin = "s" },
		[]problemKey{p("provenance.origin", CodeUnknown)}},
	{"hypothesis with origin", TypeRule, func(o Object) { ownProv(o).Origin = "s" },
		[]problemKey{p("provenance.origin", CodeUnknown)}},
	{"standing value", TypeStanding, func(o Object) { o.(*Standing).Standing = "maybe" },
		[]problemKey{p("standing", CodeInvalidEnum)}},
	{"duplicate option ids", TypeQuestion, func(o Object) {
		q := o.(*Question)
		q.Options = append(q.Options, Option{Ident: "the-tidewall", Label: "Again"}, Option{Ident: "the-old-mill", Label: "And again"})
	}, []problemKey{p("options[2].id", CodeDuplicate), p("options[3].id", CodeDuplicate)}},
	{"many options, one repeat", TypeQuestion, func(o Object) {
		q := o.(*Question)
		for i := range 40 {
			q.Options = append(q.Options, Option{Ident: fmt.Sprintf("o%d", i), Label: "L"})
		}
		q.Options = append(q.Options, Option{Ident: "o7", Label: "L"})
	}, []problemKey{p("options[42].id", CodeDuplicate)}},
	{"no options", TypeQuestion, func(o Object) { o.(*Question).Options = nil }, nil},
	{"option without label", TypeQuestion, func(o Object) { o.(*Question).Options[0].Label = "" },
		[]problemKey{p("options[0].label", CodeRequired)}},
	{"proposition implies", TypeQuestion, func(o Object) { o.(*Question).Options[0].Implies.Args = nil }, nil},
	{"empty body", TypeRule, func(o Object) { o.(*Rule).Body = nil },
		[]problemKey{p("body", CodeRequired)}},
	{"term with var and const", TypeRule, func(o Object) { o.(*Rule).Head.Args[0].Const = "c" },
		[]problemKey{p("head.args[0].const", CodeUnknown)}},
	{"term with neither", TypeRule, func(o Object) { o.(*Rule).Body[0].Atom.Args[1] = Term{} },
		[]problemKey{p("body[0].atom.args[1]", CodeRequired)}},
	{"nullary head", TypeRule, func(o Object) { o.(*Rule).Head.Args = nil }, nil},
	{"attack zero claim", TypeAttack, func(o Object) { o.(*Attack).Claim = ID{} },
		[]problemKey{p("claim", CodeRequired)}},
	{"ratify zero claim", TypeRatify, func(o Object) { o.(*Ratify).Claims[1] = ID{} },
		[]problemKey{p("claims[1]", CodeRequired)}},
	{"ratify no claims", TypeRatify, func(o Object) { o.(*Ratify).Claims = []ID{} },
		[]problemKey{p("claims", CodeRequired)}},
	{"decision without provenance", TypeDecision, func(o Object) { o.(*Decision).Provenance = nil }, nil},
	{"decision with empty provenance", TypeDecision, func(o Object) { o.(*Decision).Provenance = &Provenance{} },
		[]problemKey{p("provenance.kind", CodeRequired)}},
	{"state without anchors", TypeState, func(o Object) { o.(*State).Since = "" }, nil},
	{"several problems, sorted by field", TypeFact, func(o Object) {
		f := o.(*Fact)
		f.Value = "a\nb"
		f.Entity = "a b"
		ownProv(f).Origin = ""
	}, []problemKey{p("entity", CodeInvalidID), p("provenance.origin", CodeRequired), p("value", CodeControlChar)}},
}

func TestValidateCases(t *testing.T) {
	for _, tt := range validateCases {
		t.Run(tt.name, func(t *testing.T) {
			o := examples()[tt.typ]
			tt.mutate(o)
			checkProblems(t, o.Validate(), tt.want...)
		})
	}
}

func TestErrorList(t *testing.T) {
	f := &Fact{Entity: "a.b", Key: "k", Value: "v\x00", Provenance: Proposed("s")}
	err := f.Validate()
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 2 {
		t.Fatalf("Validate = %v, want an ErrorList of 2", err)
	}
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "entity" || fe.Type != TypeFact {
		t.Errorf("errors.As found %+v, want the entity error", fe)
	}
	want := `fact: entity is not a valid id: '.' at byte 1 is not allowed after the first character ` +
		`(an id starts with a letter or digit, then letters, digits, combining marks, '-' or '_'); ` +
		`fact: value contains control character U+0000 at byte 1`
	if err.Error() != want {
		t.Errorf("Error() =\n%s\nwant\n%s", err.Error(), want)
	}
	if (ErrorList{}).Err() != nil {
		t.Error("empty ErrorList.Err() != nil")
	}
}
