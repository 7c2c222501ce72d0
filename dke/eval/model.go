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
	"sort"
	"strconv"
	"strings"
	"sync"

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
	p      *datalog.Program
	read   map[string]bool
	facts  layered[claims.Cell, factRec] // the fact of each cell read
	model  *datalog.Model
	claims layered[string, claims.Claim] // claim variable → claim
	grader *datalog.Grader
	meter  *meter // the run's budget (budget.go)

	// frozen: handed on to a later run (carry.go), never written again.
	frozen bool
	// built is the cells the model held when built from the store,
	// applied the cells applied to it since.
	built, applied int

	indexMu sync.Mutex                   // a frozen model is read by one run after another
	index   map[string]map[string]string // pred → subject → value
	lookups map[string]int               // reads of a pred not from index
}

// indexAfter is how many reads of one predicate a model answers through
// the engine's index of the predicate's subjects before it maps every
// subject of the predicate to its value: a run that reads a few cells
// after a write pays for those cells, not for the predicate's every atom
// and support, and a checkup that tests thousands builds the map once.
const indexAfter = 64

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

// derived returns the rule model of the current view: built on first
// use, or carried from an earlier run (carry.go), then brought up to date
// incrementally with the cells written since. A model that fails to
// advance is dropped, and a frozen one is forked before it is written.
func (in *interp) derived() (*ruleModel, error) {
	if in.rules != nil && len(in.dirty) > 0 && in.rules.frozen {
		in.rules = in.rules.fork(in.meter, len(in.dirty))
	}
	if in.rules != nil {
		if len(in.dirty) > 0 {
			if err := in.rules.apply(in.tx, in.dirty); err != nil {
				in.rules = nil
				return nil, err
			}
			in.dirty = nil
		}
		return in.rules, nil
	}
	rm, err := buildModel(in.tx, in.standing(), in.meter)
	if err != nil {
		return nil, err
	}
	in.rules, in.dirty = rm, nil
	return rm, nil
}

