// The parser, continued: expressions, by precedence climbing from `or`
// down to primaries.

package syntax

import (
	"github.com/deloreis/deloreis/dke/keywords"
)

func (p *parser) enter() {
	p.nest++
	if p.nest > maxNest {
		p.fail(p.tok().Pos, "expression nests too deeply")
	}
}

func (p *parser) leave() { p.nest-- }

// expr parses an expression.
func (p *parser) expr() Expr {
	p.enter()
	defer p.leave()
	x := p.and()
	for p.isKW(keywords.Or) {
		t := p.advance()
		x = &BinaryExpr{X: x, Op: OrOp, OpPos: t.Pos, Y: p.and()}
	}
	return x
}

func (p *parser) and() Expr {
	x := p.not()
	for p.isKW(keywords.And) {
		t := p.advance()
		x = &BinaryExpr{X: x, Op: AndOp, OpPos: t.Pos, Y: p.not()}
	}
	return x
}

func (p *parser) not() Expr {
	if p.isKW(keywords.Not) {
		t := p.advance()
		p.enter()
		defer p.leave()
		return &UnaryExpr{Op: NotOp, OpPos: t.Pos, X: p.not()}
	}
	return p.comparison()
}

var cmpOps = map[Kind]Op{EQ: Eql, NE: Neq, LT: Lss, LE: Leq, GT: Gtr, GE: Geq}

// cmpOp returns the comparison operator at the current token, consuming
// it, or OpNone.
func (p *parser) cmpOp() (Op, Pos) {
	t := p.tok()
	if op, ok := cmpOps[t.Kind]; ok {
		p.advance()
		return op, t.Pos
	}
	if p.isKW(keywords.In) {
		p.advance()
		return InOp, t.Pos
	}
	if t.Kind == KEYWORD && t.KW == keywords.Not && p.i+1 < len(p.toks) {
		n := p.toks[p.i+1]
		if n.Kind == KEYWORD && n.KW == keywords.In {
			p.advance()
			p.advance()
			return NotInOp, t.Pos
		}
	}
	return OpNone, Pos{}
}

func (p *parser) comparison() Expr {
	x := p.sum()
	op, at := p.cmpOp()
	if op == OpNone {
		return x
	}
	x = &BinaryExpr{X: x, Op: op, OpPos: at, Y: p.sum()}
	if op2, at2 := p.cmpOp(); op2 != OpNone {
		p.fail(at2, "comparisons do not chain: write `a %s b %s b %s c`", op.Text(p.lang), p.word(keywords.And), op2.Text(p.lang))
	}
	return x
}

func (p *parser) sum() Expr {
	x := p.term()
	for {
		var op Op
		switch p.tok().Kind {
		case PLUS:
			op = Add
		case MINUS:
			op = Sub
		default:
			return x
		}
		t := p.advance()
		x = &BinaryExpr{X: x, Op: op, OpPos: t.Pos, Y: p.term()}
	}
}

var termOps = map[Kind]Op{STAR: Mul, SLASH: Div, SLASHSLASH: FloorDiv, PERCENT: Mod}

func (p *parser) term() Expr {
	x := p.unary()
	for {
		op, ok := termOps[p.tok().Kind]
		if !ok {
			return x
		}
		t := p.advance()
		x = &BinaryExpr{X: x, Op: op, OpPos: t.Pos, Y: p.unary()}
	}
}

func (p *parser) unary() Expr {
	switch p.tok().Kind {
	case MINUS:
		t := p.advance()
		p.enter()
		defer p.leave()
		return &UnaryExpr{Op: Neg, OpPos: t.Pos, X: p.unary()}
	case PLUS:
		p.advance()
		p.enter()
		defer p.leave()
		return p.unary()
	}
	return p.postfix(p.primary())
}

// postfix parses calls, field selections and indexing after a primary.
func (p *parser) postfix(x Expr) Expr {
	for {
		switch p.tok().Kind {
		case DOT:
			p.advance()
			t := p.tok()
			if t.Kind != IDENT && t.Kind != KEYWORD {
				p.unexpected("a name after `.`")
			}
			p.advance()
			x = &DotExpr{X: x, Name: &Ident{NamePos: t.Pos, Name: t.Text}}
		case LBRACK:
			p.advance()
			p.enter()
			i := p.expr()
			p.leave()
			if p.tok().Kind == COLON {
				p.fail(p.tok().Pos, "DKE Python has no slices")
			}
			x = &IndexExpr{X: x, Index: i, Rbrack: p.expect(RBRACK).Pos}
		case LPAREN:
			x = p.call(x)
		default:
			return x
		}
	}
}

