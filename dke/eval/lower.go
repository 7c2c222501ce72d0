// Lowering standing rules: a rule's condition and derived cells become
// clauses over the atoms "Kind.attr"(subject, value), with values encoded
// as datalog constants.

package eval

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/syntax"
)

// ruleDecl is a standing rule and the module declaring it.
type ruleDecl struct {
	module string
	def    *syntax.DefStmt
}

// Name is module.rule.
func (r ruleDecl) Name() string { return r.module + "." + r.def.Name.Name }

// clause is one lowered derivation: a head cell and its condition.
type clause struct {
	rule  string
	head  rlit
	body  []rlit
	never bool // a comparison of two literals that is false
}

// rterm is a rule term: a variable (v) or a constant key (c).
type rterm struct{ v, c string }

// rlit is a cell test (pred, subject, value; value a fresh variable for
// "holds a value"), possibly negated, or a comparison of two terms.
type rlit struct {
	pred     string
	subj     rterm
	val      rterm
	anyValue bool
	neg      bool
	cmp      bool
	op       syntax.Op
	x, y     rterm
}

// key encodes a value as a datalog constant. Numbers share one space so
// that 25 and 25.0 join; a subject and the string of its name are one
// constant, so a value can name the subject of another cell.
func key(v claims.Value) string {
	switch v.Tag {
	case claims.TInt:
		return "n:" + strconv.FormatInt(v.Int, 10)
	case claims.TFloat:
		if v.Float == math.Trunc(v.Float) && math.Abs(v.Float) < 1<<53 {
			return "n:" + strconv.FormatInt(int64(v.Float), 10)
		}
		return "n:" + strconv.FormatFloat(v.Float, 'g', -1, 64)
	case claims.TBool:
		return "b:" + strconv.FormatBool(v.Bool)
	case claims.TList:
		b, _ := json.Marshal(v.List)
		return "l:" + string(b)
	}
	return "s:" + v.Str
}

// unkey decodes a constant back into a runtime value.
func unkey(k string) value {
	body := k[2:]
	switch k[:2] {
	case "n:":
		if i, err := strconv.ParseInt(body, 10, 64); err == nil {
			return i
		}
		f, _ := strconv.ParseFloat(body, 64)
		return f
	case "b:":
		return body == "true"
	case "l:":
		var xs []string
		_ = json.Unmarshal([]byte(body), &xs)
		return xs
	}
	return body
}

// lowerRule turns a rule's body into clauses.
func lowerRule(r ruleDecl) []clause {
	var out []clause
	fresh := 0
	lw := &lowerer{fresh: &fresh}
	for _, s := range r.def.Body {
		switch s := s.(type) {
		case *syntax.IfStmt:
			body, never := lw.cond(s.Cond)
			for _, h := range s.Then {
				if head, ok := lw.head(h); ok {
					out = append(out, clause{rule: r.Name(), head: head, body: body, never: never})
				}
			}
		case *syntax.AssignStmt:
			if head, ok := lw.head(s); ok {
				out = append(out, clause{rule: r.Name(), head: head})
			}
		}
	}
	return out
}

type lowerer struct{ fresh *int }

func (lw *lowerer) freshVar() rterm {
	*lw.fresh++
	return rterm{v: "\x00v" + strconv.Itoa(*lw.fresh)}
}

func (lw *lowerer) head(s syntax.Stmt) (rlit, bool) {
	a, ok := s.(*syntax.AssignStmt)
	if !ok {
		return rlit{}, false
	}
	pred, subj, ok := ruleCell(a.LHS)
	if !ok {
		return rlit{}, false
	}
	val, ok := ruleTerm(a.RHS)
	return rlit{pred: pred, subj: subj, val: val}, ok
}

// cond flattens a checked rule condition; never reports a comparison of
// constants that is false.
func (lw *lowerer) cond(e syntax.Expr) (lits []rlit, never bool) {
	switch x := e.(type) {
	case *syntax.ParenExpr:
		return lw.cond(x.X)
	case *syntax.UnaryExpr:
		if x.Op == syntax.NotOp {
			inner, nv := lw.cond(x.X)
			if len(inner) == 1 {
				inner[0].neg = true
			}
			return inner, nv
		}
	case *syntax.BinaryExpr:
		if x.Op == syntax.AndOp {
			a, n1 := lw.cond(x.X)
			b, n2 := lw.cond(x.Y)
			return append(a, b...), n1 || n2
		}
		return lw.compare(x)
	}
	if pred, subj, ok := ruleCell(e); ok {
		return []rlit{{pred: pred, subj: subj, val: lw.freshVar(), anyValue: true}}, false
	}
	return nil, false
}

