// Standing rules: the @rule declarations of the store lowered to the shared
// datalog engine over the values in force, and what current, why, why_not
// and what_needs read from the model.
//
// A cell Kind.s.a holding v is the atom "Kind.a"(s, v). Each value in force
// is a fact whose support is a variable naming its claim, and each rule
// multiplies in a variable naming the rule, so a derived atom's support
// paths are its proofs: the rules and the claims it rests on. Every
// variable is true; grading still matters, because a negated atom
// ("not q(a)") is false where q(a) holds.

package eval

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/keywords"
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
// strings; values of different types are only ever unequal.
func compareKeys(op syntax.Op, a, b string) bool {
	var c int
	if a[:2] != b[:2] {
		return op == syntax.Neq
	}
	switch a[:2] {
	case "n:":
		x, _ := strconv.ParseFloat(a[2:], 64)
		y, _ := strconv.ParseFloat(b[2:], 64)
		c = cmp3(x < y, x > y)
	default:
		c = strings.Compare(a, b)
	}
	switch op {
	case syntax.Eql:
		return c == 0
	case syntax.Neq:
		return c != 0
	case syntax.Lss:
		return c < 0
	case syntax.Leq:
		return c <= 0
	case syntax.Gtr:
		return c > 0
	case syntax.Geq:
		return c >= 0
	}
	return false
}

func (t rterm) term() datalog.Term {
	if t.v != "" {
		return datalog.V(t.v)
	}
	return datalog.C(t.c)
}

// ruleModel is the store's rules evaluated over the values in force.
type ruleModel struct {
	clauses []clause
	heads   map[string]bool // predicates some rule derives
	model   *datalog.Model
	claims  map[string]claims.Claim // claim variable → claim
	grader  *datalog.Grader
}

var allTrue = datalog.ValuationFunc(func(string) datalog.Truth { return datalog.True })

func claimVar(c claims.Claim) string {
	return "claim:" + c.Cell.String() + "@" + strconv.FormatInt(c.At, 10)
}

// rules returns the store's rules: every stored module's, with the running
// module's own in place of its stored version.
func (in *interp) ruleDecls() []ruleDecl {
	var out []ruleDecl
	add := func(mod string, f *syntax.File) {
		for _, s := range f.Stmts {
			if d, ok := s.(*syntax.DefStmt); ok && d.Decorator != nil && d.Decorator.ID == keywords.Rule {
				out = append(out, ruleDecl{module: mod, def: d})
			}
		}
	}
	for _, name := range in.opts.Modules.ModuleNames() {
		if name == in.opts.Module {
			continue
		}
		if f, ok := in.opts.Modules.Module(name); ok {
			add(name, f)
		}
	}
	if in.opts.Module != "" {
		add(in.opts.Module, in.root)
	}
	return out
}

// concludes reports whether some rule derives the cell's attribute; the
// rules are lowered once per run.
func (in *interp) concludes(c claims.Cell) bool {
	if in.heads == nil {
		in.heads = map[string]bool{}
		for _, d := range in.ruleDecls() {
			for _, cl := range lowerRule(d) {
				in.clauses = append(in.clauses, cl)
				in.heads[cl.head.pred] = true
			}
		}
	}
	return in.heads[c.Kind+"."+c.Attr]
}

// derived returns the rule model of the current view, building it on
// first use after a write.
func (in *interp) derived() (*ruleModel, error) {
	if in.rules != nil {
		return in.rules, nil
	}
	rm, err := buildRules(in.tx, in.clauses, in.heads)
	if err != nil {
		return nil, err
	}
	in.rules = rm
	return rm, nil
}

func buildRules(tx *claims.Tx, clauses []clause, heads map[string]bool) (*ruleModel, error) {
	rm := &ruleModel{clauses: clauses, heads: heads, claims: map[string]claims.Claim{}}
	p := datalog.NewProgram()
	read := map[string]bool{}
	for _, c := range clauses {
		for _, l := range c.body {
			if !l.cmp {
				read[l.pred] = true
			}
		}
	}
	domain := map[string]bool{}
	kinds := map[string]bool{}
	for pred := range read {
		kinds[pred[:strings.IndexByte(pred, '.')]] = true
	}
	for _, k := range sortedKeys(kinds) {
		for _, cell := range tx.Cells(k) {
			pred := cell.Kind + "." + cell.Attr
			cur, ok := tx.Current(cell)
			if !read[pred] || !ok {
				continue
			}
			v := claimVar(cur)
			rm.claims[v] = cur
			s, val := "s:"+cell.Subject, key(cur.Value)
			domain[s], domain[val] = true, true
			if err := p.AddFact(pred, []string{s, val}, datalog.VarPoly(v)); err != nil {
				return nil, err
			}
		}
	}
	for _, c := range rm.clauses {
		for _, t := range append([]rterm{c.head.subj, c.head.val}, termsOf(c.body)...) {
			if t.c != "" {
				domain[t.c] = true
			}
		}
	}
	if err := addClauses(p, rm.clauses, sortedKeys(domain)); err != nil {
		return nil, err
	}
	m, err := p.Eval()
	if err != nil {
		return nil, err
	}
	rm.model, rm.grader = m, m.Grader(allTrue)
	return rm, nil
}

func termsOf(lits []rlit) []rterm {
	var out []rterm
	for _, l := range lits {
		out = append(out, l.subj, l.val, l.x, l.y)
	}
	return out
}

