// The parser, continued: declarations (def, class, decorators), match and
// try.

package syntax

import (
	"github.com/deloreis/deloreis/dke/keywords"
)

func (p *parser) declarationsHere(at Pos, what string) {
	if !p.top {
		p.report(at, "", "%s belongs at the top level of a module", what)
	}
}

func (p *parser) decorated() Stmt {
	at := p.advance()
	if p.tok().Kind != IDENT {
		p.unexpected("a decorator name")
	}
	nt := p.advance()
	d := &Decorator{At: at.Pos, Name: &Ident{NamePos: nt.Pos, Name: nt.Text}}
	if id, ok := keywords.Lookup(p.lang, nt.Text); ok && id.Group() == keywords.Decorator {
		d.ID = id
	} else if id, from, ok := keywords.Foreign(p.lang, nt.Text); ok && id.Group() == keywords.Decorator {
		w := p.word(id)
		p.report(nt.Pos, w+lineRest(p.src, int(nt.End.Off)), "`%s` is the %s word; %s writes `%s`", nt.Text, from, p.lang, w)
		d.ID = id
	} else {
		p.report(nt.Pos, "", "unknown decorator @%s: DKE Python has @%s, @%s and @%s", nt.Text,
			p.word(keywords.Rule), p.word(keywords.Constraint), p.word(keywords.Computed))
	}
	if p.tok().Kind == LPAREN {
		p.fail(p.tok().Pos, "decorators take no arguments")
	}
	p.expect(NEWLINE)
	if !p.isKW(keywords.Def) {
		p.unexpected(p.word(keywords.Def))
	}
	return p.def(d)
}

func (p *parser) def(d *Decorator) Stmt {
	t := p.advance()
	p.declarationsHere(t.Pos, "a `"+t.Text+"`")
	if p.inDef {
		p.fail(t.Pos, "a `%s` cannot be nested in another", t.Text)
	}
	if p.tok().Kind != IDENT {
		p.unexpected("a name")
	}
	nt := p.advance()
	s := &DefStmt{Decorator: d, Def: t.Pos, Name: &Ident{NamePos: nt.Pos, Name: nt.Text}}
	p.expect(LPAREN)
	for p.tok().Kind != RPAREN {
		s.Params = append(s.Params, p.param())
		if p.tok().Kind != COMMA {
			break
		}
		p.advance()
	}
	s.Rparen = p.expect(RPAREN).Pos
	if p.tok().Kind == ARROW {
		p.advance()
		s.Result = p.typeExpr()
	}
	s.Colon = p.header()
	p.inDef = true
	loops, branch := p.loops, p.branch
	p.loops, p.branch = 0, 0
	s.Body = p.suite()
	p.inDef = false
	p.loops, p.branch = loops, branch
	return s
}

func (p *parser) param() *Param {
	switch p.tok().Kind {
	case STAR:
		p.fail(p.tok().Pos, "DKE Python has no variadic parameters: declare each parameter")
	case IDENT:
	default:
		p.unexpected("a parameter name")
	}
	nt := p.advance()
	prm := &Param{Name: &Ident{NamePos: nt.Pos, Name: nt.Text}}
	if p.tok().Kind == COLON {
		p.advance()
		prm.Type = p.typeExpr()
	}
	if p.tok().Kind == ASSIGN {
		p.fail(p.tok().Pos, "parameters have no default values: every call passes every argument")
	}
	return prm
}

