// This file holds Poly, the public, immutable support polynomial: a sum of
// monomials, each a product (set) of provenance literals, kept minimal by
// absorption and in canonical order.

package datalog

import (
	"slices"
	"strings"
)

// Poly is a support polynomial in canonical form: each monomial a sorted set
// of literals, monomials sorted by length and then lexicographically, no
// monomial a superset of another. It is an immutable value; the zero value
// is the zero polynomial ("not derived") and One() is the unconditional
// polynomial {{}}. A literal is a provenance variable the caller named, or a
// negated atom of a Model rendered "not pred(a, b)"; the latter is evaluated
// by grading that atom in its model.
type Poly struct {
	d *polyData
}

type polyData struct {
	mons  [][]plit
	trunc bool
	// exact, when set, is the atom whose support this is: Eval of a
	// truncated support grades that atom instead of the kept monomials.
	exact *atomRef
}

// plit is one literal of a public polynomial. neg is nil for a variable;
// otherwise the literal is the negation of that atom.
type plit struct {
	name string
	neg  *atomRef
}

// atomRef points at an atom of a model.
type atomRef struct {
	m    *Model
	pred uint32
	row  uint32
}

// cmpLit orders literals by their rendering; a variable sorts before a
// negated atom that renders the same, and negated atoms of different models
// by model serial.
func cmpLit(a, b plit) int {
	if c := strings.Compare(a.name, b.name); c != 0 {
		return c
	}
	switch {
	case a.neg == b.neg:
		return 0
	case a.neg == nil:
		return -1
	case b.neg == nil:
		return 1
	}
	if a.neg.m.serial != b.neg.m.serial {
		return cmpInt(a.neg.m.serial, b.neg.m.serial)
	}
	if a.neg.pred != b.neg.pred {
		return cmpInt(a.neg.pred, b.neg.pred)
	}
	return cmpInt(a.neg.row, b.neg.row)
}

