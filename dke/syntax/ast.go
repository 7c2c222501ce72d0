// The syntax tree: statements, declarations and expressions, each knowing
// its span. Keywords are stored as canonical ids.

package syntax

import (
	"unicode/utf8"

	"github.com/deloreis/deloreis/dke/keywords"
)

// Node is any node of the tree.
type Node interface {
	// Span returns the first position of the node and the position just
	// after it.
	Span() (start, end Pos)
}

// Stmt is a statement or declaration.
type Stmt interface {
	Node
	stmt()
}

// Expr is an expression.
type Expr interface {
	Node
	expr()
}

// File is a parsed source: a module or a program.
type File struct {
	Path string
	// Lang is the surface the source was written in; the nodes do not
	// depend on it.
	Lang  keywords.Lang
	Stmts []Stmt
	// Src is the source text, kept for fixes that quote it.
	Src string
}

// ImportStmt is `import name`.
type ImportStmt struct {
	Import Pos
	Name   *Ident
}

// Decorator is `@name` before a def; ID is the decorator's keyword id, or
// keywords.None for an unknown decorator.
type Decorator struct {
	At   Pos
	Name *Ident
	ID   keywords.ID
}

// DefStmt is a def: a procedure, a value script (Result set), a rule, a
// constraint or a computed field (by Decorator).
type DefStmt struct {
	Decorator *Decorator
	Def       Pos
	Name      *Ident
	Params    []*Param
	Rparen    Pos
	Result    *TypeExpr // nil for a procedure
	Colon     Pos       // the header's colon
	Body      []Stmt
}

// Param is a parameter `name: type`; Type is nil where the annotation was
// left out (allowed for rule and constraint variables and computed
// fields' subject).
type Param struct {
	Name *Ident
	Type *TypeExpr
}

// TypeExpr names a type: a built-in (ID set) or a kind (Name set).
type TypeExpr struct {
	Start, End Pos
	ID         keywords.ID
	Name       string
}

// ClassStmt is a class: a kind with typed attributes and computed fields.
type ClassStmt struct {
	Class Pos
	Name  *Ident
	Body  []Stmt // *AttrDecl, *DefStmt, *PassStmt, docstrings
}

// AttrDecl is an attribute declaration `name: type` in a class body.
type AttrDecl struct {
	Name *Ident
	Type *TypeExpr
}

// AssignStmt is `x = e` or an augmented assignment (Op is PLUSEQ,
// MINUSEQ or STAREQ).
type AssignStmt struct {
	LHS   Expr
	Op    Kind
	OpPos Pos
	RHS   Expr
}

// ExprStmt is an expression used as a statement.
type ExprStmt struct {
	X Expr
}

// IfStmt is if/elif/else; an elif is an IfStmt alone in Else with Elif set.
type IfStmt struct {
	If   Pos
	Elif bool
	Cond Expr
	Then []Stmt
	Else []Stmt
}

// MatchStmt is `match x:` with its cases.
type MatchStmt struct {
	Match Pos
	X     Expr
	Cases []*Case
}

// Case is `case p1 | p2:`; a nil pattern is the wildcard `_`.
type Case struct {
	Case     Pos
	Patterns []Expr
	Body     []Stmt
}

// ForStmt is `for v in x:`.
type ForStmt struct {
	For  Pos
	Var  *Ident
	X    Expr
	Body []Stmt
}

// WhileStmt is a refused `while` loop, kept so the checker can still look
// inside it.
type WhileStmt struct {
	While Pos
	Cond  Expr
	Body  []Stmt
}

// BranchStmt is a `branch:` block.
type BranchStmt struct {
	Branch Pos
	Body   []Stmt
}

// TryStmt is `try:` with its handlers.
type TryStmt struct {
	Try      Pos
	Body     []Stmt
	Handlers []*Handler
}

// Handler is `except kind [as name]:`; Kind is the handler kind's id, or
// keywords.None when the name is not a handler kind.
type Handler struct {
	Except Pos
	Name   *Ident
	Kind   keywords.ID
	As     *Ident
	Body   []Stmt
}

// ReturnStmt is `return [x]`.
type ReturnStmt struct {
	Return Pos
	Result Expr
}

// AssertStmt is `assert cond` (in constraints).
type AssertStmt struct {
	Assert Pos
	Cond   Expr
}

// SimpleStmt is a one-word statement: pass, break, continue, commit,
// rollback.
type SimpleStmt struct {
	Pos Pos
	End Pos
	ID  keywords.ID
}

// BadStmt stands where a statement could not be parsed.
type BadStmt struct {
	From, To Pos
}

// Ident is a name.
type Ident struct {
	NamePos Pos
	Name    string
}

// Literal is an int, float or string literal; Value is int64, float64 or
// string.
type Literal struct {
	Token Kind
	Start Pos
	End   Pos
	Raw   string
	Value any
}

