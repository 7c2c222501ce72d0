// The rule model: the store's standing rules and constraints evaluated by
// the datalog engine over the values in force, and what reads take from it.
//
// Each value in force is a fact whose support is a variable naming its
// claim, and each rule multiplies in a variable naming the rule, so a
// derived atom's support paths are its proofs: the rules and the claims it
// rests on. Every variable is true; grading still matters, because a
// negated atom ("not q(a)") is false where q(a) holds.

package eval

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

// standing is the store's standing declarations, lowered: the rules'
// clauses and the constraints' watches.
type standing struct {
	clauses []clause
	heads   map[string]bool // predicates some rule derives
	watches []watch
}

// lowerStanding lowers every stored module's rules and constraints, with
// the running module's own (module, root) in place of its stored version.
func lowerStanding(mods Modules, module string, root *syntax.File) *standing {
	st := &standing{heads: map[string]bool{}}
	add := func(mod string, f *syntax.File) {
		for _, s := range f.Stmts {
			d, ok := s.(*syntax.DefStmt)
			if !ok || d.Decorator == nil {
				continue
			}
			switch d.Decorator.ID {
			case keywords.Rule:
				for _, cl := range lowerRule(ruleDecl{module: mod, def: d}) {
					st.clauses = append(st.clauses, cl)
					st.heads[cl.head.pred] = true
				}
			case keywords.Constraint:
				st.watches = append(st.watches, lowerConstraint(ruleDecl{module: mod, def: d})...)
			}
		}
	}
	for _, name := range mods.ModuleNames() {
		if name == module {
			continue
		}
		if f, ok := mods.Module(name); ok {
			add(name, f)
		}
	}
	if module != "" && root != nil {
		add(module, root)
	}
	return st
}

// reads returns the predicates the rules and constraints read.
func (st *standing) reads() map[string]bool {
	read := map[string]bool{}
	for _, c := range st.clauses {
		for _, l := range c.body {
			if !l.cmp {
				read[l.pred] = true
			}
		}
	}
	for _, w := range st.watches {
		for _, l := range w.cond {
			if !l.cmp {
				read[l.pred] = true
			}
		}
		for _, p := range w.tests {
			read[p] = true
		}
	}
	return read
}

// ruleModel is the standing declarations evaluated over the values in
// force.
type ruleModel struct {
	std    *standing
	model  *datalog.Model
	claims map[string]claims.Claim // claim variable → claim
	grader *datalog.Grader
	index  map[string]map[string]string // pred → subject → value
}

var allTrue = datalog.ValuationFunc(func(string) datalog.Truth { return datalog.True })

func claimVar(c claims.Claim) string {
	return "claim:" + c.Cell.String() + "@" + strconv.FormatInt(c.At, 10)
}

// concludes reports whether some rule derives the cell's attribute; the
// store's declarations are lowered once per run.
func (in *interp) concludes(c claims.Cell) bool {
	return in.standing().heads[c.Kind+"."+c.Attr]
}

func (in *interp) standing() *standing {
	if in.std == nil {
		in.std = lowerStanding(in.opts.Modules, in.opts.Module, in.root)
	}
	return in.std
}

// derived returns the rule model of the current view, building it on
// first use after a write.
func (in *interp) derived() (*ruleModel, error) {
	if in.rules != nil {
		return in.rules, nil
	}
	rm, err := buildModel(in.tx, in.standing())
	if err != nil {
		return nil, err
	}
	in.rules = rm
	return rm, nil
}

