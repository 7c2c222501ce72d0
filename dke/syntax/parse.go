// The parser: recursive descent over the token list, statements and
// declarations. Errors are collected; the parser recovers at the end of
// the line and goes on.

package syntax

import (
	"fmt"

	"github.com/deloreis/deloreis/dke/diag"
	"github.com/deloreis/deloreis/dke/keywords"
)

// maxNest bounds the nesting of blocks and expressions.
const maxNest = 100

// parser holds the state of one parse.
type parser struct {
	src    string
	lang   keywords.Lang
	toks   []Token
	i      int
	errs   diag.List
	nest   int
	loops  int // enclosing for/while loops in the current def or body
	branch int // enclosing branch blocks
	inDef  bool
	top    bool // statements here may be declarations
}

// bailout is panicked to abandon the statement being parsed.
type bailout struct{}

// Parse parses src, written on surface lang, into a File. path names the
// source in errors. The list holds every parse error found; the File is
// returned even when there are errors, with BadStmt where a statement
// could not be parsed.
func Parse(path, src string, lang keywords.Lang) (*File, diag.List) {
	toks, errs := Scan(src, lang)
	p := &parser{src: src, lang: lang, toks: toks, errs: errs, top: true}
	f := &File{Path: path, Lang: lang, Src: src}
	for p.tok().Kind != EOF {
		if s := p.stmtOrBlock(); s != nil {
			f.Stmts = append(f.Stmts, s...)
		}
	}
	for i := range p.errs {
		p.errs[i].File = path
	}
	p.errs.Sort()
	return f, p.errs
}

func (p *parser) tok() *Token { return &p.toks[p.i] }

func (p *parser) peekKind(n int) Kind {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n].Kind
	}
	return EOF
}

func (p *parser) advance() Token {
	t := p.toks[p.i]
	if t.Kind != EOF {
		p.i++
	}
	return t
}

func (p *parser) word(id keywords.ID) string { return keywords.Word(p.lang, id) }

// report records an error without abandoning the statement.
func (p *parser) report(at Pos, fix, format string, args ...any) {
	p.errs.Add(diag.ParseError, int(at.Line), int(at.Col), fmt.Sprintf(format, args...), fix)
}

// fail records an error and abandons the statement.
func (p *parser) fail(at Pos, format string, args ...any) {
	p.report(at, "", format, args...)
	panic(bailout{})
}

func (p *parser) unexpected(want string) {
	t := p.tok()
	if t.Kind == ILLEGAL {
		panic(bailout{}) // the scanner has reported it
	}
	p.fail(t.Pos, "got %s, want %s", t.describe(p.lang), want)
}

func (p *parser) expect(k Kind) Token {
	if p.tok().Kind != k {
		p.unexpected(k.String())
	}
	return p.advance()
}

// isKW reports whether the current token is keyword id. A word that is id
// on another surface is accepted with an error whose fix writes this
// surface's word.
func (p *parser) isKW(id keywords.ID) bool {
	t := p.tok()
	if t.Kind == KEYWORD {
		return t.KW == id
	}
	if t.Kind != IDENT {
		return false
	}
	fid, from, ok := keywords.Foreign(p.lang, t.Text)
	if !ok || fid != id || keywords.Get(id).Reserve != keywords.Hard {
		return false
	}
	p.foreign(t, fid, from)
	return true
}

// foreign reports a keyword of another surface and turns the token into
// this surface's keyword.
func (p *parser) foreign(t *Token, id keywords.ID, from keywords.Lang) {
	w := p.word(id)
	p.report(t.Pos, w+lineRest(p.src, int(t.End.Off)), "`%s` is the %s word; %s writes `%s`", t.Text, from, p.lang, w)
	t.Kind, t.KW = KEYWORD, id
}

func (p *parser) expectKW(id keywords.ID) Token {
	if !p.isKW(id) {
		p.unexpected(p.word(id))
	}
	return p.advance()
}

