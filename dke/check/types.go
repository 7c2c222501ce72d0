// Types: the value types a program writes, the result types verbs return,
// and the rules for assigning, comparing and combining them.

package check

import (
	"fmt"

	"github.com/deloreis/deloreis/dke/keywords"
)

// Tag is the shape of a type.
type Tag uint8

// The type tags.
const (
	TInvalid     Tag = iota // the type of an erroneous expression; accepted everywhere
	TNone                   // the "type" of a procedure call: no value
	TInt                    // int
	TFloat                  // float
	TBool                   // bool
	TString                 // string
	TValue                  // a claim's value at a kind no class declares: checked when the program runs
	TSubject                // a subject of kind KindName
	TList                   // a finite collection of Elem (string_list when Elem is TString)
	TCell                   // the cell KindName.<subject>.Attr (Attr "" when computed)
	TResult                 // what current() returns and list claims of holds
	TProofTree              // what why() returns
	TExplanation            // what why_not() returns
	TError                  // what `except kind as e` binds
)

// Type is a DKE Python type.
type Type struct {
	Tag Tag
	// Elem is a list's element tag: TString, TSubject or TResult.
	Elem Tag
	// KindName is the kind of a subject, a cell, a result, a proof tree, or
	// a list of subjects or results.
	KindName string
	// Attr is the attribute of a cell, result or proof tree, "" when it is
	// computed at run time.
	Attr string
}

// The simple types.
var (
	Invalid     = Type{Tag: TInvalid}
	NoValue     = Type{Tag: TNone}
	Int         = Type{Tag: TInt}
	Float       = Type{Tag: TFloat}
	Bool        = Type{Tag: TBool}
	String      = Type{Tag: TString}
	Value       = Type{Tag: TValue}
	StringList  = Type{Tag: TList, Elem: TString}
	ErrorType   = Type{Tag: TError}
	Explanation = Type{Tag: TExplanation}
)

// Subject returns the type of a subject of kind k.
func Subject(k string) Type { return Type{Tag: TSubject, KindName: k} }

// ElemType returns the element type of a list.
func (t Type) ElemType() Type {
	switch t.Elem {
	case TString:
		return String
	case TSubject:
		return Subject(t.KindName)
	case TResult:
		return Type{Tag: TResult, KindName: t.KindName, Attr: t.Attr}
	}
	return Invalid
}

// Text renders the type with surface l's words.
func (t Type) Text(l keywords.Lang) string {
	w := func(id keywords.ID) string { return keywords.Word(l, id) }
	switch t.Tag {
	case TInvalid:
		return "invalid"
	case TNone:
		return "no value"
	case TInt:
		return w(keywords.Int)
	case TFloat:
		return w(keywords.Float)
	case TBool:
		return w(keywords.Bool)
	case TString:
		return w(keywords.String)
	case TValue:
		return "value"
	case TSubject:
		return t.KindName
	case TList:
		if t.Elem == TString {
			return w(keywords.StringList)
		}
		return "list of " + t.ElemType().Text(l)
	case TCell:
		return "cell " + t.KindName + "." + orQ(t.Attr)
	case TResult:
		return "result"
	case TProofTree:
		return "proof_tree"
	case TExplanation:
		return "explanation"
	case TError:
		return "error"
	}
	return "?"
}

func orQ(s string) string {
	if s == "" {
		return "[…]"
	}
	return s
}

// String renders the type with eng words.
func (t Type) String() string { return t.Text(keywords.Eng) }

// Writable reports whether the type can be written in a parameter or
// result annotation (and so stored in a ModuleInfo).
func (t Type) Writable() bool {
	switch t.Tag {
	case TInt, TFloat, TBool, TString, TSubject:
		return true
	case TList:
		return t.Elem == TString
	}
	return false
}

// MarshalText renders a writable type by its eng word or kind name.
func (t Type) MarshalText() ([]byte, error) {
	if t.Tag == TNone {
		return []byte{}, nil
	}
	if !t.Writable() {
		return nil, fmt.Errorf("type %s cannot be stored", t)
	}
	return []byte(t.String()), nil
}

// UnmarshalText parses what MarshalText renders.
func (t *Type) UnmarshalText(b []byte) error {
	s := string(b)
	if s == "" {
		*t = NoValue
		return nil
	}
	if id, ok := keywords.Lookup(keywords.Eng, s); ok && id.Group() == keywords.Type {
		*t = builtinType(id)
		return nil
	}
	*t = Subject(s)
	return nil
}

// builtinType returns the type a type keyword names.
func builtinType(id keywords.ID) Type {
	switch id {
	case keywords.Int:
		return Int
	case keywords.Float:
		return Float
	case keywords.Bool:
		return Bool
	case keywords.String:
		return String
	case keywords.StringList:
		return StringList
	}
	return Invalid
}

// isScalar reports whether t is a value a claim can hold.
func (t Type) isScalar() bool {
	switch t.Tag {
	case TInt, TFloat, TBool, TString, TValue, TSubject, TInvalid:
		return true
	}
	return false
}

func (t Type) isNumeric() bool { return t.Tag == TInt || t.Tag == TFloat }

// dynamic reports whether t is checked only at run time (or already wrong).
func (t Type) dynamic() bool { return t.Tag == TValue || t.Tag == TInvalid }

// assignable reports whether a value of type src may be used where dst is
// expected.
func assignable(dst, src Type) bool {
	switch {
	case dst == src, dst.Tag == TInvalid, src.Tag == TInvalid:
		return true
	case dst.Tag == TFloat && src.Tag == TInt:
		return true
	case dst.Tag == TValue && src.isScalar(), src.Tag == TValue && dst.isScalar():
		return true
	}
	return false
}

// comparable reports whether == and != may compare x and y.
func comparable(x, y Type) bool {
	if x.isNumeric() && y.isNumeric() {
		return true
	}
	if x.dynamic() && (y.isScalar() || y.dynamic()) || y.dynamic() && x.isScalar() {
		return true
	}
	return x == y && (x.isScalar() || x.Tag == TList && x.Elem == TString)
}

// ordered reports whether <, <=, >, >= may compare x and y.
func ordered(x, y Type) bool {
	if x.isNumeric() && y.isNumeric() {
		return true
	}
	if x.dynamic() && (y.dynamic() || y.isNumeric() || y.Tag == TString) || y.dynamic() && (x.isNumeric() || x.Tag == TString) {
		return true
	}
	return x.Tag == TString && y.Tag == TString
}