func (lw *lowerer) compare(x *syntax.BinaryExpr) ([]rlit, bool) {
	var lits []rlit
	side := func(e syntax.Expr) rterm {
		if pred, subj, ok := ruleCell(e); ok {
			v := lw.freshVar()
			lits = append(lits, rlit{pred: pred, subj: subj, val: v})
			return v
		}
		t, _ := ruleTerm(e)
		return t
	}
	if x.Op == syntax.Eql {
		p1, s1, ok1 := ruleCell(x.X)
		if t, isTerm := ruleTerm(x.Y); ok1 && isTerm {
			return []rlit{{pred: p1, subj: s1, val: t}}, false
		}
		p2, s2, ok2 := ruleCell(x.Y)
		if t, isTerm := ruleTerm(x.X); ok2 && isTerm {
			return []rlit{{pred: p2, subj: s2, val: t}}, false
		}
	}
	tx, ty := side(x.X), side(x.Y)
	if tx.v == "" && ty.v == "" {
		return lits, !compareKeys(x.Op, tx.c, ty.c)
	}
	return append(lits, rlit{cmp: true, op: x.Op, x: tx, y: ty}), false
}

// ruleCell matches Kind.subject.attr or Kind[term].attr.
func ruleCell(e syntax.Expr) (pred string, subj rterm, ok bool) {
	d, isDot := e.(*syntax.DotExpr)
	if !isDot {
		return "", rterm{}, false
	}
	var base syntax.Expr
	switch b := d.X.(type) {
	case *syntax.DotExpr:
		base, subj = b.X, rterm{c: "s:" + b.Name.Name}
	case *syntax.IndexExpr:
		base = b.X
		if subj, ok = ruleTerm(b.Index); !ok {
			return "", rterm{}, false
		}
	default:
		return "", rterm{}, false
	}
	id, isIdent := base.(*syntax.Ident)
	if !isIdent {
		return "", rterm{}, false
	}
	return id.Name + "." + d.Name.Name, subj, true
}

// ruleTerm matches a variable or a literal.
func ruleTerm(e syntax.Expr) (rterm, bool) {
	switch x := e.(type) {
	case *syntax.Ident:
		return rterm{v: x.Name}, true
	case *syntax.BoolLit:
		return rterm{c: key(claims.Bool(x.Value))}, true
	case *syntax.Literal:
		switch v := x.Value.(type) {
		case int64:
			return rterm{c: key(claims.Int(v))}, true
		case float64:
			return rterm{c: key(claims.Float(v))}, true
		case string:
			return rterm{c: key(claims.Str(v))}, true
		}
	case *syntax.UnaryExpr:
		if l, ok := x.X.(*syntax.Literal); ok && x.Op == syntax.Neg {
			switch v := l.Value.(type) {
			case int64:
				return rterm{c: key(claims.Int(-v))}, true
			case float64:
				return rterm{c: key(claims.Float(-v))}, true
			}
		}
	}
	return rterm{}, false
}

// compareKeys compares two constants: numbers as numbers, strings as
// strings; values of different types are only ever unequal. It is the
// engine's comparison (datalog.CompareConsts), so that a comparison folded
// here and one the engine tests agree.
func compareKeys(op syntax.Op, a, b string) bool {
	return datalog.CompareConsts(cmpOp(op), a, b)
}

// cmpOp is the engine's operator of a comparison; 0 (which holds of
// nothing) for another operator.
func cmpOp(op syntax.Op) datalog.CmpOp {
	switch op {
	case syntax.Eql:
		return datalog.CmpEq
	case syntax.Neq:
		return datalog.CmpNe
	case syntax.Lss:
		return datalog.CmpLt
	case syntax.Leq:
		return datalog.CmpLe
	case syntax.Gtr:
		return datalog.CmpGt
	case syntax.Geq:
		return datalog.CmpGe
	}
	return 0
}

func (t rterm) term() datalog.Term {
	if t.v != "" {
		return datalog.V(t.v)
	}
	return datalog.C(t.c)
}
