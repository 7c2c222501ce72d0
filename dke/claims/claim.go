// Cells, values and claims, and how a claim is named by the digest of its
// canonical JSON.

package claims

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/deloreis/deloreis/jcs"
)

// Cell is the address Kind.subject.attribute.
type Cell struct {
	Kind    string `json:"kind" desc:"the kind (class) name"`
	Subject string `json:"subject" desc:"the subject"`
	Attr    string `json:"attribute" desc:"the attribute"`
}

// String renders the cell as written in a program.
func (c Cell) String() string { return c.Kind + "." + c.Subject + "." + c.Attr }

// Less orders cells by kind, subject, then attribute.
func (c Cell) Less(d Cell) bool {
	if c.Kind != d.Kind {
		return c.Kind < d.Kind
	}
	if c.Subject != d.Subject {
		return c.Subject < d.Subject
	}
	return c.Attr < d.Attr
}

// Tag says which of a Value's fields holds it.
type Tag string

// The value tags.
const (
	TInt     Tag = "int"
	TFloat   Tag = "float"
	TBool    Tag = "bool"
	TString  Tag = "string"
	TList    Tag = "string_list"
	TSubject Tag = "subject"
)

// Value is a claim's value: a scalar, a list of strings, or a subject of
// a kind (Kind and Str).
type Value struct {
	Tag   Tag
	Int   int64
	Float float64
	Bool  bool
	Str   string
	List  []string
	Kind  string
}

// Int, Float, Bool, Str, List and Subject build values.
func Int(i int64) Value         { return Value{Tag: TInt, Int: i} }
func Float(f float64) Value     { return Value{Tag: TFloat, Float: f} }
func Bool(b bool) Value         { return Value{Tag: TBool, Bool: b} }
func Str(s string) Value        { return Value{Tag: TString, Str: s} }
func List(xs []string) Value    { return Value{Tag: TList, List: append([]string{}, xs...)} }
func Subject(k, s string) Value { return Value{Tag: TSubject, Kind: k, Str: s} }

// Equal reports whether two values are the same value of the same type.
func (v Value) Equal(w Value) bool {
	if v.Tag != w.Tag {
		return false
	}
	switch v.Tag {
	case TInt:
		return v.Int == w.Int
	case TFloat:
		return v.Float == w.Float || math.IsNaN(v.Float) && math.IsNaN(w.Float)
	case TBool:
		return v.Bool == w.Bool
	case TList:
		if len(v.List) != len(w.List) {
			return false
		}
		for i := range v.List {
			if v.List[i] != w.List[i] {
				return false
			}
		}
		return true
	case TSubject:
		return v.Kind == w.Kind && v.Str == w.Str
	}
	return v.Str == w.Str
}

// Literal renders the value as a DKE literal: strings quoted, floats with
// a point, booleans as given (the caller localizes them), subjects as
// Kind.name.
func (v Value) Literal(trueWord, falseWord string) string {
	switch v.Tag {
	case TInt:
		return strconv.FormatInt(v.Int, 10)
	case TFloat:
		return FormatFloat(v.Float)
	case TBool:
		if v.Bool {
			return trueWord
		}
		return falseWord
	case TList:
		parts := make([]string, len(v.List))
		for i, s := range v.List {
			parts[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case TSubject:
		return v.Kind + "." + v.Str
	}
	return strconv.Quote(v.Str)
}

// FormatFloat renders a float the way Python's repr does for the common
// cases: always with a point or an exponent, so it reads as a float.
func FormatFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if strings.ContainsAny(s, ".eEn") { // n: NaN, Inf
		return s
	}
	return s + ".0"
}

// wireValue is a value's canonical JSON form. Integers travel as decimal
// strings, since JSON numbers are doubles and would round above 2^53.
type wireValue struct {
	Type  string   `json:"type"`
	Int   string   `json:"int,omitempty"`
	Float *float64 `json:"float,omitempty"`
	Bool  *bool    `json:"bool,omitempty"`
	Str   *string  `json:"string,omitempty"`
	List  []string `json:"list,omitempty"`
	Kind  string   `json:"kind,omitempty"`
}

// MarshalJSON encodes the value in its canonical wire form.
func (v Value) MarshalJSON() ([]byte, error) {
	w := wireValue{Type: string(v.Tag)}
	switch v.Tag {
	case TInt:
		w.Int = strconv.FormatInt(v.Int, 10)
	case TFloat:
		if math.IsNaN(v.Float) || math.IsInf(v.Float, 0) {
			return nil, fmt.Errorf("claims: %v cannot be stored", v.Float)
		}
		f := v.Float
		w.Float = &f
	case TBool:
		b := v.Bool
		w.Bool = &b
	case TList:
		w.List = append([]string{}, v.List...)
		if w.List == nil {
			w.List = []string{}
		}
	case TString, TSubject:
		s := v.Str
		w.Str = &s
		w.Kind = v.Kind
	default:
		return nil, fmt.Errorf("claims: value of unknown type %q", v.Tag)
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes the wire form.
func (v *Value) UnmarshalJSON(data []byte) error {
	var w wireValue
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*v = Value{Tag: Tag(w.Type), Kind: w.Kind, List: w.List}
	switch v.Tag {
	case TInt:
		i, err := strconv.ParseInt(w.Int, 10, 64)
		if err != nil {
			return fmt.Errorf("claims: int value: %w", err)
		}
		v.Int = i
	case TFloat:
		if w.Float != nil {
			v.Float = *w.Float
		}
	case TBool:
		v.Bool = w.Bool != nil && *w.Bool
	case TString, TSubject:
		if w.Str != nil {
			v.Str = *w.Str
		}
	case TList:
	default:
		return fmt.Errorf("claims: value of unknown type %q", w.Type)
	}
	return nil
}

// Claim is a value at a cell from a source at a logical instant.
type Claim struct {
	Cell   Cell   `json:"cell"`
	Value  Value  `json:"value"`
	Source string `json:"source"`
	// At is the logical instant the claim was recorded at: the store's
	// clock, one tick per claim, never wall-clock time.
	At int64 `json:"at"`
}

// Canonical returns the claim's canonical JSON bytes (RFC 8785).
func (c Claim) Canonical() ([]byte, error) {
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return jcs.Transform(raw)
}

// ID names the claim by the digest of its canonical bytes, as every lore
// object is named.
func (c Claim) ID() (jcs.Digest, error) {
	b, err := c.Canonical()
	if err != nil {
		return jcs.Digest{}, err
	}
	return jcs.Sum(b), nil
}

// before orders claims oldest first; the instant is unique per store, the
// source and value only break ties between stores that never share one.
func before(a, b Claim) bool {
	if a.At != b.At {
		return a.At < b.At
	}
	return a.Source < b.Source
}
