// Expressions: names, literals, operators, fields of results, and the
// cells and subjects a kind name opens.

package check

import (
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

// value checks an expression used as a value: not a cell, not a call
// that returns nothing.
func (c *checker) value(e syntax.Expr) Type {
	t := c.expr(e)
	switch t.Tag {
	case TCell:
		c.cellAsValue(e, "")
		return Invalid
	case TNone:
		at, _ := e.Span()
		c.errorf(at, "%s returns no value", c.text(callee(e)))
		return Invalid
	}
	return t
}

// cellAsValue reports a cell read as if it were its value, with the fix
// that reads it through current().
func (c *checker) cellAsValue(e syntax.Expr, field string) {
	at, end := e.Span()
	cur := c.word(keywords.Current)
	read := cur + "(" + c.text(e) + ")"
	msg := "a cell is not a value: read it with `" + read + ".value`"
	if field == "" {
		read += ".value"
	} else {
		msg = "a cell has no fields: read it with `" + read + "." + field + "`"
	}
	c.fixf(at, spanFix(c.f.Src, at, end, read), "%s", msg)
}

// expr returns the type of an expression; cells are allowed.
func (c *checker) expr(e syntax.Expr) Type {
	switch e := e.(type) {
	case *syntax.Ident:
		return c.ident(e)
	case *syntax.Literal:
		switch e.Token {
		case syntax.INT:
			return Int
		case syntax.FLOAT:
			return Float
		}
		return String
	case *syntax.BoolLit:
		return Bool
	case *syntax.ListExpr:
		for _, x := range e.Elems {
			if t := c.value(x); !assignable(String, t) {
				at, _ := x.Span()
				c.errorf(at, "a list holds strings (%s), not %s", c.word(keywords.StringList), t.Text(c.lang))
			}
		}
		return StringList
	case *syntax.ParenExpr:
		return c.expr(e.X)
	case *syntax.UnaryExpr:
		return c.unary(e)
	case *syntax.BinaryExpr:
		return c.binary(e)
	case *syntax.DotExpr:
		return c.dot(e)
	case *syntax.IndexExpr:
		return c.index(e)
	case *syntax.CallExpr:
		return c.call(e)
	case *syntax.CollectionExpr:
		return c.collection(e)
	case *syntax.KeywordExpr:
		c.errorf(e.Start, "`%s` is called: write `%s(…)`", c.word(e.ID), c.word(e.ID))
		return Invalid
	}
	return Invalid
}

// pythonNames are Python builtins a program may reach for, and what to
// write instead.
var pythonNames = map[string]keywords.ID{"str": keywords.String, "None": keywords.None, "self": keywords.None}

// ident resolves a name used as a value.
func (c *checker) ident(id *syntax.Ident) Type {
	if v, ok := c.scope[id.Name]; ok {
		return v.t
	}
	c.undefined(id, false)
	if kid, ok := c.misspeltWord(id.Name, false); ok && kid.Group() == keywords.Literal {
		return Bool // True or False on another surface, as the fix writes it
	}
	return Invalid
}

// misspeltWord returns the keyword a fix writes for name: a word of
// another surface, or a Python builtin. Only words that are valid where
// name stands get a fix: a value (True, False) as a value, a verb or a
// conversion as a call.
func (c *checker) misspeltWord(name string, called bool) (keywords.ID, bool) {
	kid, _, ok := keywords.Foreign(c.lang, name)
	if !ok {
		kid, ok = pythonNames[name]
		ok = ok && kid != keywords.None
	}
	if !ok {
		return keywords.None, false
	}
	switch kid.Group() {
	case keywords.Literal:
		return kid, !called
	case keywords.Verb, keywords.Type:
		return kid, called
	}
	return keywords.None, false
}

// undefined reports a name that is not a variable.
func (c *checker) undefined(id *syntax.Ident, called bool) {
	name := id.Name
	switch {
	case c.imports[name] != nil:
		c.errorf(id.NamePos, "module %s is not a value: call its scripts, `%s.f(…)`", name, name)
		return
	case c.defs[name] != nil && !called:
		c.errorf(id.NamePos, "%s is a script: call it, `%s(…)`", name, name)
		return
	}
	if kid, from, ok := keywords.Foreign(c.lang, name); ok {
		w := c.word(kid)
		fix := ""
		if _, ok := c.misspeltWord(name, called); ok {
			fix = replaceFrom(c.f.Src, endOf(id), w)
		}
		c.fixf(id.NamePos, fix, "undefined: %s (`%s` is the %s word; %s writes `%s`)", name, name, from, c.lang, w)
		return
	}
	if kid, ok := pythonNames[name]; ok {
		switch name {
		case "None":
			c.errorf(id.NamePos, "DKE Python has no None: test whether a cell holds a value with `%s(cell).found`", c.word(keywords.Current))
		case "self":
			c.errorf(id.NamePos, "undefined: self (a computed field names its subject as its one parameter)")
		default:
			w := c.word(kid)
			fix := ""
			if _, ok := c.misspeltWord(name, called); ok {
				fix = replaceFrom(c.f.Src, endOf(id), w)
			}
			c.fixf(id.NamePos, fix, "undefined: %s (write `%s`)", name, w)
		}
		return
	}
	c.errorf(id.NamePos, "undefined: %s%s", name, c.didYouMeanIn(name, c.names))
}

// names lists the names a suggestion may offer: the verbs and the
// module's scripts (made once per check) and the variables in scope.
func (c *checker) names() []map[string]string {
	if c.fixedNames == nil {
		c.fixedNames = c.keywordCands(keywords.Verb)
		for n := range c.defs {
			c.fixedNames[n] = n
		}
	}
	vars := make(map[string]string, len(c.scope))
	for n := range c.scope {
		vars[n] = n
	}
	return []map[string]string{vars, c.fixedNames}
}

// keywordCands maps the words of a keyword group, on every surface, to
// this surface's word.
func (c *checker) keywordCands(g keywords.Group) map[string]string {
	out := map[string]string{}
	for _, id := range keywords.InGroup(g) {
		for _, l := range keywords.Langs {
			out[keywords.Word(l, id)] = c.word(id)
		}
	}
	return out
}

// kindName reports whether e is a name that opens a kind: not a variable,
// a module or a script.
func (c *checker) kindName(e syntax.Expr) (string, bool) {
	id, ok := e.(*syntax.Ident)
	if !ok {
		return "", false
	}
	if _, ok := c.scope[id.Name]; ok {
		return "", false
	}
	if c.imports[id.Name] != nil || c.defs[id.Name] != nil {
		return "", false
	}
	if _, _, ok := keywords.Foreign(c.lang, id.Name); ok {
		return "", false
	}
	return id.Name, true
}

// kindInfo returns the declaration of a kind, from this module or the
// store.
func (c *checker) kindInfo(name string) (*KindInfo, bool) {
	if k, ok := c.kinds[name]; ok {
		return k.info, true
	}
	return c.env.Kind(name)
}

// cellOf returns the type of attribute attr of a subject of kind k.
func (c *checker) cellOf(k string, attr *syntax.Ident) Type {
	if info, ok := c.kindInfo(k); ok {
		if _, ok := c.attr(info, attr.Name); !ok {
			names := func() map[string]string {
				out := map[string]string{}
				for _, a := range info.Attrs {
					out[a.Name] = a.Name
				}
				return out
			}
			c.errorf(attr.NamePos, "kind %s has no attribute %s%s", k, attr.Name, c.didYouMean(attr.Name, names))
			return Invalid
		}
	}
	return Type{Tag: TCell, KindName: k, Attr: attr.Name}
}

// valueType returns the type of the value held at cell kind.attr.
func (c *checker) valueType(kind, attr string) Type {
	if attr == "" {
		return Value
	}
	if info, ok := c.kindInfo(kind); ok {
		if a, ok := c.attr(info, attr); ok {
			return a.Type
		}
	}
	return Value
}

// fields are the fields of each result type.
var fields = map[Tag]map[string]Type{
	TResult:      {"found": Bool, "source": String, "at": Int, "kind": String, "subject": String, "attribute": String},
	TProofTree:   {"found": Bool, "derived": Bool, "rule": String, "sources": StringList, "text": String},
	TExplanation: {"found": Bool, "needs": StringList, "text": String},
	TError:       {"kind": String, "message": String},
}

func (c *checker) dot(e *syntax.DotExpr) Type {
	if k, ok := c.kindName(e.X); ok {
		return Subject(k)
	}
	if id, ok := e.X.(*syntax.Ident); ok && c.imports[id.Name] != nil {
		c.errorf(id.NamePos, "%s.%s is a script: call it, `%s.%s(…)`", id.Name, e.Name.Name, id.Name, e.Name.Name)
		return Invalid
	}
	t := c.expr(e.X)
	switch t.Tag {
	case TInvalid:
		return Invalid
	case TSubject:
		return c.cellOf(t.KindName, e.Name)
	case TCell:
		c.cellAsValue(e.X, e.Name.Name)
		return Invalid
	case TResult, TProofTree:
		if e.Name.Name == "value" {
			return c.valueType(t.KindName, t.Attr)
		}
	}
	if fs, ok := fields[t.Tag]; ok {
		if ft, ok := fs[e.Name.Name]; ok {
			return ft
		}
		names := func() map[string]string {
			out := map[string]string{}
			for n := range fs {
				out[n] = n
			}
			if t.Tag == TResult || t.Tag == TProofTree {
				out["value"] = "value"
			}
			return out
		}
		c.errorf(e.Name.NamePos, "%s has no field %s%s", t.Text(c.lang), e.Name.Name, c.didYouMean(e.Name.Name, names))
		return Invalid
	}
	c.errorf(e.Name.NamePos, "%s has no field %s", t.Text(c.lang), e.Name.Name)
	return Invalid
}

func (c *checker) index(e *syntax.IndexExpr) Type {
	if k, ok := c.kindName(e.X); ok {
		c.subjectIndex(e.Index)
		return Subject(k)
	}
	t := c.expr(e.X)
	switch t.Tag {
	case TInvalid:
		c.expr(e.Index)
		return Invalid
	case TSubject:
		c.subjectIndex(e.Index)
		return Type{Tag: TCell, KindName: t.KindName}
	case TList:
		c.intIndex(e.Index)
		return t.ElemType()
	case TString:
		c.intIndex(e.Index)
		return String
	case TCell:
		c.cellAsValue(e.X, "")
		return Invalid
	}
	c.errorf(endOf(e.X), "%s cannot be indexed", t.Text(c.lang))
	return Invalid
}

// subjectIndex checks a computed subject or attribute name: a string.
func (c *checker) subjectIndex(e syntax.Expr) {
	t := c.value(e)
	if t.Tag == TString || t.Tag == TSubject || t.dynamic() {
		return
	}
	at, _ := e.Span()
	c.errorf(at, "a computed subject or attribute is a %s, got %s", c.word(keywords.String), t.Text(c.lang))
}

func (c *checker) intIndex(e syntax.Expr) {
	if t := c.value(e); t.Tag != TInt && !t.dynamic() {
		at, _ := e.Span()
		c.errorf(at, "an index is %s, got %s", c.word(keywords.Int), t.Text(c.lang))
	}
}

func (c *checker) unary(e *syntax.UnaryExpr) Type {
	t := c.value(e.X)
	if e.Op == syntax.NotOp {
		if t.Tag != TBool && !t.dynamic() {
			c.errorf(e.OpPos, "`%s` needs %s, got %s", c.word(keywords.Not), c.word(keywords.Bool), t.Text(c.lang))
		}
		return Bool
	}
	if !t.isNumeric() && !t.dynamic() {
		c.errorf(e.OpPos, "cannot negate %s", t.Text(c.lang))
		return Invalid
	}
	return t
}

func (c *checker) binary(e *syntax.BinaryExpr) Type {
	return c.binaryType(e.Op, e.OpPos, c.value(e.X), c.value(e.Y))
}

// binaryType returns the type of x op y, reporting a mismatch at p.
func (c *checker) binaryType(op syntax.Op, p syntax.Pos, x, y Type) Type {
	if x.Tag == TInvalid || y.Tag == TInvalid {
		if op.IsComparison() || op == syntax.AndOp || op == syntax.OrOp {
			return Bool
		}
		return Invalid
	}
	bad := func() Type {
		c.errorf(p, "`%s` does not apply to %s and %s", op.Text(c.lang), x.Text(c.lang), y.Text(c.lang))
		return Invalid
	}
	switch op {
	case syntax.AndOp, syntax.OrOp:
		if (x.Tag != TBool && !x.dynamic()) || (y.Tag != TBool && !y.dynamic()) {
			c.errorf(p, "`%s` needs %s operands, got %s and %s", op.Text(c.lang), c.word(keywords.Bool), x.Text(c.lang), y.Text(c.lang))
		}
		return Bool
	case syntax.Eql, syntax.Neq:
		if !comparable(x, y) {
			bad()
		}
		return Bool
	case syntax.Lss, syntax.Leq, syntax.Gtr, syntax.Geq:
		if !ordered(x, y) {
			bad()
		}
		return Bool
	case syntax.InOp, syntax.NotInOp:
		if !c.member(x, y) {
			bad()
		}
		return Bool
	}
	return c.arith(op, x, y, bad)
}

func (c *checker) member(x, y Type) bool {
	switch {
	case y.dynamic():
		return true
	case y.Tag == TString:
		return x.Tag == TString || x.dynamic()
	case y.Tag == TList:
		return assignable(y.ElemType(), x)
	}
	return false
}

func (c *checker) arith(op syntax.Op, x, y Type, bad func() Type) Type {
	if x.dynamic() || y.dynamic() {
		return Value
	}
	switch {
	case op == syntax.Add && x.Tag == TString && y.Tag == TString:
		return String
	case op == syntax.Add && x.Tag == TList && x == y:
		return x
	case !x.isNumeric() || !y.isNumeric():
		return bad()
	case op == syntax.Div:
		return Float
	case x.Tag == TFloat || y.Tag == TFloat:
		return Float
	}
	return Int
}

// attrIndex is a per-check index of a large kind's attributes by name:
// the position of each name's first attribute, over the first n.
type attrIndex struct {
	n   int
	pos map[string]int
}

// attr returns the attribute of kind k named name, as KindInfo.Attr does,
// through an index for kinds with many attributes so that a large class
// costs linear time to check.
func (c *checker) attr(k *KindInfo, name string) (*AttrInfo, bool) {
	if len(k.Attrs) <= 16 {
		return k.Attr(name)
	}
	if c.attrIndexes == nil {
		c.attrIndexes = map[*KindInfo]*attrIndex{}
	}
	ix := c.attrIndexes[k]
	if ix == nil || ix.n != len(k.Attrs) { // a class being declared grows
		ix = &attrIndex{n: len(k.Attrs), pos: make(map[string]int, len(k.Attrs))}
		for i := len(k.Attrs) - 1; i >= 0; i-- {
			ix.pos[k.Attrs[i].Name] = i
		}
		c.attrIndexes[k] = ix
	}
	if i, ok := ix.pos[name]; ok {
		return &k.Attrs[i], true
	}
	return nil, false
}
