// This file holds the built-in comparisons of a rule body: the literal
// type, how constants compare, the checks AddRule makes of a comparison,
// and its test during a join. A comparison reads no predicate and has no
// support of its own: it filters the matches of the atoms that bind its
// variables, so it changes no stratum, support, grade or why-path.

package datalog

import (
	"fmt"
	"strconv"
	"strings"
)

// CmpOp is the operator of a built-in comparison.
type CmpOp uint8

// The comparison operators; the zero CmpOp is no comparison.
const (
	CmpEq CmpOp = iota + 1 // ==
	CmpNe                  // !=
	CmpLt                  // <
	CmpLe                  // <=
	CmpGt                  // >
	CmpGe                  // >=
	numCmpOps
)

// String returns the operator as written: ==, !=, <, <=, > or >=.
func (op CmpOp) String() string {
	if op == 0 || op >= numCmpOps {
		return fmt.Sprintf("CmpOp(%d)", uint8(op))
	}
	return [...]string{"", "==", "!=", "<", "<=", ">", ">="}[op]
}

// Comparison is a built-in comparison of two terms, X Op Y. Its variables
// must be bound by positive body atoms; it holds or not of their values,
// by CompareConsts.
type Comparison struct {
	Op   CmpOp
	X, Y Term
}

// Cmp returns the body literal "x op y".
func Cmp(op CmpOp, x, y Term) Literal { return Literal{Cmp: Comparison{Op: op, X: x, Y: y}} }

// IsComparison reports whether the literal is a built-in comparison.
func (l Literal) IsComparison() bool { return l.Cmp.Op != 0 }

// CompareConsts reports whether "a op b" holds of two constants. A
// constant's kind is its text up to and including its first colon (the
// empty kind when it has none). Constants of different kinds are only
// ever unequal: != holds and every other operator fails. Two constants of
// kind "n:" compare as the numbers the rest of each spells
// (strconv.ParseFloat; a rest that does not parse counts as what
// ParseFloat returns with its error); two of any other one kind compare
// as strings, byte by byte. An unknown operator holds of nothing.
func CompareConsts(op CmpOp, a, b string) bool {
	ka, kb := constKind(a), constKind(b)
	if ka != kb {
		return op == CmpNe
	}
	var c int
	if ka == "n:" {
		x, _ := strconv.ParseFloat(a[2:], 64)
		y, _ := strconv.ParseFloat(b[2:], 64)
		c = cmpFloat(x, y)
	} else {
		c = strings.Compare(a, b)
	}
	return opHolds(op, c)
}

// constKind returns the kind of a constant: its text through its first
// colon.
func constKind(s string) string {
	if i := strings.IndexByte(s, ':'); i >= 0 {
		return s[:i+1]
	}
	return ""
}

// cmpFloat is -1, 0 or 1; NaN is equal to every number, as neither is
// smaller.
func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func opHolds(op CmpOp, c int) bool {
	switch op {
	case CmpEq:
		return c == 0
	case CmpNe:
		return c != 0
	case CmpLt:
		return c < 0
	case CmpLe:
		return c <= 0
	case CmpGt:
		return c > 0
	case CmpGe:
		return c >= 0
	}
	return false
}

// checkComparisons checks a rule's comparison literals: a known operator,
// two valid terms, no atom or negation beside the comparison, and every
// variable bound by a positive body atom (the comparison filters matches;
// it does not enumerate values).
func checkComparisons(r Rule) error {
	bound := map[string]bool{}
	for _, l := range r.Body {
		if !l.Negated && !l.IsComparison() {
			for _, t := range l.Atom.Args {
				bound[t.Var] = true
			}
		}
	}
	for i, l := range r.Body {
		if !l.IsComparison() {
			continue
		}
		c := l.Cmp
		where := fmt.Sprintf("the comparison %s %s %s (body literal %d) of %s", termText(c.X), c.Op, termText(c.Y), i+1, ruleLabel(r.Name))
		switch {
		case c.Op >= numCmpOps:
			return &Error{Code: CodeInvalidTerm, Rule: r.Name, Message: fmt.Sprintf(
				"%s has an unknown operator; use one of CmpEq, CmpNe, CmpLt, CmpLe, CmpGt, CmpGe", where)}
		case l.Negated || l.Atom.Pred != "" || len(l.Atom.Args) > 0:
			return &Error{Code: CodeInvalidTerm, Rule: r.Name, Message: fmt.Sprintf(
				"%s also sets an atom or Negated; a comparison literal sets Cmp alone (negate it by its operator)", where)}
		}
		for _, t := range []Term{c.X, c.Y} {
			if (t.Var == "") == (t.Const == "") {
				return &Error{Code: CodeInvalidTerm, Rule: r.Name, Message: fmt.Sprintf(
					"a term of %s sets both or neither of Var and Const; set exactly one", where)}
			}
			if t.Var == Anon {
				return &Error{Code: CodeUnboundVariable, Rule: r.Name, Var: t.Var, Message: fmt.Sprintf(
					"the anonymous variable _ in %s is never bound; name the variable and bind it in a positive body atom", where)}
			}
			if t.Var != "" && !bound[t.Var] {
				return &Error{Code: CodeUnboundVariable, Rule: r.Name, Var: t.Var, Message: fmt.Sprintf(
					"variable %s in %s is bound by no positive body atom; a comparison only tests values, so add a positive body atom that binds %s",
					t.Var, where, t.Var)}
			}
		}
	}
	return nil
}

func termText(t Term) string {
	if t.Var != "" {
		return t.Var
	}
	return renderConst(t.Const)
}

// ccmp is a compiled comparison.
type ccmp struct {
	op   CmpOp
	x, y cterm
}

// compileCmp compiles a checked comparison over the rule's slots (every
// variable of it has one, from a positive atom).
func (p *Program) compileCmp(c Comparison, slots map[string]int32) ccmp {
	term := func(t Term) cterm {
		if t.Var == "" {
			return cterm{slot: -1, c: p.consts.intern(t.Const)}
		}
		return cterm{slot: slots[t.Var]}
	}
	return ccmp{op: c.Op, x: term(c.X), y: term(c.Y)}
}

// placeCmps returns the comparisons whose variables are all bound and that
// are not placed yet, marking them placed.
func placeCmps(r *ruleRec, bound, placed []bool) []int {
	var out []int
	for i, c := range r.cmps {
		if placed[i] || c.x.slot >= 0 && !bound[c.x.slot] || c.y.slot >= 0 && !bound[c.y.slot] {
			continue
		}
		placed[i] = true
		out = append(out, i)
	}
	return out
}

// cmpsOK tests comparisons whose variables are bound. A match a
// comparison rejects is no derivation, so it is charged as a row read
// (tick): a join whose index lookups a comparison rejects one by one
// would otherwise never look at its budget's clock.
func (e *evaluator) cmpsOK(cmps []int) bool {
	for _, k := range cmps {
		c := &e.pl.rule.cmps[k]
		if !CompareConsts(c.op, e.constName(e.termVal(c.x)), e.constName(e.termVal(c.y))) {
			e.tick()
			return false
		}
	}
	return true
}

func (e *evaluator) termVal(t cterm) uint32 {
	if t.slot < 0 {
		return t.c
	}
	return e.slots[t.slot]
}

// constName returns the name of a constant id from the evaluator's view
// of the interner, taken again when it is older than the id.
func (e *evaluator) constName(id uint32) string {
	if int(id) >= e.names.len() {
		e.names = e.m.consts.snapshot()
	}
	return e.names.at(id)
}
