// Standing declarations: @rule derivations and @constraint checks over
// claims, their restricted shape, safety, and stratification across the
// store's rules.

package check

import (
	"strings"

	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

// rterm is a rule term: a variable or a literal.
type rterm struct {
	name string // variable name; "" for a literal
	t    Type   // literal's type
	pos  syntax.Pos
}

// rlit is a literal of a rule condition: a cell test (val nil for "holds
// a value"), possibly negated, or a comparison of two terms.
type rlit struct {
	kind, attr string
	subj, val  *rterm
	neg        bool
	cmp        bool
	x, y       *rterm
	pos        syntax.Pos
}

// negLit is a negated literal of a local rule, for stratification.
type negLit struct {
	pred string
	pos  syntax.Pos
}

type localRule struct {
	info RuleInfo
	negs []negLit
}

func (c *checker) ruleVars(d *defDecl) map[string]bool {
	vars := map[string]bool{}
	for _, p := range d.stmt.Params {
		if vars[p.Name.Name] {
			c.errorf(p.Name.NamePos, "variable %s declared twice", p.Name.Name)
		}
		vars[p.Name.Name] = true
		if p.Type != nil {
			c.resolveType(p.Type)
		}
	}
	return vars
}

// checkRule checks a @rule: `if <condition>:` then cell assignments.
func (c *checker) checkRule(d *defDecl) {
	vars := c.ruleVars(d)
	name := d.stmt.Name.Name
	lr := localRule{info: RuleInfo{Name: scriptNode(c.module, name)}}
	heads := map[string]bool{}
	addHeads := func(body []syntax.Stmt, lits []rlit) {
		bound := c.ruleSafety(name, lits)
		for _, s := range body {
			if pred, ok := c.ruleHead(name, s, vars, bound); ok && !heads[pred] {
				heads[pred] = true
				lr.info.Heads = append(lr.info.Heads, pred)
			}
		}
		for _, l := range lits {
			if !l.cmp {
				lr.info.Body = append(lr.info.Body, Literal{Pred: l.kind + "." + l.attr, Negated: l.neg})
				if l.neg {
					lr.negs = append(lr.negs, negLit{pred: l.kind + "." + l.attr, pos: l.pos})
				}
			}
		}
	}
	for _, s := range d.stmt.Body {
		switch s := s.(type) {
		case *syntax.IfStmt:
			if s.Else != nil {
				c.errorf(s.If, "a rule's `%s` has no `%s`: write a second rule or a second `%s` for the alternative", c.word(keywords.If), c.word(keywords.Else), c.word(keywords.If))
			}
			addHeads(s.Then, c.ruleCond(s.Cond, vars))
		case *syntax.AssignStmt:
			addHeads([]syntax.Stmt{s}, nil)
		case *syntax.SimpleStmt, *syntax.BadStmt:
		case *syntax.ExprStmt:
			if l, ok := s.X.(*syntax.Literal); !ok || l.Token != syntax.STRING {
				c.ruleShape(s)
			}
		default:
			c.ruleShape(s)
		}
	}
	c.info.Rules = append(c.info.Rules, lr.info)
	c.localRules = append(c.localRules, lr)
}

func (c *checker) ruleShape(s syntax.Stmt) {
	c.errorf(stmtPos(s), "a @%s body is `%s <condition>:` followed by cell assignments, `Kind[x].attr = y`", c.word(keywords.Rule), c.word(keywords.If))
}

// ruleHead checks a derived cell `Kind[x].attr = y` and returns its
// predicate.
func (c *checker) ruleHead(rule string, s syntax.Stmt, vars, bound map[string]bool) (string, bool) {
	a, ok := s.(*syntax.AssignStmt)
	if !ok || a.Op != syntax.ASSIGN {
		if _, pass := s.(*syntax.SimpleStmt); !pass {
			c.ruleShape(s)
		}
		return "", false
	}
	kind, attr, subj, ok := c.ruleCell(a.LHS, vars)
	if !ok {
		at, _ := a.LHS.Span()
		c.errorf(at, "a rule derives a cell: `Kind[x].attr = y`")
		return "", false
	}
	val := c.ruleTerm(a.RHS, vars)
	if val == nil {
		return "", false
	}
	c.checkTermType(kind, attr, val)
	for _, t := range []*rterm{subj, val} {
		if t.name != "" && !bound[t.name] {
			c.unsafe(rule, t)
		}
	}
	return kind + "." + attr, true
}

func (c *checker) unsafe(rule string, t *rterm) {
	c.errorf(t.pos, "rule %s is unsafe: variable %s is not bound by a cell test (`Kind[%s].attr == …` or `Kind[…].attr == %s`)", rule, t.name, t.name, t.name)
}

// ruleSafety returns the variables the positive cell tests bind, and
// reports variables of negations and comparisons that none binds.
func (c *checker) ruleSafety(rule string, lits []rlit) map[string]bool {
	bound := map[string]bool{}
	for _, l := range lits {
		if !l.neg && !l.cmp {
			for _, t := range []*rterm{l.subj, l.val} {
				if t != nil && t.name != "" {
					bound[t.name] = true
				}
			}
		}
	}
	for _, l := range lits {
		if !l.neg && !l.cmp {
			continue
		}
		for _, t := range []*rterm{l.subj, l.val, l.x, l.y} {
			if t != nil && t.name != "" && !bound[t.name] {
				c.unsafe(rule, t)
			}
		}
	}
	return bound
}

// ruleCond flattens a rule condition into literals.
func (c *checker) ruleCond(e syntax.Expr, vars map[string]bool) []rlit {
	switch x := e.(type) {
	case *syntax.ParenExpr:
		return c.ruleCond(x.X, vars)
	case *syntax.BinaryExpr:
		switch x.Op {
		case syntax.AndOp:
			return append(c.ruleCond(x.X, vars), c.ruleCond(x.Y, vars)...)
		case syntax.OrOp:
			c.errorf(x.OpPos, "a rule condition joins tests with `%s`: write a second `%s` for the alternative", c.word(keywords.And), c.word(keywords.If))
			return append(c.ruleCond(x.X, vars), c.ruleCond(x.Y, vars)...)
		}
		return c.ruleCompare(x, vars)
	case *syntax.UnaryExpr:
		if x.Op == syntax.NotOp {
			inner := c.ruleCond(x.X, vars)
			if len(inner) != 1 || inner[0].cmp || inner[0].neg {
				if len(inner) > 0 {
					c.errorf(x.OpPos, "`%s` applies to one cell test", c.word(keywords.Not))
				}
				return nil
			}
			inner[0].neg, inner[0].pos = true, x.OpPos
			return inner
		}
	}
	if kind, attr, subj, ok := c.ruleCell(e, vars); ok {
		at, _ := e.Span()
		return []rlit{{kind: kind, attr: attr, subj: subj, pos: at}}
	}
	at, _ := e.Span()
	c.errorf(at, "a rule condition is cell tests (`Kind[x].attr == y`), negations and comparisons joined by `%s`", c.word(keywords.And))
	return nil
}

func (c *checker) ruleCompare(x *syntax.BinaryExpr, vars map[string]bool) []rlit {
	at, _ := x.Span()
	if x.Op == syntax.Eql {
		k1, a1, s1, ok1 := c.ruleCell(x.X, vars)
		k2, a2, s2, ok2 := c.ruleCell(x.Y, vars)
		switch {
		case ok1 && ok2:
			v := &rterm{name: "\x00join", pos: x.OpPos}
			return []rlit{{kind: k1, attr: a1, subj: s1, val: v, pos: at}, {kind: k2, attr: a2, subj: s2, val: v, pos: at}}
		case ok1 || ok2:
			kind, attr, subj, other := k1, a1, s1, x.Y
			if ok2 {
				kind, attr, subj, other = k2, a2, s2, x.X
			}
			val := c.ruleTerm(other, vars)
			if val == nil {
				return []rlit{{kind: kind, attr: attr, subj: subj, pos: at}}
			}
			c.checkTermType(kind, attr, val)
			return []rlit{{kind: kind, attr: attr, subj: subj, val: val, pos: at}}
		}
	}
	if !x.Op.IsComparison() || x.Op == syntax.InOp || x.Op == syntax.NotInOp {
		c.errorf(x.OpPos, "a rule condition compares with ==, !=, <, <=, > or >=")
		return nil
	}
	var lits []rlit
	side := func(e syntax.Expr) *rterm {
		if kind, attr, subj, ok := c.ruleCell(e, vars); ok {
			v := &rterm{name: "\x00" + kind + "." + attr, pos: x.OpPos}
			lits = append(lits, rlit{kind: kind, attr: attr, subj: subj, val: v, pos: at})
			return v
		}
		return c.ruleTerm(e, vars)
	}
	tx, ty := side(x.X), side(x.Y)
	if tx == nil || ty == nil {
		return lits
	}
	return append(lits, rlit{cmp: true, x: tx, y: ty, pos: at})
}

// ruleCell matches a cell of a rule: Kind.subject.attr or Kind[x].attr.
func (c *checker) ruleCell(e syntax.Expr, vars map[string]bool) (kind, attr string, subj *rterm, ok bool) {
	d, isDot := e.(*syntax.DotExpr)
	if !isDot {
		return "", "", nil, false
	}
	var base syntax.Expr
	switch b := d.X.(type) {
	case *syntax.DotExpr:
		base = b.X
		subj = &rterm{t: String, pos: b.Name.NamePos}
	case *syntax.IndexExpr:
		base = b.X
		if subj = c.ruleTerm(b.Index, vars); subj == nil {
			return "", "", nil, false
		}
	default:
		return "", "", nil, false
	}
	id, isIdent := base.(*syntax.Ident)
	if !isIdent || vars[id.Name] {
		return "", "", nil, false
	}
	kind, attr = id.Name, d.Name.Name
	if info, found := c.kindInfo(kind); found {
		a, has := c.attr(info, attr)
		switch {
		case !has:
			c.cellOf(kind, d.Name)
		case a.Computed:
			c.errorf(d.Name.NamePos, "%s.%s is a computed field: rules read and derive claims, not computed fields", kind, attr)
		}
	}
	return kind, attr, subj, true
}

// ruleTerm matches a variable or a literal.
func (c *checker) ruleTerm(e syntax.Expr, vars map[string]bool) *rterm {
	at, _ := e.Span()
	switch x := e.(type) {
	case *syntax.Ident:
		if vars[x.Name] {
			return &rterm{name: x.Name, pos: at}
		}
		c.errorf(at, "undefined: %s (a rule's variables are its parameters)", x.Name)
		return nil
	case *syntax.Literal, *syntax.BoolLit:
		return &rterm{t: c.expr(e), pos: at}
	case *syntax.UnaryExpr:
		if _, lit := x.X.(*syntax.Literal); lit && x.Op == syntax.Neg {
			return &rterm{t: c.expr(e), pos: at}
		}
	}
	c.errorf(at, "a rule term is a variable or a literal")
	return nil
}

// checkTermType checks a literal against the attribute's declared type.
func (c *checker) checkTermType(kind, attr string, t *rterm) {
	if t.name != "" {
		return
	}
	if want := c.valueType(kind, attr); !assignable(want, t.t) {
		c.errorf(t.pos, "%s.%s holds %s, got %s", kind, attr, want.Text(c.lang), t.t.Text(c.lang))
	}
}

// checkConstraint checks a @constraint: `if <condition>:` then asserts.
func (c *checker) checkConstraint(d *defDecl) {
	vars := c.ruleVars(d)
	name := d.stmt.Name.Name
	asserts := func(body []syntax.Stmt, bound map[string]bool) {
		for _, s := range body {
			a, ok := s.(*syntax.AssertStmt)
			if !ok {
				if _, pass := s.(*syntax.SimpleStmt); !pass {
					c.constraintShape(s)
				}
				continue
			}
			for _, l := range c.ruleCond(a.Cond, vars) {
				for _, t := range []*rterm{l.subj, l.val, l.x, l.y} {
					if t != nil && t.name != "" && !bound[t.name] {
						c.unsafe(name, t)
					}
				}
			}
		}
	}
	for _, s := range d.stmt.Body {
		switch s := s.(type) {
		case *syntax.IfStmt:
			if s.Else != nil {
				c.constraintShape(s)
			}
			asserts(s.Then, c.ruleSafety(name, c.ruleCond(s.Cond, vars)))
		case *syntax.AssertStmt:
			asserts([]syntax.Stmt{s}, nil)
		case *syntax.SimpleStmt, *syntax.BadStmt:
		case *syntax.ExprStmt:
			if l, ok := s.X.(*syntax.Literal); !ok || l.Token != syntax.STRING {
				c.constraintShape(s)
			}
		default:
			c.constraintShape(s)
		}
	}
}

func (c *checker) constraintShape(s syntax.Stmt) {
	c.errorf(stmtPos(s), "a @%s body is `%s <condition>:` followed by `%s <test>`", c.word(keywords.Constraint), c.word(keywords.If), c.word(keywords.Assert))
}

// stratify reports local rules that take part in a cycle of derivations
// through a negation: at the negation when it is theirs, at the rule
// otherwise.
func (c *checker) stratify() {
	if len(c.localRules) == 0 {
		return
	}
	g := newGraph()
	var negs []negEdge
	addRule := func(r RuleInfo) {
		for _, h := range r.Heads {
			g.node(h)
			for _, l := range r.Body {
				g.add(l.Pred, h)
				if l.Negated {
					negs = append(negs, negEdge{r.Name, l.Pred, h})
				}
			}
		}
	}
	prefix := c.module + "."
	for _, r := range c.env.Rules() {
		if !strings.HasPrefix(r.Name, prefix) {
			addRule(r)
		}
	}
	for _, r := range c.localRules {
		addRule(r.info)
	}
	scc := g.components()
	bad := map[int]negEdge{}
	for _, n := range negs {
		if scc[n.pred] == scc[n.head] {
			if _, seen := bad[scc[n.head]]; !seen || strings.HasPrefix(n.rule, prefix) {
				bad[scc[n.head]] = n
			}
		}
	}
	for _, r := range c.localRules {
		c.stratifyRule(r, scc, bad)
	}
}

// negEdge is a negated dependency: rule derives head from the absence of
// pred.
type negEdge struct{ rule, pred, head string }

func (c *checker) stratifyRule(r localRule, scc map[string]int, bad map[int]negEdge) {
	own := false
	for _, n := range r.negs {
		for _, h := range r.info.Heads {
			if scc[n.pred] == scc[h] {
				c.errorf(n.pos, "rules are not stratified: %s depends on its own absence through `%s %s` — a rule cannot negate what it derives, directly or through other rules",
					h, c.word(keywords.Not), n.pred)
				own = true
				break
			}
		}
	}
	if own {
		return
	}
	for _, h := range r.info.Heads {
		if n, ok := bad[scc[h]]; ok {
			_, name, _ := strings.Cut(r.info.Name, ".")
			d := c.defs[name]
			if d == nil {
				return
			}
			c.errorf(d.stmt.Name.NamePos, "rules are not stratified: %s depends on its own absence through `%s %s` in %s — a rule cannot negate what it derives, directly or through other rules",
				h, c.word(keywords.Not), n.pred, strings.TrimPrefix(n.rule, c.module+"."))
			return
		}
	}
}