// BoolLit is True or False.
type BoolLit struct {
	Start, End Pos
	Value      bool
}

// ListExpr is `[a, b]`.
type ListExpr struct {
	Lbrack, Rbrack Pos
	Elems          []Expr
}

// DotExpr is `x.name`. After a dot every word is a name, keywords too.
type DotExpr struct {
	X    Expr
	Name *Ident
}

// IndexExpr is `x[i]`: a computed subject or attribute of a cell, or an
// element of a list.
type IndexExpr struct {
	X      Expr
	Index  Expr
	Rbrack Pos
}

// CallExpr is `f(args)`.
type CallExpr struct {
	Fn     Expr
	Lparen Pos
	Args   []*Arg
	Rparen Pos
}

// Arg is an argument; Name is set for a keyword argument `name=value`.
type Arg struct {
	Name  *Ident
	Value Expr
}

// KeywordExpr is a verb or type word used as a callee, such as remember,
// current or int.
type KeywordExpr struct {
	Start, End Pos
	ID         keywords.ID
}

// UnaryExpr is `-x` or `not x`.
type UnaryExpr struct {
	Op    Op
	OpPos Pos
	X     Expr
}

// BinaryExpr is `x op y`.
type BinaryExpr struct {
	X     Expr
	Op    Op
	OpPos Pos
	Y     Expr
}

// ParenExpr is `(x)`.
type ParenExpr struct {
	Lparen, Rparen Pos
	X              Expr
}

// CollectionExpr is a compound `list <form> of <x>`; Form is
// keywords.Attributes, Subjects or Claims.
type CollectionExpr struct {
	List Pos
	Form keywords.ID
	X    Expr
}

// Op is an operator.
type Op uint8

// The operators.
const (
	OpNone Op = iota
	Add
	Sub
	Mul
	Div
	FloorDiv
	Mod
	Eql
	Neq
	Lss
	Leq
	Gtr
	Geq
	AndOp
	OrOp
	InOp
	NotInOp
	NotOp
	Neg
)

var opText = [...]string{Add: "+", Sub: "-", Mul: "*", Div: "/", FloorDiv: "//", Mod: "%",
	Eql: "==", Neq: "!=", Lss: "<", Leq: "<=", Gtr: ">", Geq: ">=", Neg: "-"}

// Text returns the operator as written on surface l.
func (o Op) Text(l keywords.Lang) string {
	switch o {
	case AndOp:
		return keywords.Word(l, keywords.And)
	case OrOp:
		return keywords.Word(l, keywords.Or)
	case InOp:
		return keywords.Word(l, keywords.In)
	case NotInOp:
		return keywords.Word(l, keywords.Not) + " " + keywords.Word(l, keywords.In)
	case NotOp:
		return keywords.Word(l, keywords.Not)
	}
	if int(o) < len(opText) {
		return opText[o]
	}
	return "?"
}

// IsComparison reports whether o compares.
func (o Op) IsComparison() bool { return o >= Eql && o <= Geq || o == InOp || o == NotInOp }

func (*ImportStmt) stmt() {}
func (*DefStmt) stmt()    {}
func (*ClassStmt) stmt()  {}
func (*AttrDecl) stmt()   {}
func (*AssignStmt) stmt() {}
func (*ExprStmt) stmt()   {}
func (*IfStmt) stmt()     {}
func (*MatchStmt) stmt()  {}
func (*ForStmt) stmt()    {}
func (*WhileStmt) stmt()  {}
func (*BranchStmt) stmt() {}
func (*TryStmt) stmt()    {}
func (*ReturnStmt) stmt() {}
func (*AssertStmt) stmt() {}
func (*SimpleStmt) stmt() {}
func (*BadStmt) stmt()    {}

func (*Ident) expr()          {}
func (*Literal) expr()        {}
func (*BoolLit) expr()        {}
func (*ListExpr) expr()       {}
func (*DotExpr) expr()        {}
func (*IndexExpr) expr()      {}
func (*CallExpr) expr()       {}
func (*KeywordExpr) expr()    {}
func (*UnaryExpr) expr()      {}
func (*BinaryExpr) expr()     {}
func (*ParenExpr) expr()      {}
func (*CollectionExpr) expr() {}

// advance returns p moved past n ASCII characters.
func advance(p Pos, n int) Pos {
	return Pos{Line: p.Line, Col: p.Col + int32(n), Off: p.Off + int32(n)}
}

// blockEnd returns the end of the last statement of a block, or p.
func blockEnd(body []Stmt, p Pos) Pos {
	if len(body) == 0 {
		return p
	}
	_, e := body[len(body)-1].Span()
	return e
}

// Span implements Node.
func (x *File) Span() (Pos, Pos) {
	if len(x.Stmts) == 0 {
		return Pos{Line: 1, Col: 1}, Pos{Line: 1, Col: 1}
	}
	s, _ := x.Stmts[0].Span()
	return s, blockEnd(x.Stmts, s)
}