// buildModel evaluates the standing declarations over the values in force
// of the cells they read.
func buildModel(tx *claims.Tx, st *standing) (*ruleModel, error) {
	rm := &ruleModel{std: st, claims: map[string]claims.Claim{}}
	p := datalog.NewProgram()
	read := st.reads()
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
	for _, c := range st.clauses {
		for _, t := range append([]rterm{c.head.subj, c.head.val}, termsOf(c.body)...) {
			if t.c != "" {
				domain[t.c] = true
			}
		}
	}
	for _, w := range st.watches {
		for _, t := range termsOf(w.cond) {
			if t.c != "" {
				domain[t.c] = true
			}
		}
	}
	dom, has := sortedKeys(domain), map[string]bool{}
	if err := addClauses(p, st.clauses, dom, has); err != nil {
		return nil, err
	}
	if err := addWatches(p, st.watches, dom, has); err != nil {
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

// addClauses adds each clause as a datalog rule.
func addClauses(p *datalog.Program, cls []clause, domain []string, has map[string]bool) error {
	for i, c := range cls {
		if c.never {
			continue
		}
		body, err := bodyLits(p, fmt.Sprintf("cmp:%d", i), c.body, domain, has)
		if err != nil {
			return err
		}
		r := datalog.Rule{Name: c.rule, Head: datalog.Atom{Pred: c.head.pred, Args: []datalog.Term{c.head.subj.term(), c.head.val.term()}},
			Body: body, Support: datalog.VarPoly("rule:" + c.rule)}
		if err := p.AddRule(r); err != nil {
			return err
		}
	}
	return nil
}

// bodyLits lowers a condition. A comparison becomes a predicate of its
// variables holding the tuples of the active domain that satisfy it (the
// engine has no built-in comparisons; rules invent no constants, so the
// domain is closed). "Holds no value" reads a helper predicate of the
// subject alone, added once (has).
func bodyLits(p *datalog.Program, prefix string, lits []rlit, domain []string, has map[string]bool) ([]datalog.Literal, error) {
	var out []datalog.Literal
	for j, l := range lits {
		switch {
		case l.cmp:
			pred := fmt.Sprintf("%s:%d", prefix, j)
			vars, err := addComparison(p, pred, l, domain)
			if err != nil {
				return nil, err
			}
			args := make([]datalog.Term, len(vars))
			for k, v := range vars {
				args[k] = datalog.V(v)
			}
			out = append(out, datalog.Literal{Atom: datalog.Atom{Pred: pred, Args: args}})
		case l.neg && l.anyValue:
			hp := "has:" + l.pred
			if !has[hp] {
				has[hp] = true
				if err := p.AddRule(datalog.Rule{Name: hp, Head: datalog.Atom{Pred: hp, Args: []datalog.Term{datalog.V("s")}},
					Body: []datalog.Literal{{Atom: datalog.Atom{Pred: l.pred, Args: []datalog.Term{datalog.V("s"), datalog.V("_")}}}}, Support: datalog.One()}); err != nil {
					return nil, err
				}
			}
			out = append(out, datalog.Literal{Atom: datalog.Atom{Pred: hp, Args: []datalog.Term{l.subj.term()}}, Negated: true})
		default:
			out = append(out, datalog.Literal{Atom: datalog.Atom{Pred: l.pred, Args: []datalog.Term{l.subj.term(), l.val.term()}}, Negated: l.neg})
		}
	}
	return out, nil
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
	if rm.model == nil || !rm.std.heads[pred] {
		return nil, false
	}
	val, ok := rm.valueAt(pred, "s:"+c.Subject)
	if !ok {
		return nil, false
	}
	args := []string{"s:" + c.Subject, val}
	w := rm.model.Why(pred, args, allTrue)
	out := &conclusion{val: unkey(val)}
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

// needs returns the cells a rule concluding c reads whose data is
// missing: a cell with a fixed subject (by the head or a constant) that
// holds no value, or not the value the rule tests for; and Kind.*.attr
// when no subject holds the value the rule tests for (or any value).
func (rm *ruleModel) needs(c claims.Cell) []string {
	pred := c.Kind + "." + c.Attr
	head := "s:" + c.Subject
	seen := map[string]bool{}
	for _, cl := range rm.std.clauses {
		if cl.head.pred != pred || cl.never || cl.head.subj.c != "" && cl.head.subj.c != head {
			continue
		}
		fixed := func(t rterm) string {
			switch {
			case t.c != "":
				return t.c
			case t.v == cl.head.subj.v:
				return head
			}
			return ""
		}
		for _, l := range cl.body {
			if l.cmp || l.neg {
				continue
			}
			kind, attr, _ := strings.Cut(l.pred, ".")
			subj, want := fixed(l.subj), ""
			if !l.anyValue {
				want = fixed(l.val)
			}
			if subj != "" {
				if got, ok := rm.valueAt(l.pred, subj); ok && (want == "" || got == want) {
					continue
				}
				seen[kind+"."+subj[2:]+"."+attr] = true
			} else if !rm.anyHolds(l.pred, want) {
				seen[kind+".*."+attr] = true
			}
		}
	}
	return sortedKeys(seen)
}

// anyHolds reports whether some subject of pred holds want (any value
// when want is "").
func (rm *ruleModel) anyHolds(pred, want string) bool {
	for _, f := range rm.model.Facts(pred) {
		if (want == "" || f.Args[1] == want) && rm.grader.GradeFact(f) == datalog.Certain {
			return true
		}
	}
	return false
}

// holds reports whether a cell holds a value in the model (claimed or
// derived), and its constant.
func (rm *ruleModel) holds(c claims.Cell) (string, bool) {
	return rm.valueAt(c.Kind+"."+c.Attr, "s:"+c.Subject)
}

// valueAt returns the first value that holds for a subject of a
// predicate, from an index built on first use.
func (rm *ruleModel) valueAt(pred, subj string) (string, bool) {
	if rm.index == nil {
		rm.index = map[string]map[string]string{}
	}
	idx, ok := rm.index[pred]
	if !ok {
		idx = map[string]string{}
		for _, f := range rm.model.Facts(pred) {
			if _, seen := idx[f.Args[0]]; !seen && rm.grader.GradeFact(f) == datalog.Certain {
				idx[f.Args[0]] = f.Args[1]
			}
		}
		rm.index[pred] = idx
	}
	v, ok := idx[subj]
	return v, ok
}
