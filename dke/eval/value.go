// Runtime values, their rendering, and conversion to and from claim values.

package eval

import (
	"strconv"
	"strings"

	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/keywords"
)

// A runtime value is one of: int64, float64, bool, string, []string,
// subject, cellVal, *resultVal, *proofVal, *explVal, *errVal, kindRef,
// moduleRef.
type value = any

// subject is a subject of a kind: Sensor.s1.
type subject struct{ kind, name string }

// cellVal is an address Kind.subject.attribute.
type cellVal = claims.Cell

// kindRef is a kind name before its subject: the Sensor of Sensor.s1.
type kindRef string

// moduleRef is an imported module before its script: m of m.f().
type moduleRef string

// resultVal is what current and list claims of return.
type resultVal struct {
	cell  claims.Cell
	found bool
	val   value
	src   string
	at    int64
}

// proofVal is why's proof tree.
type proofVal struct {
	found   bool
	val     value
	derived bool
	rule    string
	sources []string
	text    string
}

// explVal is why_not's explanation.
type explVal struct {
	found bool
	needs []string
	text  string
}

// errVal is the error an except clause binds.
type errVal struct {
	kind keywords.ID
	msg  string
}

// fromClaim turns a stored value into a runtime one.
func fromClaim(v claims.Value) value {
	switch v.Tag {
	case claims.TInt:
		return v.Int
	case claims.TFloat:
		return v.Float
	case claims.TBool:
		return v.Bool
	case claims.TList:
		return append([]string{}, v.List...)
	case claims.TSubject:
		return subject{v.Kind, v.Str}
	}
	return v.Str
}

// toClaim turns a runtime value into a storable one; ok is false for the
// values that are not data (cells, results, …).
func toClaim(v value) (claims.Value, bool) {
	switch x := v.(type) {
	case int64:
		return claims.Int(x), true
	case float64:
		return claims.Float(x), true
	case bool:
		return claims.Bool(x), true
	case string:
		return claims.Str(x), true
	case []string:
		return claims.List(x), true
	case subject:
		return claims.Subject(x.kind, x.name), true
	}
	return claims.Value{}, false
}

// typeName is the type of a value as the surface writes it.
func typeName(l keywords.Lang, v value) string {
	switch x := v.(type) {
	case int64:
		return keywords.Word(l, keywords.Int)
	case float64:
		return keywords.Word(l, keywords.Float)
	case bool:
		return keywords.Word(l, keywords.Bool)
	case string:
		return keywords.Word(l, keywords.String)
	case []string:
		return keywords.Word(l, keywords.StringList)
	case subject:
		return x.kind
	case cellVal:
		return "cell"
	case *resultVal:
		return "result"
	case *proofVal:
		return "proof_tree"
	case *explVal:
		return "explanation"
	case *errVal:
		return "error"
	}
	return "value"
}

// literal renders a value as source would write it (strings quoted).
func literal(l keywords.Lang, v value) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return show(l, v)
}

// show renders a value as print writes it.
func show(l keywords.Lang, v value) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return claims.FormatFloat(x)
	case bool:
		if x {
			return keywords.Word(l, keywords.True)
		}
		return keywords.Word(l, keywords.False)
	case string:
		return x
	case []string:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case subject:
		return x.kind + "." + x.name
	case cellVal:
		return x.String()
	case *resultVal:
		if !x.found {
			return x.cell.String() + ": " + word(l, wMissing)
		}
		return x.cell.String() + " = " + literal(l, x.val)
	case *proofVal:
		return x.text
	case *explVal:
		return x.text
	case *errVal:
		return x.msg
	case kindRef:
		return string(x)
	case moduleRef:
		return string(x)
	}
	return "?"
}

// equal compares two values; ints and floats mix.
func equal(a, b value) bool {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case float64:
			return float64(x) == y
		}
		return false
	case float64:
		switch y := b.(type) {
		case int64:
			return x == float64(y)
		case float64:
			return x == y
		}
		return false
	case []string:
		y, ok := b.([]string)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	case bool, string, subject, cellVal:
		return a == b
	}
	return false
}