// Span implements Node.
func (x *ImportStmt) Span() (Pos, Pos) { _, e := x.Name.Span(); return x.Import, e }

// Span implements Node.
func (x *DefStmt) Span() (Pos, Pos) {
	s := x.Def
	if x.Decorator != nil {
		s = x.Decorator.At
	}
	return s, blockEnd(x.Body, x.Colon)
}

// Span implements Node.
func (x *ClassStmt) Span() (Pos, Pos) { return x.Class, blockEnd(x.Body, x.Name.NamePos) }

// Span implements Node.
func (x *AttrDecl) Span() (Pos, Pos) { return x.Name.NamePos, x.Type.End }

// Span implements Node.
func (x *AssignStmt) Span() (Pos, Pos) {
	s, _ := x.LHS.Span()
	_, e := x.RHS.Span()
	return s, e
}

// Span implements Node.
func (x *ExprStmt) Span() (Pos, Pos) { return x.X.Span() }

// Span implements Node.
func (x *IfStmt) Span() (Pos, Pos) {
	e := blockEnd(x.Then, x.If)
	return x.If, blockEnd(x.Else, e)
}

// Span implements Node.
func (x *MatchStmt) Span() (Pos, Pos) {
	_, e := x.X.Span()
	if n := len(x.Cases); n > 0 {
		e = blockEnd(x.Cases[n-1].Body, x.Cases[n-1].Case)
	}
	return x.Match, e
}

// Span implements Node.
func (x *ForStmt) Span() (Pos, Pos) { return x.For, blockEnd(x.Body, x.For) }

// Span implements Node.
func (x *WhileStmt) Span() (Pos, Pos) { return x.While, blockEnd(x.Body, x.While) }

// Span implements Node.
func (x *BranchStmt) Span() (Pos, Pos) { return x.Branch, blockEnd(x.Body, x.Branch) }

// Span implements Node.
func (x *TryStmt) Span() (Pos, Pos) {
	e := blockEnd(x.Body, x.Try)
	if n := len(x.Handlers); n > 0 {
		e = blockEnd(x.Handlers[n-1].Body, x.Handlers[n-1].Except)
	}
	return x.Try, e
}

// Span implements Node.
func (x *ReturnStmt) Span() (Pos, Pos) {
	if x.Result == nil {
		return x.Return, advance(x.Return, 1)
	}
	_, e := x.Result.Span()
	return x.Return, e
}

// Span implements Node.
func (x *AssertStmt) Span() (Pos, Pos) { _, e := x.Cond.Span(); return x.Assert, e }

// Span implements Node.
func (x *SimpleStmt) Span() (Pos, Pos) { return x.Pos, x.End }

// Span implements Node.
func (x *BadStmt) Span() (Pos, Pos) { return x.From, x.To }

// Span implements Node.
func (x *Ident) Span() (Pos, Pos) {
	return x.NamePos, Pos{Line: x.NamePos.Line, Col: x.NamePos.Col + int32(utf8.RuneCountInString(x.Name)), Off: x.NamePos.Off + int32(len(x.Name))}
}

// Span implements Node.
func (x *Literal) Span() (Pos, Pos) { return x.Start, x.End }

// Span implements Node.
func (x *BoolLit) Span() (Pos, Pos) { return x.Start, x.End }

// Span implements Node.
func (x *ListExpr) Span() (Pos, Pos) { return x.Lbrack, advance(x.Rbrack, 1) }

// Span implements Node.
func (x *DotExpr) Span() (Pos, Pos) {
	s, _ := x.X.Span()
	_, e := x.Name.Span()
	return s, e
}

// Span implements Node.
func (x *IndexExpr) Span() (Pos, Pos) { s, _ := x.X.Span(); return s, advance(x.Rbrack, 1) }

// Span implements Node.
func (x *CallExpr) Span() (Pos, Pos) { s, _ := x.Fn.Span(); return s, advance(x.Rparen, 1) }

// Span implements Node.
func (x *KeywordExpr) Span() (Pos, Pos) { return x.Start, x.End }

// Span implements Node.
func (x *UnaryExpr) Span() (Pos, Pos) { _, e := x.X.Span(); return x.OpPos, e }

// Span implements Node.
func (x *BinaryExpr) Span() (Pos, Pos) {
	s, _ := x.X.Span()
	_, e := x.Y.Span()
	return s, e
}

// Span implements Node.
func (x *ParenExpr) Span() (Pos, Pos) { return x.Lparen, advance(x.Rparen, 1) }

// Span implements Node.
func (x *CollectionExpr) Span() (Pos, Pos) { _, e := x.X.Span(); return x.List, e }

// String returns the operator's canonical (eng) text.
func (o Op) String() string { return o.Text(keywords.Eng) }