// contextual reports whether the current token is the contextual word id,
// accepting another surface's spelling with an error and a fix.
func (p *parser) contextual(id keywords.ID) bool {
	t := p.tok()
	if t.Kind != IDENT {
		return false
	}
	if got, ok := keywords.Lookup(p.lang, t.Text); ok {
		return got == id
	}
	if fid, from, ok := keywords.Foreign(p.lang, t.Text); ok && fid == id {
		w := p.word(id)
		p.report(t.Pos, w+lineRest(p.src, int(t.End.Off)), "`%s` is the %s word; %s writes `%s`", t.Text, from, p.lang, w)
		return true
	}
	return false
}

// skipLine skips to the end of the logical line.
func (p *parser) skipLine() Pos {
	for {
		t := p.tok()
		switch t.Kind {
		case EOF:
			return t.Pos
		case NEWLINE:
			p.advance()
			return t.Pos
		}
		p.advance()
	}
}

func (p *parser) endLine() {
	if p.tok().Kind == NEWLINE {
		p.advance()
		return
	}
	if p.tok().Kind == EOF {
		return
	}
	p.unexpected("end of line")
}

// stmtOrBlock parses one statement; an unexpected indented block is
// reported and its statements parsed in place.
func (p *parser) stmtOrBlock() []Stmt {
	if p.tok().Kind == INDENT {
		p.report(p.tok().Pos, "", "unexpected indent")
		return p.orphanBlock()
	}
	if p.tok().Kind == OUTDENT || p.tok().Kind == NEWLINE {
		p.advance()
		return nil
	}
	return []Stmt{p.stmt()}
}

// orphanBlock parses an indented block that belongs to nothing.
func (p *parser) orphanBlock() []Stmt {
	p.advance()
	var out []Stmt
	for k := p.tok().Kind; k != OUTDENT && k != EOF; k = p.tok().Kind {
		out = append(out, p.stmtOrBlock()...)
	}
	if p.tok().Kind == OUTDENT {
		p.advance()
	}
	return out
}

// stmt parses one statement, recovering from errors in it.
func (p *parser) stmt() (s Stmt) {
	start := p.tok().Pos
	ncount := p.nest
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			p.nest = ncount
			end := p.skipLine()
			if p.tok().Kind == INDENT {
				p.orphanBlock()
			}
			s = &BadStmt{From: start, To: end}
		}
	}()
	p.nest++
	defer func() { p.nest-- }()
	if p.nest > maxNest {
		p.fail(start, "blocks nest too deeply")
	}
	p.statementKeyword()
	t := p.tok()
	if t.Kind == AT {
		return p.decorated()
	}
	if t.Kind != KEYWORD {
		return p.simpleStmt()
	}
	return p.keywordStmt(t)
}

func (p *parser) keywordStmt(t *Token) Stmt {
	switch t.KW {
	case keywords.Import:
		return p.importStmt()
	case keywords.Def:
		return p.def(nil)
	case keywords.Class:
		return p.class()
	case keywords.If:
		return p.ifStmt()
	case keywords.Match:
		return p.match()
	case keywords.For:
		return p.forStmt()
	case keywords.While:
		return p.while()
	case keywords.Branch:
		return p.branchStmt()
	case keywords.Try:
		return p.try()
	case keywords.Return:
		return p.returnStmt()
	case keywords.Assert:
		p.advance()
		x := p.expr()
		p.endLine()
		return &AssertStmt{Assert: t.Pos, Cond: x}
	case keywords.Pass, keywords.Break, keywords.Continue, keywords.Commit, keywords.Rollback:
		return p.simpleKeyword()
	case keywords.Elif, keywords.Else:
		p.fail(t.Pos, "`%s` without `%s`", t.Text, p.word(keywords.If))
	case keywords.Except:
		p.fail(t.Pos, "`%s` without `%s`", t.Text, p.word(keywords.Try))
	case keywords.Case:
		p.fail(t.Pos, "`%s` outside `%s`", t.Text, p.word(keywords.Match))
	}
	return p.simpleStmt()
}

