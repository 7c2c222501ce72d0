// Statements: the bodies of scripts, computed fields and the module,
// names bound in textual order, and the reflexes a Python programmer
// brings (returning from a procedure, .append, unbounded loops).

package check

import (
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

// checkDef checks a procedure, value script or computed field.
func (c *checker) checkDef(d *defDecl) {
	c.cur, c.node, c.loops = d, d.node, 0
	c.scope = map[string]*variable{}
	for i, p := range d.params {
		c.scope[p.Name] = &variable{t: p.Type, pos: d.stmt.Params[i].Name.NamePos}
	}
	c.stmts(d.stmt.Body)
	s := d.stmt
	switch d.role {
	case procedure:
		if r := d.firstValueReturn; r != nil {
			c.procedureReturns(d, r)
		}
	case valueScript, computedDef:
		if !terminates(s.Body) && d.result.Tag != TInvalid {
			c.errorf(s.Name.NamePos, "%s %s can end without returning a value: every path ends in `%s <%s>`",
				roleName(d.role), s.Name.Name, c.word(keywords.Return), d.result.Text(c.lang))
		}
	}
	c.cur, c.node = nil, ""
}

func roleName(r role) string {
	if r == computedDef {
		return "computed field"
	}
	return "value script"
}

// procedureReturns reports a procedure that returns a value, with the fix
// that declares the result type when that makes a valid value script:
// every path returns a value, and every value fits the type.
func (c *checker) procedureReturns(d *defDecl, r *syntax.ReturnStmt) {
	s := d.stmt
	t := d.valueReturnType
	fix := ""
	if t.Writable() && s.Def.Line == s.Colon.Line && !d.noResultFits && terminates(s.Body) {
		fix = c.f.Src[s.Def.Off:s.Colon.Off] + " -> " + t.Text(c.lang) + lineRest(c.f.Src, s.Colon.Off)
	}
	want := "<type>"
	if t.Writable() {
		want = t.Text(c.lang)
	}
	c.fixf(s.Def, fix, "procedure %s returns a value (line %d): a procedure does not return one — declare a value script, `%s %s(…) -> %s:`, or return nothing",
		s.Name.Name, r.Return.Line, c.word(keywords.Def), s.Name.Name, want)
}

// terminates reports whether a block always ends in return.
func terminates(body []syntax.Stmt) bool {
	for _, s := range body {
		if stmtTerminates(s) {
			return true
		}
	}
	return false
}

func stmtTerminates(s syntax.Stmt) bool {
	switch s := s.(type) {
	case *syntax.ReturnStmt:
		return true
	case *syntax.IfStmt:
		return s.Else != nil && terminates(s.Then) && terminates(s.Else)
	case *syntax.MatchStmt:
		wild := false
		for _, cs := range s.Cases {
			for _, p := range cs.Patterns {
				wild = wild || p == nil
			}
			if !terminates(cs.Body) {
				return false
			}
		}
		return wild
	case *syntax.TryStmt:
		if !terminates(s.Body) {
			return false
		}
		for _, h := range s.Handlers {
			if !terminates(h.Body) {
				return false
			}
		}
		return true
	case *syntax.BranchStmt:
		return terminates(s.Body)
	}
	return false
}

// stmts checks a block.
func (c *checker) stmts(body []syntax.Stmt) {
	for _, s := range body {
		c.stmt(s)
	}
}

func (c *checker) stmt(s syntax.Stmt) {
	switch s := s.(type) {
	case *syntax.AssignStmt:
		c.assign(s)
	case *syntax.ExprStmt:
		c.exprStmt(s)
	case *syntax.IfStmt:
		c.cond(s.Cond)
		c.stmts(s.Then)
		c.stmts(s.Else)
	case *syntax.MatchStmt:
		c.match(s)
	case *syntax.ForStmt:
		c.forStmt(s)
	case *syntax.WhileStmt:
		c.cond(s.Cond) // the parser refused it; look inside all the same
		c.loops++
		c.stmts(s.Body)
		c.loops--
	case *syntax.BranchStmt:
		c.stmts(s.Body)
	case *syntax.TryStmt:
		c.try(s)
	case *syntax.ReturnStmt:
		c.returnStmt(s)
	case *syntax.AssertStmt:
		c.cond(s.Cond)
		c.errorf(s.Assert, "`%s` belongs in a @%s: a script tests with `%s`", c.word(keywords.Assert), c.word(keywords.Constraint), c.word(keywords.If))
	case *syntax.AttrDecl:
		c.errorf(s.Name.NamePos, "an attribute is declared in a class body")
	case *syntax.DefStmt, *syntax.ClassStmt, *syntax.ImportStmt:
		// nested declarations: the parser has reported them
	}
}

// bind binds name to type t at p, checking a rebinding keeps its type.
func (c *checker) bind(id *syntax.Ident, t Type) {
	name := id.Name
	if _, ok := c.imports[name]; ok {
		c.errorf(id.NamePos, "cannot assign to %s: it names an imported module", name)
		return
	}
	if _, ok := c.defs[name]; ok {
		c.errorf(id.NamePos, "cannot assign to %s: it names a script of this module", name)
		return
	}
	if t.Tag == TNone {
		return // reported by the expression
	}
	if v, ok := c.scope[name]; ok {
		if !assignable(v.t, t) {
			c.errorf(id.NamePos, "%s is %s (line %d); cannot assign %s", name, v.t.Text(c.lang), v.pos.Line, t.Text(c.lang))
		}
		return
	}
	c.scope[name] = &variable{t: t, pos: id.NamePos}
}

func (c *checker) assign(s *syntax.AssignStmt) {
	id, ok := s.LHS.(*syntax.Ident)
	if !ok {
		c.assignTarget(s)
		return
	}
	if s.Op == syntax.ASSIGN {
		t := c.expr(s.RHS)
		if t.Tag == TNone {
			c.errorf(stmtPos(s), "%s returns no value", c.text(callee(s.RHS)))
		}
		c.bind(id, t)
		return
	}
	v, ok := c.scope[id.Name]
	if !ok {
		c.errorf(id.NamePos, "undefined: %s", id.Name)
		c.expr(s.RHS)
		return
	}
	op := map[syntax.Kind]syntax.Op{syntax.PLUSEQ: syntax.Add, syntax.MINUSEQ: syntax.Sub, syntax.STAREQ: syntax.Mul}[s.Op]
	t := c.binaryType(op, s.OpPos, v.t, c.value(s.RHS))
	if !assignable(v.t, t) {
		c.errorf(s.OpPos, "%s is %s; cannot assign %s", id.Name, v.t.Text(c.lang), t.Text(c.lang))
	}
}

// callee returns the function of a call, or the expression itself.
func callee(e syntax.Expr) syntax.Node {
	if call, ok := e.(*syntax.CallExpr); ok {
		return call.Fn
	}
	return e
}

// assignTarget reports an assignment to something other than a name.
func (c *checker) assignTarget(s *syntax.AssignStmt) {
	if d, ok := s.LHS.(*syntax.DotExpr); ok {
		if _, kind := c.kindName(d.X); !kind {
			if t := c.expr(d.X); t.Tag == TResult || t.Tag == TProofTree || t.Tag == TExplanation || t.Tag == TError {
				c.expr(s.RHS)
				c.errorf(stmtPos(s), "a %s is read-only: write the cell with `%s(cell, value, source)`", t.Text(c.lang), c.word(keywords.Update))
				return
			}
		}
	}
	t := c.expr(s.LHS)
	vt := c.expr(s.RHS)
	at := stmtPos(s)
	switch {
	case t.Tag == TCell && s.Op == syntax.ASSIGN:
		w := c.word(keywords.Remember)
		fix := ""
		if oneLine(s) {
			fix = w + "(" + c.text(s.LHS) + ", " + c.text(s.RHS) + ", <source>)" + lineRest(c.f.Src, endOf(s).Off)
		}
		c.fixf(at, fix, "a cell is written with a verb, not `=`: `%s(%s, value, source)` (a rule's `if` derives a cell with `=`)", w, c.text(s.LHS))
		// Checked as the write it means, so that the fix brings nothing new.
		c.writing(w, at)
		c.claimArgs(w, s.LHS, t, s.RHS, vt)
	case t.Tag == TResult || t.Tag == TProofTree || t.Tag == TExplanation || t.Tag == TError:
		c.errorf(at, "a %s is read-only: write the cell with `%s(cell, value, source)`", t.Text(c.lang), c.word(keywords.Update))
	case t.Tag != TInvalid:
		c.errorf(at, "cannot assign to %s: assign a name", c.text(s.LHS))
	}
}

func endOf(n syntax.Node) syntax.Pos { _, e := n.Span(); return e }

// exprStmt checks an expression statement: a call, or a docstring.
func (c *checker) exprStmt(s *syntax.ExprStmt) {
	if call, ok := s.X.(*syntax.CallExpr); ok {
		if dot, ok := call.Fn.(*syntax.DotExpr); ok && (dot.Name.Name == "append" || dot.Name.Name == "extend") {
			if c.listMethod(s, call, dot) {
				return
			}
		}
		c.call(call)
		return
	}
	if l, ok := s.X.(*syntax.Literal); ok && l.Token == syntax.STRING {
		return
	}
	if t := c.expr(s.X); t.Tag == TInvalid {
		return
	}
	c.errorf(stmtPos(s), "this expression does nothing: assign it to a name or `%s` it", c.word(keywords.Print))
}

// listMethod reports xs.append(v) and xs.extend(ys), with the fix that
// builds a new list. It returns false when the receiver is not a list,
// for dotCall to report; a receiver with a fault of its own is reported
// here, once (issue 33: one diagnostic per fault).
func (c *checker) listMethod(s *syntax.ExprStmt, call *syntax.CallExpr, dot *syntax.DotExpr) bool {
	if id, ok := dot.X.(*syntax.Ident); ok && c.unbound(id.Name) {
		return c.undefinedList(call, dot, id)
	}
	t := c.expr(dot.X)
	if t.Tag == TInvalid {
		c.args(call) // the receiver's fault is reported; dotCall would report it again
		return true
	}
	if t.Tag != TList {
		return false
	}
	var argTypes []Type
	for _, a := range call.Args {
		argTypes = append(argTypes, c.value(a.Value))
	}
	recv := c.text(dot.X)
	fix := ""
	if len(call.Args) == 1 && call.Args[0].Name == nil && oneLine(s) && c.rebuildable(dot, t, argTypes[0]) {
		arg := c.text(call.Args[0].Value)
		if dot.Name.Name == "append" {
			arg = "[" + arg + "]"
		}
		fix = recv + " = " + recv + " + " + arg + lineRest(c.f.Src, endOf(s).Off)
	}
	c.fixf(stmtPos(s), fix, "a list has no `.%s`: lists are values — build a new one, `%s = %s + [v]`", dot.Name.Name, recv, recv)
	return true
}

// unbound reports whether name is no variable, script or import here.
func (c *checker) unbound(name string) bool {
	_, v := c.scope[name]
	return !v && c.defs[name] == nil && c.imports[name] == nil
}

// undefinedList reports xs.append(v) (or .extend) on a name nothing
// defines as one diagnostic naming both faults: the name, and the method
// no list has, with what to write instead. A name the checker explains
// otherwise (a stored module not imported, another surface's word, a
// Python builtin) is left to dotCall, which reports it once.
func (c *checker) undefinedList(call *syntax.CallExpr, dot *syntax.DotExpr, id *syntax.Ident) bool {
	name := id.Name
	if _, ok := c.env.Module(name); ok {
		return false
	}
	if _, _, ok := keywords.Foreign(c.lang, name); ok {
		return false
	}
	if _, ok := pythonNames[name]; ok {
		return false
	}
	c.args(call)
	c.errorf(id.NamePos, "undefined: %s%s, and a list has no `.%s` either: lists are values — start one, `%s = [v]`, then build new ones, `%s = %s + [v]`",
		name, c.didYouMeanIn(name, c.names), dot.Name.Name, name, name, name)
	return true
}

// rebuildable reports whether `xs = xs + [v]` (or `+ ys`) is a valid
// rewrite of xs.append(v) (or xs.extend(ys)): xs is a name holding a list
// of strings, and v a string (ys such a list).
func (c *checker) rebuildable(dot *syntax.DotExpr, recv, arg Type) bool {
	if _, ok := dot.X.(*syntax.Ident); !ok || recv != StringList || arg.Tag == TInvalid {
		return false
	}
	if dot.Name.Name == "append" {
		return assignable(String, arg)
	}
	return assignable(StringList, arg)
}

// cond checks a condition: a bool.
func (c *checker) cond(e syntax.Expr) {
	t := c.value(e)
	if t.Tag == TBool || t.dynamic() {
		return
	}
	hint := ""
	switch {
	case t.Tag == TList, t.Tag == TString:
		hint = ": write `" + c.word(keywords.Len) + "(x) > 0`"
	case t.isNumeric():
		hint = ": write `x != 0`"
	case t.Tag == TResult:
		hint = ": test `.found`"
	}
	at, _ := e.Span()
	c.errorf(at, "a condition is %s, got %s%s", c.word(keywords.Bool), t.Text(c.lang), hint)
}

func (c *checker) match(s *syntax.MatchStmt) {
	t := c.value(s.X)
	wild := false
	for _, cs := range s.Cases {
		if wild {
			c.errorf(cs.Case, "unreachable `%s`: an earlier `_` matches everything", c.word(keywords.Case))
		}
		for _, p := range cs.Patterns {
			if p == nil {
				wild = true
				continue
			}
			pt := c.expr(p)
			if !comparable(t, pt) {
				at, _ := p.Span()
				c.errorf(at, "pattern is %s, but the value matched is %s", pt.Text(c.lang), t.Text(c.lang))
			}
		}
		c.stmts(cs.Body)
	}
}

func (c *checker) try(s *syntax.TryStmt) {
	c.stmts(s.Body)
	for _, h := range s.Handlers {
		if h.As != nil {
			c.bind(h.As, ErrorType)
		}
		c.stmts(h.Body)
	}
}

func (c *checker) returnStmt(s *syntax.ReturnStmt) {
	d := c.cur
	if d == nil {
		if c.mode == Run {
			c.refusef(s.Return, "a program cannot `%s`: `%s` the value, or bind it to a name", c.word(keywords.Return), c.word(keywords.Print))
		} else {
			c.refusef(s.Return, "`%s` outside a `%s`", c.word(keywords.Return), c.word(keywords.Def))
		}
		if s.Result != nil {
			c.expr(s.Result)
		}
		return
	}
	if d.role == procedure {
		if s.Result == nil {
			d.noResultFits = true
			return
		}
		t := c.value(s.Result)
		if d.firstValueReturn == nil {
			d.firstValueReturn, d.valueReturnType = s, t
		} else if !assignable(d.valueReturnType, t) {
			d.noResultFits = true
		}
		return
	}
	if s.Result == nil {
		c.errorf(s.Return, "%s %s returns %s: write `%s <value>`", roleName(d.role), d.stmt.Name.Name, d.result.Text(c.lang), c.word(keywords.Return))
		return
	}
	t := c.value(s.Result)
	if !assignable(d.result, t) {
		at, _ := s.Result.Span()
		c.errorf(at, "%s %s returns %s, not %s", roleName(d.role), d.stmt.Name.Name, d.result.Text(c.lang), t.Text(c.lang))
	}
}
