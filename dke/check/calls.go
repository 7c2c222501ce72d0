// Calls: the verbs, conversions, calls of this module's scripts and of
// imported ones, and the bounded `for` over finite collections.

package check

import (
	"github.com/deloreis/deloreis/dke/diag"
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

// call returns the type of a call.
func (c *checker) call(e *syntax.CallExpr) Type {
	switch fn := e.Fn.(type) {
	case *syntax.KeywordExpr:
		return c.verb(fn, e)
	case *syntax.Ident:
		if d, ok := c.defs[fn.Name]; ok {
			return c.localCall(d, e)
		}
		if kid, ok := c.misspeltWord(fn.Name, true); ok && c.scope[fn.Name] == nil && c.imports[fn.Name] == nil {
			// Checked as the word the fix writes, so that the fixed call
			// brings nothing new.
			c.undefined(fn, true)
			_, end := fn.Span()
			return c.verb(&syntax.KeywordExpr{Start: fn.NamePos, End: end, ID: kid}, e)
		}
		c.args(e)
		if _, ok := c.scope[fn.Name]; ok {
			c.errorf(fn.NamePos, "%s is not callable", fn.Name)
			return Invalid
		}
		c.undefined(fn, true)
		return Invalid
	case *syntax.DotExpr:
		return c.dotCall(fn, e)
	}
	c.args(e)
	at, _ := e.Fn.Span()
	c.errorf(at, "%s is not callable", c.text(e.Fn))
	return Invalid
}

// args checks arguments as values, for a call that is wrong anyway.
func (c *checker) args(e *syntax.CallExpr) {
	for _, a := range e.Args {
		c.expr(a.Value)
	}
}

func (c *checker) dotCall(fn *syntax.DotExpr, e *syntax.CallExpr) Type {
	if id, ok := fn.X.(*syntax.Ident); ok {
		if d := c.imports[id.Name]; d != nil {
			return c.moduleCall(id.Name, d, fn.Name, e)
		}
		if _, ok := c.scope[id.Name]; !ok && c.defs[id.Name] == nil {
			c.args(e)
			if _, ok := c.env.Module(id.Name); ok {
				c.errorf(id.NamePos, "module %s is not imported: add `%s %s`", id.Name, c.word(keywords.Import), id.Name)
			} else {
				c.undefined(id, false)
			}
			return Invalid
		}
	}
	t := c.expr(fn.X)
	c.args(e)
	switch {
	case t.Tag == TInvalid:
	case t.Tag == TList && (fn.Name.Name == "append" || fn.Name.Name == "extend"):
		c.errorf(fn.Name.NamePos, "a list has no `.%s`: lists are values — build a new one, `xs = xs + [v]`", fn.Name.Name)
	default:
		c.errorf(fn.Name.NamePos, "DKE Python has no methods: %s has no `.%s(…)`", t.Text(c.lang), fn.Name.Name)
	}
	return Invalid
}

// edge records a call-graph edge from the body being checked.
func (c *checker) edge(to string, p syntax.Pos) {
	if c.node != "" {
		c.edges[c.node] = append(c.edges[c.node], edge{to: to, pos: p})
	}
}

func (c *checker) localCall(d *defDecl, e *syntax.CallExpr) Type {
	name := d.stmt.Name.Name
	if d.role == ruleDef || d.role == constraintDef {
		c.args(e)
		c.errorf(e.Lparen, "%s is a standing @%s: it is not called", name, d.stmt.Decorator.Name.Name)
		return Invalid
	}
	c.edge(d.node, e.Lparen)
	c.checkArgs(name, d.params, e)
	return d.result
}

func (c *checker) moduleCall(mod string, d *importDecl, name *syntax.Ident, e *syntax.CallExpr) Type {
	if d.mod == nil {
		c.args(e)
		return Invalid
	}
	s, ok := d.mod.Script(name.Name)
	if !ok {
		c.args(e)
		names := func() map[string]string {
			out := map[string]string{}
			for _, s := range d.mod.Scripts {
				out[s.Name] = s.Name
			}
			return out
		}
		c.errorf(name.NamePos, "module %s has no script %s%s", mod, name.Name, c.didYouMean(name.Name, names))
		return Invalid
	}
	c.edge(scriptNode(mod, name.Name), name.NamePos)
	c.checkArgs(mod+"."+name.Name, s.Params, e)
	return s.Result
}

// checkArgs checks a script call's arguments against its parameters.
func (c *checker) checkArgs(name string, params []Param, e *syntax.CallExpr) {
	if len(e.Args) != len(params) {
		c.errorf(e.Lparen, "%s takes %d argument%s, got %d", name, len(params), plural(len(params)), len(e.Args))
	}
	for i, a := range e.Args {
		if a.Name != nil {
			c.errorf(a.Name.NamePos, "a script takes its arguments in order, without names")
		}
		t := c.value(a.Value)
		if i < len(params) && !assignable(params[i].Type, t) {
			at, _ := a.Value.Span()
			c.errorf(at, "argument %s of %s is %s, got %s", params[i].Name, name, params[i].Type.Text(c.lang), t.Text(c.lang))
		}
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// cellArg checks an argument that must be a cell.
func (c *checker) cellArg(verb string, e syntax.Expr) Type {
	t := c.expr(e)
	if t.Tag == TCell || t.Tag == TInvalid {
		return t
	}
	at, _ := e.Span()
	c.errorf(at, "`%s` needs a cell, `Kind.subject.attribute`, got %s", verb, t.Text(c.lang))
	return Invalid
}

// readComputed records the call-graph edge of reading a cell that a
// computed field computes.
func (c *checker) readComputed(t Type, p syntax.Pos) {
	if t.Tag != TCell && t.Tag != TList {
		return
	}
	info, ok := c.kindInfo(t.KindName)
	if !ok {
		return
	}
	for _, a := range info.Attrs {
		if a.Computed && (t.Attr == "" || t.Attr == a.Name) {
			c.edge(computedNode(t.KindName, a.Name), p)
		}
	}
}

// arity checks the argument count of a verb.
func (c *checker) arity(e *syntax.CallExpr, verb string, want int, sig string) bool {
	if len(e.Args) == want {
		return true
	}
	c.args(e)
	c.errorf(e.Lparen, "`%s` takes %s", verb, sig)
	return false
}

func (c *checker) noKeywordArgs(e *syntax.CallExpr, verb string) {
	for _, a := range e.Args {
		if a.Name != nil {
			c.errorf(a.Name.NamePos, "`%s` takes no argument named %s", verb, a.Name.Name)
		}
	}
}

// verb checks a call of a built-in verb or conversion.
func (c *checker) verb(fn *syntax.KeywordExpr, e *syntax.CallExpr) Type {
	w := c.word(fn.ID)
	if fn.ID != keywords.Forget {
		c.noKeywordArgs(e, w)
	}
	switch fn.ID {
	case keywords.Print:
		for _, a := range e.Args {
			c.value(a.Value)
		}
		return NoValue
	case keywords.Remember, keywords.Update:
		c.write(fn, e)
		return NoValue
	case keywords.Forget:
		c.forget(fn, e)
		return NoValue
	case keywords.Current, keywords.Why, keywords.WhyNot, keywords.WhatNeeds:
		return c.read(fn, e)
	case keywords.ListScripts:
		c.arity(e, w, 0, "no arguments: `"+w+"()`")
		return StringList
	case keywords.Len:
		if c.arity(e, w, 1, "one argument") {
			if t := c.value(e.Args[0].Value); t.Tag != TList && t.Tag != TString && !t.dynamic() {
				c.errorf(e.Lparen, "`%s` needs a %s or %s, got %s", w, c.word(keywords.String), c.word(keywords.StringList), t.Text(c.lang))
			}
		}
		return Int
	}
	return c.conversion(fn, e)
}

func (c *checker) conversion(fn *syntax.KeywordExpr, e *syntax.CallExpr) Type {
	w := c.word(fn.ID)
	if fn.ID == keywords.StringList {
		c.args(e)
		c.errorf(fn.Start, "%s is not a conversion: write a list, `[\"a\", \"b\"]`", w)
		return StringList
	}
	out := builtinType(fn.ID)
	if !c.arity(e, w, 1, "one argument") {
		return out
	}
	t := c.value(e.Args[0].Value)
	ok := t.isScalar()
	if fn.ID != keywords.String && t.Tag == TSubject {
		ok = false
	}
	if !ok {
		c.errorf(e.Lparen, "cannot convert %s to %s", t.Text(c.lang), w)
	}
	return out
}

// write checks remember and update: (cell, value, source).
func (c *checker) write(fn *syntax.KeywordExpr, e *syntax.CallExpr) {
	w := c.word(fn.ID)
	c.writing(w, fn.Start)
	if len(e.Args) == 2 && oneLine(e) {
		// The fix adds the source; what else is wrong is reported now, so
		// that the fixed call brings nothing new.
		fix := w + "(" + c.text(e.Args[0].Value) + ", " + c.text(e.Args[1].Value) + ", " + diag.SourcePlaceholder + ")" + lineRest(c.f.Src, endOf(e).Off)
		c.fixf(fn.Start, fix, "`%s` takes (cell, value, source): every claim names its source", w)
		c.claimArgs(w, e.Args[0].Value, c.cellArg(w, e.Args[0].Value), e.Args[1].Value, c.value(e.Args[1].Value))
		return
	}
	if !c.arity(e, w, 3, "(cell, value, source)") {
		return
	}
	c.claimArgs(w, e.Args[0].Value, c.cellArg(w, e.Args[0].Value), e.Args[1].Value, c.value(e.Args[1].Value))
	if st := c.value(e.Args[2].Value); !assignable(String, st) {
		at, _ := e.Args[2].Value.Span()
		c.errorf(at, "a source is a %s, got %s", c.word(keywords.String), st.Text(c.lang))
	}
}

// claimArgs checks the cell and value of a write: a cell that is not
// computed, and a value it can hold.
func (c *checker) claimArgs(w string, cellExpr syntax.Expr, cell Type, valExpr syntax.Expr, vt Type) {
	if cell.Tag == TCell && cell.Attr != "" {
		if info, ok := c.kindInfo(cell.KindName); ok {
			if a, ok := c.attr(info, cell.Attr); ok && a.Computed {
				at, _ := cellExpr.Span()
				c.errorf(at, "%s.%s is a computed field: it is computed on read, not remembered", cell.KindName, cell.Attr)
			}
		}
	}
	if want := c.valueType(cell.KindName, cell.Attr); want.Tag != TValue && cell.Tag == TCell && !assignable(want, vt) {
		at, _ := valExpr.Span()
		c.errorf(at, "%s.%s holds %s, got %s", cell.KindName, cell.Attr, want.Text(c.lang), vt.Text(c.lang))
	} else if !vt.isScalar() {
		at, _ := valExpr.Span()
		c.errorf(at, "a claim holds one value, got %s", vt.Text(c.lang))
	}
}

// writes records that the body being checked writes, refusing a write in
// a computed field.
func (c *checker) writing(w string, at syntax.Pos) {
	c.writes[c.node] = true
	if c.cur != nil && c.cur.role == computedDef {
		c.errorf(at, "a computed field cannot write: `%s` belongs in a script", w)
	}
}

// forget checks forget(cell) and the range forget(cell, before=instant).
func (c *checker) forget(fn *syntax.KeywordExpr, e *syntax.CallExpr) {
	w := c.word(fn.ID)
	c.writing(w, fn.Start)
	before := c.word(keywords.Before)
	sig := "(cell) or (cell, " + before + "=instant)"
	if len(e.Args) < 1 || len(e.Args) > 2 || e.Args[0].Name != nil {
		c.args(e)
		c.errorf(e.Lparen, "`%s` takes %s", w, sig)
		return
	}
	c.cellArg(w, e.Args[0].Value)
	if len(e.Args) == 2 {
		a := e.Args[1]
		if a.Name == nil || a.Name.Name != before {
			c.errorf(e.Lparen, "`%s` takes %s: name the instant, `%s=…`", w, sig, before)
		}
		if t := c.value(a.Value); !assignable(Int, t) {
			at, _ := a.Value.Span()
			c.errorf(at, "an instant is %s, got %s", c.word(keywords.Int), t.Text(c.lang))
		}
	}
}

// read checks current, why, why_not and what_needs: (cell).
func (c *checker) read(fn *syntax.KeywordExpr, e *syntax.CallExpr) Type {
	w := c.word(fn.ID)
	if !c.arity(e, w, 1, "one cell: `"+w+"(Kind.subject.attribute)`") {
		return Invalid
	}
	t := c.cellArg(w, e.Args[0].Value)
	c.readComputed(t, fn.Start)
	switch fn.ID {
	case keywords.Current:
		return Type{Tag: TResult, KindName: t.KindName, Attr: t.Attr}
	case keywords.Why:
		return Type{Tag: TProofTree, KindName: t.KindName, Attr: t.Attr}
	case keywords.WhyNot:
		return Explanation
	}
	return StringList
}

// collection checks `list <form> of <x>`.
func (c *checker) collection(e *syntax.CollectionExpr) Type {
	if e.Form == keywords.Claims {
		t := c.cellArg(c.word(keywords.List)+" "+c.word(keywords.Claims)+" "+c.word(keywords.Of), e.X)
		c.readComputed(t, e.List)
		return Type{Tag: TList, Elem: TResult, KindName: t.KindName, Attr: t.Attr}
	}
	if k, ok := c.kindName(e.X); ok {
		if e.Form == keywords.Subjects {
			return Type{Tag: TList, Elem: TSubject, KindName: k}
		}
		return StringList
	}
	if t := c.value(e.X); t.Tag != TString && !t.dynamic() {
		at, _ := e.X.Span()
		c.errorf(at, "`%s %s %s` needs a kind, by name or as a %s, got %s", c.word(keywords.List), c.word(e.Form), c.word(keywords.Of), c.word(keywords.String), t.Text(c.lang))
	}
	return StringList
}

// forStmt checks a bounded loop.
func (c *checker) forStmt(s *syntax.ForStmt) {
	t := c.iterable(s)
	c.loops++
	c.bind(s.Var, t)
	c.stmts(s.Body)
	c.loops--
}

// iterable returns the element type of a loop's collection, refusing
// anything that is not a finite collection.
func (c *checker) iterable(s *syntax.ForStmt) Type {
	xs, xe := s.X.Span()
	fix := ""
	if s.For.Line == xe.Line {
		fix = c.f.Src[s.For.Off:xs.Off] + diag.CollectionPlaceholder + lineRest(c.f.Src, xe.Off)
	}
	example := "`" + c.word(keywords.List) + " " + c.word(keywords.Attributes) + " " + c.word(keywords.Of) + " K`"
	if call, ok := s.X.(*syntax.CallExpr); ok {
		if id, ok := call.Fn.(*syntax.Ident); ok && c.scope[id.Name] == nil && c.defs[id.Name] == nil {
			if _, _, foreign := keywords.Foreign(c.lang, id.Name); !foreign {
				c.args(call)
				c.fixf(s.For, fix, "unbounded loop: `%s(…)` is not a finite collection — `%s` iterates a store-derived collection, `%s` (e.g. %s); there is no unbounded loop",
					id.Name, c.word(keywords.For), syntax.ForFix(c.lang, diag.VarPlaceholder), example)
				return Invalid
			}
		}
	}
	t := c.value(s.X)
	switch t.Tag {
	case TList:
		return t.ElemType()
	case TInvalid:
		return Invalid
	case TValue:
		return Value
	}
	c.fixf(s.For, fix, "cannot iterate over %s: `%s` iterates a finite, store-derived collection, `%s` (e.g. %s)",
		t.Text(c.lang), c.word(keywords.For), syntax.ForFix(c.lang, diag.VarPlaceholder), example)
	return Invalid
}