// statementKeyword turns a statement-opening word of another surface into
// this surface's keyword, with an error and a fix; and refuses Python's
// `from m import f`.
func (p *parser) statementKeyword() {
	t := p.tok()
	if t.Kind != IDENT {
		return
	}
	switch p.peekKind(1) {
	case ASSIGN, PLUSEQ, MINUSEQ, STAREQ, DOT, LBRACK, LPAREN:
		return
	}
	if t.Text == "from" && p.peekKind(1) == IDENT && p.i+2 < len(p.toks) && p.toks[p.i+2].Kind == KEYWORD && p.toks[p.i+2].KW == keywords.Import {
		name := p.toks[p.i+1].Text
		fix := ""
		if p.toks[p.i+2].Pos.Line == t.Pos.Line {
			fix = p.word(keywords.Import) + " " + name
		}
		p.report(t.Pos, fix, "DKE Python has no `from … %s`: write `%s %s` and call `%s.f(…)`", p.word(keywords.Import), p.word(keywords.Import), name, name)
		p.skipLine()
		panic(bailout{})
	}
	id, from, ok := keywords.Foreign(p.lang, t.Text)
	if !ok || id.Group() != keywords.Statement || id == keywords.As {
		return
	}
	if id == keywords.While {
		t.Kind, t.KW = KEYWORD, id // while() reports it
		return
	}
	p.foreign(t, id, from)
}

func (p *parser) simpleKeyword() Stmt {
	t := p.advance()
	switch t.KW {
	case keywords.Break, keywords.Continue:
		if p.loops == 0 {
			p.report(t.Pos, "", "`%s` outside a `%s` loop", t.Text, p.word(keywords.For))
		}
	case keywords.Commit, keywords.Rollback:
		if p.branch == 0 {
			p.report(t.Pos, "", "`%s` outside a `%s` block", t.Text, p.word(keywords.Branch))
		}
	}
	p.endLine()
	return &SimpleStmt{Pos: t.Pos, End: t.End, ID: t.KW}
}

func (p *parser) simpleStmt() Stmt {
	x := p.expr()
	t := p.tok()
	switch t.Kind {
	case ASSIGN, PLUSEQ, MINUSEQ, STAREQ:
		p.advance()
		if p.tok().Kind == COLON || t.Kind == ASSIGN && p.tok().Kind == ASSIGN {
			p.unexpected("an expression")
		}
		y := p.expr()
		if p.tok().Kind == ASSIGN {
			p.fail(p.tok().Pos, "one assignment per statement: DKE Python has no chained assignment")
		}
		p.endLine()
		return &AssignStmt{LHS: x, Op: t.Kind, OpPos: t.Pos, RHS: y}
	case COMMA:
		p.fail(t.Pos, "DKE Python has no tuples: assign one name per statement")
	case COLON:
		p.fail(t.Pos, "unexpected `:`: an annotated name belongs in a class body or a parameter list")
	}
	p.endLine()
	return &ExprStmt{X: x}
}

func (p *parser) importStmt() Stmt {
	t := p.advance()
	p.declarationsHere(t.Pos, "an `"+t.Text+"`")
	if p.tok().Kind != IDENT {
		p.unexpected("a module name")
	}
	nt := p.advance()
	name := &Ident{NamePos: nt.Pos, Name: nt.Text}
	switch p.tok().Kind {
	case DOT:
		p.fail(p.tok().Pos, "module names have no dots: a module name is one identifier")
	case MINUS:
		p.fail(p.tok().Pos, "module names have no hyphens: a module name is one identifier")
	case COMMA:
		p.fail(p.tok().Pos, "import one module per line")
	}
	if p.isKW(keywords.As) {
		p.fail(p.tok().Pos, "DKE Python has no import aliases: call the module by its name")
	}
	if err := CheckModuleName(nt.Text); err != nil {
		p.report(nt.Pos, "", "%s", err.Error())
	}
	p.endLine()
	return &ImportStmt{Import: t.Pos, Name: name}
}