// typeExpr parses a type: a built-in type word or a kind name.
func (p *parser) typeExpr() *TypeExpr {
	t := p.tok()
	switch {
	case t.Kind == KEYWORD && t.KW.Group() == keywords.Type:
	case t.Kind == KEYWORD && t.KW == keywords.List:
		w := p.word(keywords.StringList)
		p.report(t.Pos, w+lineRest(p.src, int(t.End.Off)), "unknown type %s: write %s", t.Text, w)
		t.KW = keywords.StringList
	case t.Kind == IDENT:
		if id, from, ok := keywords.Foreign(p.lang, t.Text); ok && id.Group() == keywords.Type {
			p.foreign(t, id, from)
		}
	default:
		p.unexpected("a type")
	}
	p.advance()
	te := &TypeExpr{Start: t.Pos, End: t.End, ID: t.KW, Name: t.Text}
	if t.Kind == KEYWORD {
		te.Name = ""
	}
	if p.tok().Kind == LBRACK {
		p.fail(p.tok().Pos, "DKE Python has no generic types: the list type is %s", p.word(keywords.StringList))
	}
	return te
}

func (p *parser) class() Stmt {
	t := p.advance()
	p.declarationsHere(t.Pos, "a `"+t.Text+"`")
	if p.tok().Kind != IDENT {
		p.unexpected("a kind name")
	}
	nt := p.advance()
	if p.tok().Kind == LPAREN {
		p.fail(p.tok().Pos, "a kind does not inherit: declare its attributes")
	}
	p.header()
	s := &ClassStmt{Class: t.Pos, Name: &Ident{NamePos: nt.Pos, Name: nt.Text}}
	if p.tok().Kind != NEWLINE {
		p.unexpected("end of line")
	}
	p.advance()
	if p.tok().Kind != INDENT {
		p.report(p.tok().Pos, "", "expected an indented block")
		return s
	}
	p.advance()
	for k := p.tok().Kind; k != OUTDENT && k != EOF; k = p.tok().Kind {
		if k == NEWLINE {
			p.advance()
			continue
		}
		s.Body = append(s.Body, p.classItem())
	}
	if p.tok().Kind == OUTDENT {
		p.advance()
	}
	return s
}

// classItem parses one item of a class body.
func (p *parser) classItem() (s Stmt) {
	if p.tok().Kind != IDENT || p.peekKind(1) != COLON {
		return p.stmt()
	}
	start := p.tok().Pos
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			s = &BadStmt{From: start, To: p.skipLine()}
		}
	}()
	nt := p.advance()
	p.advance()
	a := &AttrDecl{Name: &Ident{NamePos: nt.Pos, Name: nt.Text}, Type: p.typeExpr()}
	if p.tok().Kind == ASSIGN {
		p.fail(p.tok().Pos, "attributes have no default values: remember a value instead")
	}
	p.endLine()
	return a
}

func (p *parser) match() Stmt {
	t := p.advance()
	s := &MatchStmt{Match: t.Pos, X: p.expr()}
	p.header()
	p.expect(NEWLINE)
	if p.tok().Kind != INDENT {
		p.report(p.tok().Pos, "", "expected an indented block of `%s` clauses", p.word(keywords.Case))
		return s
	}
	p.advance()
	for k := p.tok().Kind; k != OUTDENT && k != EOF; k = p.tok().Kind {
		if c := p.matchCase(); c != nil {
			s.Cases = append(s.Cases, c)
		}
	}
	if p.tok().Kind == OUTDENT {
		p.advance()
	}
	return s
}

func (p *parser) matchCase() (c *Case) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			p.skipLine()
			if p.tok().Kind == INDENT {
				p.orphanBlock()
			}
			c = nil
		}
	}()
	if !p.isKW(keywords.Case) {
		p.unexpected(p.word(keywords.Case))
	}
	c = &Case{Case: p.advance().Pos}
	for {
		c.Patterns = append(c.Patterns, p.pattern())
		if p.tok().Kind != PIPE {
			break
		}
		p.advance()
	}
	if p.isKW(keywords.If) {
		p.fail(p.tok().Pos, "a `%s` has no guard: test inside the case body", p.word(keywords.Case))
	}
	p.header()
	c.Body = p.suite()
	return c
}