func (p *parser) call(fn Expr) Expr {
	c := &CallExpr{Fn: fn, Lparen: p.advance().Pos}
	p.enter()
	defer p.leave()
	for p.tok().Kind != RPAREN {
		a := &Arg{}
		if p.tok().Kind == IDENT && p.peekKind(1) == ASSIGN {
			t := p.advance()
			p.advance()
			a.Name = &Ident{NamePos: t.Pos, Name: t.Text}
		}
		if p.tok().Kind == STAR {
			p.fail(p.tok().Pos, "DKE Python has no argument unpacking")
		}
		a.Value = p.expr()
		c.Args = append(c.Args, a)
		if p.tok().Kind != COMMA {
			break
		}
		p.advance()
	}
	c.Rparen = p.expect(RPAREN).Pos
	return c
}

func (p *parser) primary() Expr {
	t := p.tok()
	switch t.Kind {
	case IDENT:
		p.advance()
		return &Ident{NamePos: t.Pos, Name: t.Text}
	case INT, FLOAT, STRING:
		p.advance()
		return &Literal{Token: t.Kind, Start: t.Pos, End: t.End, Raw: t.Text, Value: t.Value}
	case LPAREN:
		p.advance()
		x := p.expr()
		if p.tok().Kind == COMMA {
			p.fail(p.tok().Pos, "DKE Python has no tuples")
		}
		return &ParenExpr{Lparen: t.Pos, X: x, Rparen: p.expect(RPAREN).Pos}
	case LBRACK:
		return p.list()
	case KEYWORD:
		return p.keywordPrimary(t)
	}
	p.unexpected("an expression")
	return nil
}

func (p *parser) list() Expr {
	l := &ListExpr{Lbrack: p.advance().Pos}
	p.enter()
	defer p.leave()
	for p.tok().Kind != RBRACK {
		l.Elems = append(l.Elems, p.expr())
		if p.isKW(keywords.For) {
			p.fail(p.tok().Pos, "DKE Python has no comprehensions: build the list in a `%s` loop with `+`", p.word(keywords.For))
		}
		if p.tok().Kind != COMMA {
			break
		}
		p.advance()
	}
	l.Rbrack = p.expect(RBRACK).Pos
	return l
}

func (p *parser) keywordPrimary(t *Token) Expr {
	switch t.KW {
	case keywords.True, keywords.False:
		p.advance()
		return &BoolLit{Start: t.Pos, End: t.End, Value: t.KW == keywords.True}
	case keywords.List:
		return p.collection()
	}
	switch t.KW.Group() {
	case keywords.Verb, keywords.Type:
		p.advance()
		if p.tok().Kind != LPAREN {
			p.fail(t.Pos, "`%s` is called: write `%s(…)`", t.Text, t.Text)
		}
		return &KeywordExpr{Start: t.Pos, End: t.End, ID: t.KW}
	}
	p.fail(t.Pos, "got keyword %s, want an expression", t.Text)
	return nil
}

// collection parses `list <form> of <x>`.
func (p *parser) collection() Expr {
	t := p.advance()
	c := &CollectionExpr{List: t.Pos}
	for _, id := range []keywords.ID{keywords.Attributes, keywords.Subjects, keywords.Claims} {
		if p.contextual(id) {
			c.Form = id
			break
		}
	}
	if c.Form == keywords.None {
		p.fail(p.tok().Pos, "`%s` begins a collection: `%s %s %s K`, `%s %s %s K` or `%s %s %s Kind.subject.attribute`", t.Text,
			t.Text, p.word(keywords.Attributes), p.word(keywords.Of),
			t.Text, p.word(keywords.Subjects), p.word(keywords.Of),
			t.Text, p.word(keywords.Claims), p.word(keywords.Of))
	}
	p.advance()
	if !p.contextual(keywords.Of) {
		p.unexpected(p.word(keywords.Of))
	}
	p.advance()
	p.enter()
	c.X = p.postfix(p.primary())
	p.leave()
	return c
}