// suite parses the block after a header's colon: an indented block, or
// one simple statement on the same line.
func (p *parser) suite() []Stmt {
	if p.tok().Kind != NEWLINE {
		return []Stmt{p.simpleOnLine()}
	}
	p.advance()
	if p.tok().Kind != INDENT {
		p.report(p.tok().Pos, "", "expected an indented block")
		return nil
	}
	p.advance()
	top := p.top
	p.top = false
	var body []Stmt
	for k := p.tok().Kind; k != OUTDENT && k != EOF; k = p.tok().Kind {
		body = append(body, p.stmtOrBlock()...)
	}
	p.top = top
	if p.tok().Kind == OUTDENT {
		p.advance()
	}
	return body
}

// simpleOnLine parses the statement of a one-line suite.
func (p *parser) simpleOnLine() Stmt {
	top := p.top
	p.top = false
	defer func() { p.top = top }()
	return p.stmt()
}

func (p *parser) header() Pos {
	return p.expect(COLON).Pos
}

func (p *parser) ifStmt() Stmt {
	t := p.advance()
	s := &IfStmt{If: t.Pos, Cond: p.expr()}
	p.header()
	s.Then = p.suite()
	switch {
	case p.isKW(keywords.Elif):
		e := p.ifStmt().(*IfStmt)
		e.Elif = true
		s.Else = []Stmt{e}
	case p.isKW(keywords.Else):
		p.advance()
		p.header()
		s.Else = p.suite()
	}
	return s
}

func (p *parser) forStmt() Stmt {
	t := p.advance()
	if p.tok().Kind != IDENT {
		p.unexpected("a loop variable")
	}
	v := p.advance()
	if p.tok().Kind == COMMA {
		p.fail(p.tok().Pos, "a `%s` loop binds one name", p.word(keywords.For))
	}
	p.expectKW(keywords.In)
	x := p.expr()
	p.header()
	p.loops++
	body := p.suite()
	p.loops--
	return &ForStmt{For: t.Pos, Var: &Ident{NamePos: v.Pos, Name: v.Text}, X: x, Body: body}
}

// WhileMessage is the diagnostic for a `while` loop on surface l, quoting
// the word as written. On eng it is the contract's text (§6.1) exactly.
func WhileMessage(l keywords.Lang, written string) string {
	w := func(id keywords.ID) string { return keywords.Word(l, id) }
	return fmt.Sprintf("DKE Python has no `%s` loop — iteration is bounded: `%s <var> %s <finite collection>:` over a store-derived collection (e.g. `%s %s %s K`). Bounded iteration is the termination guarantee; there is no unbounded loop.",
		written, w(keywords.For), w(keywords.In), w(keywords.List), w(keywords.Attributes), w(keywords.Of))
}

// ForFix is the replacement text of a loop header on surface l, with
// variable v (a name or the <var> placeholder) over the <collection>
// placeholder.
func ForFix(l keywords.Lang, v string) string {
	return fmt.Sprintf("%s %s %s %s:", keywords.Word(l, keywords.For), v, keywords.Word(l, keywords.In), diag.CollectionPlaceholder)
}

func (p *parser) while() Stmt {
	t := p.advance()
	x := p.expr()
	colon := p.header()
	fix := ""
	if colon.Line == t.Pos.Line {
		fix = ForFix(p.lang, diag.VarPlaceholder) + lineRest(p.src, int(colon.Off)+1)
	}
	p.report(t.Pos, fix, "%s", WhileMessage(p.lang, t.Text))
	p.loops++
	body := p.suite()
	p.loops--
	return &WhileStmt{While: t.Pos, Cond: x, Body: body}
}

func (p *parser) branchStmt() Stmt {
	t := p.advance()
	if p.branch > 0 {
		p.report(t.Pos, "", "`%s` blocks do not nest", t.Text)
	}
	p.header()
	p.branch++
	body := p.suite()
	p.branch--
	return &BranchStmt{Branch: t.Pos, Body: body}
}

func (p *parser) returnStmt() Stmt {
	t := p.advance()
	s := &ReturnStmt{Return: t.Pos}
	if k := p.tok().Kind; k != NEWLINE && k != EOF {
		s.Result = p.expr()
		if p.tok().Kind == COMMA {
			p.fail(p.tok().Pos, "DKE Python has no tuples: return one value")
		}
	}
	p.endLine()
	return s
}