// buildModel evaluates the standing declarations over the values in force
// of the cells they read.
func buildModel(tx *claims.Tx, st *standing, mt *meter) (*ruleModel, error) {
	rm := &ruleModel{std: st, p: datalog.NewProgram(), read: st.reads(), meter: mt}
	// The predicate of each attribute read, by kind; the cells of each
	// kind read, and how many facts they may make, so that the model's
	// maps are sized once.
	preds := map[string]map[string]string{}
	for pred := range rm.read {
		k, a, _ := strings.Cut(pred, ".")
		if preds[k] == nil {
			preds[k] = map[string]string{}
		}
		preds[k][a] = pred
	}
	kinds := make([]string, 0, len(preds))
	for k := range preds {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	cells := make([][]claims.Cell, len(kinds))
	n := 0
	for i, k := range kinds {
		cells[i] = tx.Cells(k)
		for _, c := range cells[i] {
			if _, ok := preds[k][c.Attr]; ok {
				n++
			}
		}
	}
	rm.claims, rm.facts = newLayeredSize[string, claims.Claim](n), newLayeredSize[claims.Cell, factRec](n)
	for i, k := range kinds {
		for _, cell := range cells[i] {
			// Reading a large store's cells takes long before the
			// engine first looks at the deadline: look here too.
			if err := mt.tick(1); err != nil {
				return nil, err
			}
			if pred, ok := preds[k][cell.Attr]; ok {
				if err := rm.addFact(tx, cell, pred, true); err != nil {
					return nil, err
				}
			}
		}
	}
	has := map[string]bool{}
	if err := rm.addClauses(st.clauses, has); err != nil {
		return nil, err
	}
	if err := rm.addWatches(st.watches, has); err != nil {
		return nil, err
	}
	rm.built = rm.facts.len()
	return rm, rm.eval()
}

// factRec is the fact a cell's value in force put in the program.
type factRec struct {
	args []string
	v    string
}

// setFact makes the program's fact of cell its value in force.
func (rm *ruleModel) setFact(tx *claims.Tx, cell claims.Cell) error {
	pred := cell.Kind + "." + cell.Attr
	if !rm.read[pred] {
		return nil
	}
	if old, ok := rm.facts.get(cell); ok {
		rm.p.RemoveFact(pred, old.args)
		rm.claims.del(old.v)
		rm.facts.del(cell)
	}
	return rm.addFact(tx, cell, pred, false)
}

// addFact puts in the program the fact of cell's value in force, if it
// holds one; cell has no fact yet. While the model is built (fill) its
// maps are filled in place, as no fork shares them yet.
func (rm *ruleModel) addFact(tx *claims.Tx, cell claims.Cell, pred string, fill bool) error {
	cur, ok := tx.Current(cell)
	if !ok {
		return nil
	}
	// The fact is charged as a tuple: a store read into a model is
	// memory the request builds, and the budget bounds it as it bounds
	// derivations.
	if err := rm.meter.charge(TupleBytes); err != nil {
		return err
	}
	v := claimVar(cur)
	args := []string{"s:" + cell.Subject, key(cur.Value)}
	if fill {
		rm.claims.fill(v, cur)
		rm.facts.fill(cell, factRec{args: args, v: v})
	} else {
		rm.claims.set(v, cur)
		rm.facts.set(cell, factRec{args: args, v: v})
	}
	return rm.p.AddFact(pred, args, datalog.VarPoly(v))
}

// apply brings the model up to date with the cells written since it was
// evaluated: their facts change, and the engine re-evaluates what the
// change reaches.
func (rm *ruleModel) apply(tx *claims.Tx, cells []claims.Cell) error {
	rm.applied += len(cells)
	for _, c := range cells {
		if err := rm.setFact(tx, c); err != nil {
			return err
		}
	}
	return rm.eval()
}

func (rm *ruleModel) eval() error {
	m, err := rm.p.EvalContext(rm.meter.ctx, rm.meter.limits())
	if err != nil {
		return rm.meter.evalError(err)
	}
	if err := rm.meter.charge(int64(m.Derivations()) * TupleBytes); err != nil {
		return err
	}
	rm.model, rm.grader = m, m.Grader(allTrue)
	rm.indexMu.Lock()
	rm.index, rm.lookups = nil, nil
	rm.indexMu.Unlock()
	return nil
}

func termsOf(lits []rlit) []rterm {
	var out []rterm
	for _, l := range lits {
		out = append(out, l.subj, l.val, l.x, l.y)
	}
	return out
}

// addClauses adds each clause as a datalog rule.
func (rm *ruleModel) addClauses(cls []clause, has map[string]bool) error {
	p := rm.p
	for _, c := range cls {
		if c.never {
			continue
		}
		body, err := rm.bodyLits(c.body, has)
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

// bodyLits lowers a condition. A comparison is the engine's built-in,
// tested once the cell tests have bound its variables (the checker holds
// every variable of a comparison to a positive cell test), never a table
// of the pairs of values that satisfy it. "Holds no value" reads a helper
// predicate of the subject alone, added once (has).
func (rm *ruleModel) bodyLits(lits []rlit, has map[string]bool) ([]datalog.Literal, error) {
	p := rm.p
	var out []datalog.Literal
	for _, l := range lits {
		switch {
		case l.cmp:
			out = append(out, datalog.Cmp(cmpOp(l.op), l.x.term(), l.y.term()))
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
				c, _ := rm.claims.get(lit)
				out.from = append(out.from, c)
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

// valueAt returns the first value that holds for a subject of a
// predicate, in the constants' order: looked up in the engine's model for
// the first reads of the predicate, then from a map of its subjects built
// once (indexAfter).
func (rm *ruleModel) valueAt(pred, subj string) (string, bool) {
	rm.indexMu.Lock()
	defer rm.indexMu.Unlock()
	if idx, ok := rm.index[pred]; ok {
		v, ok := idx[subj]
		return v, ok
	}
	if rm.lookups == nil {
		rm.lookups = map[string]int{}
	}
	if rm.lookups[pred]++; rm.lookups[pred] <= indexAfter {
		return rm.lookup(pred, subj)
	}
	if rm.index == nil {
		rm.index = map[string]map[string]string{}
	}
	idx := rm.subjects(pred)
	rm.index[pred] = idx
	v, ok := idx[subj]
	return v, ok
}

// subjects maps each subject of pred to its first value that holds.
func (rm *ruleModel) subjects(pred string) map[string]string {
	idx := map[string]string{}
	for _, f := range rm.model.Facts(pred) {
		if _, seen := idx[f.Args[0]]; !seen && rm.grader.GradeFact(f) == datalog.Certain {
			idx[f.Args[0]] = f.Args[1]
		}
	}
	return idx
}

// lookup is valueAt through the engine's query of the subject's atoms,
// which are ordered by their arguments as the map's are.
func (rm *ruleModel) lookup(pred, subj string) (string, bool) {
	q := datalog.Atom{Pred: pred, Args: []datalog.Term{datalog.C(subj), datalog.V("v")}}
	for _, a := range rm.model.Query(q, allTrue) {
		if a.Grade == datalog.Certain {
			return a.Args[1], true
		}
	}
	return "", false
}