// pattern parses a case pattern: a literal, or _ (returned as nil).
func (p *parser) pattern() Expr {
	t := p.tok()
	switch {
	case t.Kind == IDENT && t.Text == "_":
		p.advance()
		return nil
	case t.Kind == INT, t.Kind == FLOAT, t.Kind == STRING, t.Kind == KEYWORD && (t.KW == keywords.True || t.KW == keywords.False):
		return p.primary()
	case t.Kind == MINUS && (p.peekKind(1) == INT || p.peekKind(1) == FLOAT):
		return p.unary()
	}
	p.fail(t.Pos, "a case pattern is a literal or _, got %s", t.describe(p.lang))
	return nil
}

// pythonHandlers maps Python exception names to the handler kind a
// Python programmer means by them.
var pythonHandlers = map[string]keywords.ID{
	"Exception": keywords.Error, "BaseException": keywords.Error,
	"ValueError": keywords.Conversion, "TypeError": keywords.Conversion,
	"ZeroDivisionError": keywords.Arithmetic, "ArithmeticError": keywords.Arithmetic, "OverflowError": keywords.Arithmetic,
	"KeyError": keywords.Missing, "LookupError": keywords.Missing, "IndexError": keywords.Missing,
}

func (p *parser) try() Stmt {
	t := p.advance()
	p.header()
	s := &TryStmt{Try: t.Pos, Body: p.suite()}
	for p.isKW(keywords.Except) {
		s.Handlers = append(s.Handlers, p.handler())
	}
	if len(s.Handlers) == 0 {
		p.report(p.tok().Pos, "", "`%s` needs at least one `%s` handler", t.Text, p.word(keywords.Except))
	}
	return s
}

func (p *parser) handler() *Handler {
	et := p.advance()
	h := &Handler{Except: et.Pos}
	if p.tok().Kind == COLON {
		fix := p.word(keywords.Except) + " " + p.word(keywords.Error) + lineRest(p.src, int(p.tok().Pos.Off))
		p.report(et.Pos, fix, "name the handler kind: `%s %s:` catches every error", p.word(keywords.Except), p.word(keywords.Error))
		h.Kind = keywords.Error
	} else {
		if p.tok().Kind != IDENT {
			p.unexpected("a handler kind")
		}
		nt := p.advance()
		h.Name = &Ident{NamePos: nt.Pos, Name: nt.Text}
		h.Kind = p.handlerKind(nt)
		if p.isKW(keywords.As) {
			p.advance()
			if p.tok().Kind != IDENT {
				p.unexpected("a name")
			}
			at := p.advance()
			h.As = &Ident{NamePos: at.Pos, Name: at.Text}
		}
	}
	p.header()
	h.Body = p.suite()
	return h
}

func (p *parser) handlerKinds() string {
	ids := keywords.InGroup(keywords.Handler)
	s := ""
	for i, id := range ids {
		if i > 0 {
			s += ", "
		}
		s += p.word(id)
	}
	return s
}

func (p *parser) handlerKind(nt Token) keywords.ID {
	if id, ok := keywords.Lookup(p.lang, nt.Text); ok && id.Group() == keywords.Handler {
		return id
	}
	fixWith := func(id keywords.ID) string { return p.word(id) + lineRest(p.src, int(nt.End.Off)) }
	if id, from, ok := keywords.Foreign(p.lang, nt.Text); ok && id.Group() == keywords.Handler {
		p.report(nt.Pos, fixWith(id), "`%s` is the %s word; %s writes `%s`", nt.Text, from, p.lang, p.word(id))
		return id
	}
	if id, ok := pythonHandlers[nt.Text]; ok {
		p.report(nt.Pos, fixWith(id), "%s is not a handler kind: write `%s %s:` (handler kinds: %s)", nt.Text, p.word(keywords.Except), p.word(id), p.handlerKinds())
		return id
	}
	p.report(nt.Pos, "", "%s is not a handler kind (handler kinds: %s)", nt.Text, p.handlerKinds())
	return keywords.None
}