// addClauses adds each clause as a datalog rule. A comparison becomes a
// predicate of its variables holding the tuples of the active domain that
// satisfy it (the engine has no built-in comparisons; rules invent no
// constants, so the domain is closed). "Holds no value" reads a helper
// predicate of the subject alone.
func addClauses(p *datalog.Program, cls []clause, domain []string) error {
	has := map[string]bool{}
	for i, c := range cls {
		if c.never {
			continue
		}
		r := datalog.Rule{Name: c.rule, Head: datalog.Atom{Pred: c.head.pred, Args: []datalog.Term{c.head.subj.term(), c.head.val.term()}}, Support: datalog.VarPoly("rule:" + c.rule)}
		for j, l := range c.body {
			switch {
			case l.cmp:
				pred := fmt.Sprintf("cmp:%d:%d", i, j)
				vars, err := addComparison(p, pred, l, domain)
				if err != nil {
					return err
				}
				args := make([]datalog.Term, len(vars))
				for k, v := range vars {
					args[k] = datalog.V(v)
				}
				r.Body = append(r.Body, datalog.Literal{Atom: datalog.Atom{Pred: pred, Args: args}})
			case l.neg && l.anyValue:
				hp := "has:" + l.pred
				if !has[hp] {
					has[hp] = true
					if err := p.AddRule(datalog.Rule{Name: hp, Head: datalog.Atom{Pred: hp, Args: []datalog.Term{datalog.V("s")}},
						Body: []datalog.Literal{{Atom: datalog.Atom{Pred: l.pred, Args: []datalog.Term{datalog.V("s"), datalog.V("_")}}}}, Support: datalog.One()}); err != nil {
						return err
					}
				}
				r.Body = append(r.Body, datalog.Literal{Atom: datalog.Atom{Pred: hp, Args: []datalog.Term{l.subj.term()}}, Negated: true})
			default:
				r.Body = append(r.Body, datalog.Literal{Atom: datalog.Atom{Pred: l.pred, Args: []datalog.Term{l.subj.term(), l.val.term()}}, Negated: l.neg})
			}
		}
		if err := p.AddRule(r); err != nil {
			return err
		}
	}
	return nil
}

func addComparison(p *datalog.Program, pred string, l rlit, domain []string) ([]string, error) {
	var vars []string
	for _, t := range []rterm{l.x, l.y} {
		if t.v != "" && (len(vars) == 0 || vars[0] != t.v) {
			vars = append(vars, t.v)
		}
	}
	bind := func(t rterm, a, b string) string {
		switch {
		case t.v == "":
			return t.c
		case t.v == vars[0]:
			return a
		}
		return b
	}
	for _, a := range domain {
		if len(vars) == 1 {
			if compareKeys(l.op, bind(l.x, a, ""), bind(l.y, a, "")) {
				if err := p.AddFact(pred, []string{a}, datalog.One()); err != nil {
					return nil, err
				}
			}
			continue
		}
		for _, b := range domain {
			if compareKeys(l.op, bind(l.x, a, b), bind(l.y, a, b)) {
				if err := p.AddFact(pred, []string{a, b}, datalog.One()); err != nil {
					return nil, err
				}
			}
		}
	}
	return vars, nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// conclusion is a derived value at a cell and its proof.
type conclusion struct {
	val   value
	rules []string
	from  []claims.Claim
	negs  []string
}

// conclude returns the value the rules derive at c, if any holds: the
// first in the constants' order when several do.
func (rm *ruleModel) conclude(c claims.Cell) (*conclusion, bool) {
	pred := c.Kind + "." + c.Attr
	if rm.model == nil || !rm.heads[pred] {
		return nil, false
	}
	subj := "s:" + c.Subject
	for _, f := range rm.model.Facts(pred) {
		if f.Args[0] != subj || rm.grader.GradeFact(f) != datalog.Certain {
			continue
		}
		w := rm.model.Why(pred, f.Args, allTrue)
		out := &conclusion{val: unkey(f.Args[1])}
		if len(w.Active) > 0 {
			for _, lit := range w.Active[0] {
				switch {
				case strings.HasPrefix(lit, "rule:"):
					out.rules = append(out.rules, strings.TrimPrefix(lit, "rule:"))
				case strings.HasPrefix(lit, "claim:"):
					out.from = append(out.from, rm.claims[lit])
				default:
					out.negs = append(out.negs, lit)
				}
			}
		}
		return out, true
	}
	return nil, false
}

// needs returns the cells a rule concluding c reads and that hold no
// value: what the data would need for the rules to conclude c.
func (rm *ruleModel) needs(c claims.Cell) []string {
	pred := c.Kind + "." + c.Attr
	seen := map[string]bool{}
	for _, cl := range rm.clauses {
		if cl.head.pred != pred || cl.never || cl.head.subj.c != "" && cl.head.subj.c != "s:"+c.Subject {
			continue
		}
		for _, l := range cl.body {
			if l.cmp || l.neg {
				continue
			}
			kind, attr, _ := strings.Cut(l.pred, ".")
			subj := "*"
			switch {
			case l.subj.c != "":
				subj = strings.TrimPrefix(l.subj.c, "s:")
			case l.subj.v == cl.head.subj.v:
				subj = c.Subject
			}
			if subj != "*" {
				if _, ok := rm.holds(claims.Cell{Kind: kind, Subject: subj, Attr: attr}); ok {
					continue
				}
			} else if rm.model.Len(l.pred) > 0 {
				continue
			}
			seen[kind+"."+subj+"."+attr] = true
		}
	}
	return sortedKeys(seen)
}

// holds reports whether a cell holds a value in the model (claimed or
// derived).
func (rm *ruleModel) holds(c claims.Cell) (string, bool) {
	subj := "s:" + c.Subject
	for _, f := range rm.model.Facts(c.Kind + "." + c.Attr) {
		if f.Args[0] == subj && rm.grader.GradeFact(f) == datalog.Certain {
			return f.Args[1], true
		}
	}
	return "", false
}
