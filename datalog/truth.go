// This file holds the three-valued truth of provenance literals, the grade
// of atoms and the valuation interface the caller implements.

package datalog

// Truth is a Kleene truth value. The order False < Unknown < True is the
// order of the lattice: AND is the minimum, OR the maximum.
type Truth uint8

// The three truth values.
const (
	False Truth = iota
	Unknown
	True
)

// String renders "false", "unknown" or "true".
func (t Truth) String() string {
	switch t {
	case False:
		return "false"
	case Unknown:
		return "unknown"
	case True:
		return "true"
	}
	return "invalid"
}

// Not is Kleene negation: it swaps False and True and keeps Unknown.
func (t Truth) Not() Truth { return True - t }

// Grade is the strength of an atom under a valuation: Certain when its
// support evaluates to True, Possible when Unknown, Dead when False or when
// the atom is not derived at all.
type Grade uint8

// The three grades, in the order of their truth values.
const (
	Dead Grade = iota
	Possible
	Certain
)

// String renders "dead", "possible" or "certain".
func (g Grade) String() string {
	switch g {
	case Dead:
		return "dead"
	case Possible:
		return "possible"
	case Certain:
		return "certain"
	}
	return "invalid"
}

// Truth is the truth value of "the atom holds" (Certain is True).
func (g Grade) Truth() Truth { return Truth(g) }

// Valuation gives each provenance variable a truth value. Implementations
// must be deterministic for the lifetime of a Grader that uses them.
type Valuation interface {
	Truth(v string) Truth
}

// MapValuation is a Valuation backed by a map; variables it does not list
// are Unknown.
type MapValuation map[string]Truth

// Truth returns the mapped value, Unknown when v is not in the map.
func (m MapValuation) Truth(v string) Truth {
	if t, ok := m[v]; ok {
		return t
	}
	return Unknown
}

// ValuationFunc adapts a function to the Valuation interface.
type ValuationFunc func(v string) Truth

// Truth calls f.
func (f ValuationFunc) Truth(v string) Truth { return f(v) }
