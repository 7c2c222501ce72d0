// Expressions: names, cells and subjects, fields, indexing and operators.

package eval

import (
	"math"
	"strconv"

	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

func (in *interp) expr(fr *frame, e syntax.Expr) (value, error) {
	p, _ := e.Span()
	if err := in.step(p, 1); err != nil {
		return nil, err
	}
	switch e := e.(type) {
	case *syntax.Literal:
		return e.Value, nil
	case *syntax.BoolLit:
		return e.Value, nil
	case *syntax.ParenExpr:
		return in.expr(fr, e.X)
	case *syntax.ListExpr:
		out := make([]string, 0, len(e.Elems))
		for _, x := range e.Elems {
			v, err := in.expr(fr, x)
			if err != nil {
				return nil, err
			}
			s, ok := v.(string)
			if !ok {
				return nil, fail(keywords.Conversion, p, mConversion, show(fr.lang, v), keywords.Word(fr.lang, keywords.String))
			}
			out = append(out, s)
		}
		return out, nil
	case *syntax.Ident:
		if v, ok := fr.vars[e.Name]; ok {
			return v, nil
		}
		if fr.info.imports[e.Name] {
			return moduleRef(e.Name), nil
		}
		return kindRef(e.Name), nil
	case *syntax.DotExpr:
		x, err := in.expr(fr, e.X)
		if err != nil {
			return nil, err
		}
		return in.field(fr, x, e.Name.Name, e.Name.NamePos)
	case *syntax.IndexExpr:
		return in.indexExpr(fr, e)
	case *syntax.CallExpr:
		return in.call(fr, e)
	case *syntax.CollectionExpr:
		return in.collection(fr, e)
	case *syntax.UnaryExpr:
		return in.unary(fr, e)
	case *syntax.BinaryExpr:
		return in.binary(fr, e)
	}
	return nil, fail(keywords.Error, p, mNotData, "expression")
}

// field is x.name: a subject of a kind, a cell of a subject, or a field
// of a result.
func (in *interp) field(fr *frame, x value, name string, p syntax.Pos) (value, error) {
	switch x := x.(type) {
	case kindRef:
		return subject{string(x), name}, nil
	case subject:
		return cellVal{Kind: x.kind, Subject: x.name, Attr: name}, nil
	case *resultVal:
		switch name {
		case "value":
			if !x.found {
				return nil, fail(keywords.Missing, p, mMissing, x.cell.String())
			}
			return x.val, nil
		case "found":
			return x.found, nil
		case "source":
			return x.src, nil
		case "at":
			return x.at, nil
		case "kind":
			return x.cell.Kind, nil
		case "subject":
			return x.cell.Subject, nil
		case "attribute":
			return x.cell.Attr, nil
		}
	case *proofVal:
		switch name {
		case "value":
			if !x.found {
				return nil, fail(keywords.Missing, p, mMissing, x.text)
			}
			return x.val, nil
		case "found":
			return x.found, nil
		case "derived":
			return x.derived, nil
		case "rule":
			return x.rule, nil
		case "sources":
			return append([]string{}, x.sources...), nil
		case "text":
			return x.text, nil
		}
	case *explVal:
		switch name {
		case "found":
			return x.found, nil
		case "needs":
			return append([]string{}, x.needs...), nil
		case "text":
			return x.text, nil
		}
	case *errVal:
		switch name {
		case "kind":
			return keywords.Word(fr.lang, x.kind), nil
		case "message":
			return x.msg, nil
		}
	}
	return nil, fail(keywords.Error, p, mNotData, show(fr.lang, x)+"."+name)
}

func (in *interp) indexExpr(fr *frame, e *syntax.IndexExpr) (value, error) {
	x, err := in.expr(fr, e.X)
	if err != nil {
		return nil, err
	}
	i, err := in.expr(fr, e.Index)
	if err != nil {
		return nil, err
	}
	p, _ := e.Index.Span()
	switch x := x.(type) {
	case kindRef, subject:
		s, ok := i.(string)
		if !ok {
			return nil, fail(keywords.Conversion, p, mConversion, show(fr.lang, i), keywords.Word(fr.lang, keywords.String))
		}
		return in.field(fr, x, s, p)
	case []string:
		n, err := position(fr, i, len(x), p)
		if err != nil {
			return nil, err
		}
		return x[n], nil
	case string:
		rs := []rune(x)
		n, err := position(fr, i, len(rs), p)
		if err != nil {
			return nil, err
		}
		return string(rs[n]), nil
	}
	return nil, fail(keywords.Error, p, mNotData, show(fr.lang, x))
}

// position resolves an index, counting from the end when negative.
func position(fr *frame, i value, n int, p syntax.Pos) (int, error) {
	k, ok := i.(int64)
	if !ok {
		return 0, fail(keywords.Conversion, p, mConversion, show(fr.lang, i), keywords.Word(fr.lang, keywords.Int))
	}
	j := k
	if j < 0 {
		j += int64(n)
	}
	if j < 0 || j >= int64(n) {
		return 0, fail(keywords.Error, p, mIndex, strconv.FormatInt(k, 10), strconv.Itoa(n))
	}
	return int(j), nil
}

func (in *interp) unary(fr *frame, e *syntax.UnaryExpr) (value, error) {
	x, err := in.expr(fr, e.X)
	if err != nil {
		return nil, err
	}
	switch v := x.(type) {
	case bool:
		if e.Op == syntax.NotOp {
			return !v, nil
		}
	case int64:
		if e.Op == syntax.Neg {
			if v == math.MinInt64 {
				return nil, fail(keywords.Arithmetic, e.OpPos, mOverflow, "-")
			}
			return -v, nil
		}
	case float64:
		if e.Op == syntax.Neg {
			return -v, nil
		}
	}
	return nil, fail(keywords.Conversion, e.OpPos, mConversion, show(fr.lang, x), e.Op.Text(fr.lang))
}

func (in *interp) binary(fr *frame, e *syntax.BinaryExpr) (value, error) {
	if e.Op == syntax.AndOp || e.Op == syntax.OrOp {
		x, err := in.cond(fr, e.X)
		if err != nil {
			return nil, err
		}
		if x == (e.Op == syntax.OrOp) {
			return x, nil
		}
		return in.cond(fr, e.Y)
	}
	x, err := in.expr(fr, e.X)
	if err != nil {
		return nil, err
	}
	y, err := in.expr(fr, e.Y)
	if err != nil {
		return nil, err
	}
	switch e.Op {
	case syntax.Eql:
		return equal(x, y), nil
	case syntax.Neq:
		return !equal(x, y), nil
	case syntax.Lss, syntax.Leq, syntax.Gtr, syntax.Geq:
		return compare(fr, e.Op, e.OpPos, x, y)
	case syntax.InOp, syntax.NotInOp:
		b, err := member(fr, e.OpPos, x, y)
		return b != (e.Op == syntax.NotInOp), err
	}
	return in.arith(e.Op, e.OpPos, x, y)
}

func compare(fr *frame, op syntax.Op, p syntax.Pos, x, y value) (value, error) {
	var c int
	if xs, ok := x.(string); ok {
		ys, ok := y.(string)
		if !ok {
			return nil, fail(keywords.Conversion, p, mConversion, show(fr.lang, y), keywords.Word(fr.lang, keywords.String))
		}
		c = cmp3(xs < ys, xs > ys)
	} else {
		xf, ok1 := num(x)
		yf, ok2 := num(y)
		if !ok1 || !ok2 {
			return nil, fail(keywords.Conversion, p, mConversion, show(fr.lang, x)+" "+op.Text(fr.lang)+" "+show(fr.lang, y), keywords.Word(fr.lang, keywords.Float))
		}
		xi, xInt := x.(int64)
		yi, yInt := y.(int64)
		if xInt && yInt {
			c = cmp3(xi < yi, xi > yi)
		} else {
			c = cmp3(xf < yf, xf > yf)
		}
	}
	switch op {
	case syntax.Lss:
		return c < 0, nil
	case syntax.Leq:
		return c <= 0, nil
	case syntax.Gtr:
		return c > 0, nil
	}
	return c >= 0, nil
}

func cmp3(lt, gt bool) int {
	switch {
	case lt:
		return -1
	case gt:
		return 1
	}
	return 0
}

func num(v value) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func member(fr *frame, p syntax.Pos, x, y value) (bool, error) {
	switch ys := y.(type) {
	case []string:
		for _, s := range ys {
			if equal(x, s) {
				return true, nil
			}
		}
		return false, nil
	case []value:
		for _, s := range ys {
			if equal(x, s) {
				return true, nil
			}
		}
		return false, nil
	case string:
		xs, ok := x.(string)
		if !ok {
			return false, fail(keywords.Conversion, p, mConversion, show(fr.lang, x), keywords.Word(fr.lang, keywords.String))
		}
		return containsString(ys, xs), nil
	}
	return false, fail(keywords.Conversion, p, mConversion, show(fr.lang, y), keywords.Word(fr.lang, keywords.StringList))
}

func containsString(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// arith applies + - * / // % with Python's semantics, refusing overflow
// and division by zero as arithmetic errors.
func (in *interp) arith(op syntax.Op, p syntax.Pos, x, y value) (value, error) {
	switch xv := x.(type) {
	case string:
		if ys, ok := y.(string); ok && op == syntax.Add {
			if err := in.step(p, (len(xv)+len(ys))/64); err != nil {
				return nil, err
			}
			if err := in.charge(len(xv) + len(ys)); err != nil {
				return nil, err
			}
			return xv + ys, nil
		}
	case []string:
		if ys, ok := y.([]string); ok && op == syntax.Add {
			// Lists are values: + copies, and the copy is paid for.
			if err := in.step(p, len(xv)+len(ys)); err != nil {
				return nil, err
			}
			if err := in.charge(16 * (len(xv) + len(ys))); err != nil {
				return nil, err
			}
			out := make([]string, 0, len(xv)+len(ys))
			return append(append(out, xv...), ys...), nil
		}
	case int64:
		if yv, ok := y.(int64); ok {
			return intArith(op, p, xv, yv)
		}
	}
	xf, ok1 := num(x)
	yf, ok2 := num(y)
	if !ok1 || !ok2 {
		return nil, fail(keywords.Conversion, p, mConversion, typeName(keywords.Eng, x)+" "+op.String()+" "+typeName(keywords.Eng, y), "a number")
	}
	switch op {
	case syntax.Add:
		return xf + yf, nil
	case syntax.Sub:
		return xf - yf, nil
	case syntax.Mul:
		return xf * yf, nil
	}
	if yf == 0 {
		return nil, fail(keywords.Arithmetic, p, mDivZero)
	}
	switch op {
	case syntax.Div:
		return xf / yf, nil
	case syntax.FloorDiv:
		return math.Floor(xf / yf), nil
	}
	m := math.Mod(xf, yf)
	if m != 0 && (m < 0) != (yf < 0) {
		m += yf
	}
	return m, nil
}

func intArith(op syntax.Op, p syntax.Pos, x, y int64) (value, error) {
	over := func() (value, error) { return nil, fail(keywords.Arithmetic, p, mOverflow, op.String()) }
	switch op {
	case syntax.Add:
		r := x + y
		if (r > x) != (y > 0) {
			return over()
		}
		return r, nil
	case syntax.Sub:
		r := x - y
		if (r < x) != (y > 0) {
			return over()
		}
		return r, nil
	case syntax.Mul:
		if x == 0 || y == 0 {
			return int64(0), nil
		}
		r := x * y
		if r/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
			return over()
		}
		return r, nil
	case syntax.Div:
		if y == 0 {
			return nil, fail(keywords.Arithmetic, p, mDivZero)
		}
		return float64(x) / float64(y), nil
	}
	if y == 0 {
		return nil, fail(keywords.Arithmetic, p, mDivZero)
	}
	if x == math.MinInt64 && y == -1 {
		return over()
	}
	q, m := x/y, x%y
	if m != 0 && (m < 0) != (y < 0) {
		q--
		m += y
	}
	if op == syntax.FloorDiv {
		return q, nil
	}
	return m, nil
}

// cellOf returns v as a cell, for a verb that needs one.
func cellOf(fr *frame, v value, p syntax.Pos) (claims.Cell, error) {
	c, ok := v.(cellVal)
	if !ok {
		return claims.Cell{}, fail(keywords.Error, p, mNotData, show(fr.lang, v))
	}
	return c, nil
}