func cmpInt[T ~int | ~uint32 | ~uint64 | ~int32](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpMono orders monomials by length, then lexicographically.
func cmpMono(a, b []plit) int {
	if len(a) != len(b) {
		return cmpInt(len(a), len(b))
	}
	for i := range a {
		if c := cmpLit(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// subsetLits reports whether sorted a is a subset of sorted b.
func subsetLits(a, b []plit) bool {
	if len(a) > len(b) {
		return false
	}
	j := 0
	for _, x := range a {
		for j < len(b) && cmpLit(b[j], x) < 0 {
			j++
		}
		if j == len(b) || cmpLit(b[j], x) != 0 {
			return false
		}
		j++
	}
	return true
}

// normalize sorts every monomial, drops duplicate literals, absorbs and
// sorts the monomials. It owns mons.
func normalize(mons [][]plit, trunc bool) Poly {
	if len(mons) == 0 {
		if trunc {
			return Poly{&polyData{trunc: true}}
		}
		return Poly{}
	}
	for i, m := range mons {
		slices.SortFunc(m, cmpLit)
		mons[i] = slices.CompactFunc(m, func(a, b plit) bool { return cmpLit(a, b) == 0 })
	}
	slices.SortFunc(mons, cmpMono)
	kept := mons[:0]
	for _, m := range mons {
		absorbed := false
		for _, k := range kept {
			if subsetLits(k, m) {
				absorbed = true
				break
			}
		}
		if !absorbed {
			kept = append(kept, m)
		}
	}
	return Poly{&polyData{mons: kept, trunc: trunc}}
}

// One returns the unconditional polynomial {{}}.
func One() Poly { return Poly{&polyData{mons: [][]plit{{}}}} }

// VarPoly returns the polynomial {{name}} of one provenance variable.
func VarPoly(name string) Poly {
	return Poly{&polyData{mons: [][]plit{{{name: name}}}}}
}

// NewPoly returns the sum of the given monomials, each a product of
// provenance variables. NewPoly() is zero; NewPoly(nil) is One.
func NewPoly(monomials ...[]string) Poly {
	mons := make([][]plit, len(monomials))
	for i, m := range monomials {
		ls := make([]plit, len(m))
		for j, v := range m {
			ls[j] = plit{name: v}
		}
		mons[i] = ls
	}
	return normalize(mons, false)
}

func (p Poly) mons() [][]plit {
	if p.d == nil {
		return nil
	}
	return p.d.mons
}

// IsZero reports whether p is the zero polynomial: no monomial, not derived.
// A truncated polynomial whose every monomial was cut is zero but Truncated.
func (p Poly) IsZero() bool { return len(p.mons()) == 0 }

// IsOne reports whether p is the unconditional polynomial {{}}.
func (p Poly) IsOne() bool { m := p.mons(); return len(m) == 1 && len(m[0]) == 0 }

// Truncated reports whether monomials of the atom's full support were cut by
// the program's bounds, here or in a support it was derived from. The kept
// monomials are genuine derivations; grades never depend on the cut.
func (p Poly) Truncated() bool { return p.d != nil && p.d.trunc }

// Truncate returns p flagged as truncated: a caller that kept only some
// of a support's monomials says so. It evaluates on its kept monomials.
func (p Poly) Truncate() Poly {
	mons := make([][]plit, len(p.mons()))
	for i, m := range p.mons() {
		mons[i] = slices.Clone(m)
	}
	return normalize(mons, true)
}

// Add returns p + q: the union of the monomials, absorbed.
func (p Poly) Add(q Poly) Poly {
	if p.IsZero() && !p.Truncated() {
		return q
	}
	if q.IsZero() && !q.Truncated() {
		return p
	}
	mons := make([][]plit, 0, len(p.mons())+len(q.mons()))
	for _, m := range p.mons() {
		mons = append(mons, slices.Clone(m))
	}
	for _, m := range q.mons() {
		mons = append(mons, slices.Clone(m))
	}
	return normalize(mons, p.Truncated() || q.Truncated())
}

// Sum returns the sum of ps, absorbed once: cheaper than adding them one
// by one when there are many.
func Sum(ps ...Poly) Poly {
	var mons [][]plit
	trunc := false
	for _, p := range ps {
		trunc = trunc || p.Truncated()
		for _, m := range p.mons() {
			mons = append(mons, slices.Clone(m))
		}
	}
	return normalize(mons, trunc)
}

// Mul returns p × q: the pairwise unions of the monomials, absorbed.
func (p Poly) Mul(q Poly) Poly {
	pm, qm := p.mons(), q.mons()
	mons := make([][]plit, 0, len(pm)*len(qm))
	for _, a := range pm {
		for _, b := range qm {
			m := make([]plit, 0, len(a)+len(b))
			mons = append(mons, append(append(m, a...), b...))
		}
	}
	return normalize(mons, p.Truncated() || q.Truncated())
}

// Monomials returns the monomials in canonical order, each a sorted list of
// literal renderings. A negated atom renders as "not pred(a, b)". One
// returns [[]]; zero returns [] (non-nil).
func (p Poly) Monomials() [][]string {
	out := make([][]string, len(p.mons()))
	for i, m := range p.mons() {
		s := make([]string, len(m))
		for j, l := range m {
			s[j] = l.name
		}
		out[i] = s
	}
	return out
}

// Equal reports whether p and q have the same monomials and truncation.
func (p Poly) Equal(q Poly) bool {
	if p.Truncated() != q.Truncated() || len(p.mons()) != len(q.mons()) {
		return false
	}
	for i, m := range p.mons() {
		if cmpMono(m, q.mons()[i]) != 0 {
			return false
		}
	}
	return true
}

// String renders p: "0" for zero, otherwise the monomials as "{a, b}"
// joined by " + " (One is "{}"), with " + …" appended when truncated.
func (p Poly) String() string {
	var b strings.Builder
	if p.IsZero() {
		b.WriteString("0")
	}
	for i, m := range p.mons() {
		if i > 0 {
			b.WriteString(" + ")
		}
		b.WriteByte('{')
		for j, l := range m {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(l.name)
		}
		b.WriteByte('}')
	}
	if p.Truncated() {
		b.WriteString(" + …")
	}
	return b.String()
}

// Eval evaluates p under v in Kleene logic: OR over monomials of AND over
// literals. Variables take their truth from v; a negated atom is the
// negation of that atom's truth in its model under v. Zero is False.
//
// A truncated support returned by Model.Support is evaluated exactly (it
// grades its atom); a truncated polynomial built from it by Add or Mul is
// evaluated on its kept monomials, a lower bound.
func (p Poly) Eval(v Valuation) Truth {
	if p.d != nil && p.d.trunc && p.d.exact != nil {
		e := p.d.exact
		return e.m.Grader(v).gradeAtom(e.pred, e.row).Truth()
	}
	var graders map[*Model]*Grader
	best := False
	for _, m := range p.mons() {
		t := True
		for _, l := range m {
			var lt Truth
			if l.neg == nil {
				lt = v.Truth(l.name)
			} else {
				if graders == nil {
					graders = map[*Model]*Grader{}
				}
				g := graders[l.neg.m]
				if g == nil {
					g = l.neg.m.Grader(v)
					graders[l.neg.m] = g
				}
				lt = g.gradeAtom(l.neg.pred, l.neg.row).Truth().Not()
			}
			t = min(t, lt)
			if t == False {
				break
			}
		}
		best = max(best, t)
		if best == True {
			break
		}
	}
	return best
}
