// Constraints and the exported reasoning over a snapshot: what the
// service's checkup and forget_rule read of the store's standing
// declarations.

package eval

import (
	"context"
	"sort"
	"strings"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/syntax"
)

// watch is one `if` of a constraint: the bindings of its condition, each
// of which must pass every assert.
type watch struct {
	name    string // module.constraint
	pred    string // the predicate of the condition's bindings
	cond    []rlit
	never   bool
	vars    []string // the condition's named variables, sorted
	asserts []syntax.Expr
	tests   []string // predicates the asserts read
}

func lowerConstraint(r ruleDecl) []watch {
	var out []watch
	fresh := 0
	lw := &lowerer{fresh: &fresh}
	for i, s := range r.def.Body {
		ifs, ok := s.(*syntax.IfStmt)
		if !ok {
			continue
		}
		w := watch{name: r.Name(), pred: "viol:" + r.Name() + "#" + strings.Repeat("'", i)}
		w.cond, w.never = lw.cond(ifs.Cond)
		vars := map[string]bool{}
		for _, t := range termsOf(w.cond) {
			if t.v != "" && !strings.HasPrefix(t.v, "\x00") {
				vars[t.v] = true
			}
		}
		w.vars = sortedKeys(vars)
		for _, a := range ifs.Then {
			if as, ok := a.(*syntax.AssertStmt); ok {
				w.asserts = append(w.asserts, as.Cond)
				w.tests = append(w.tests, cellPreds(as.Cond)...)
			}
		}
		out = append(out, w)
	}
	return out
}

// cellPreds returns the predicates of the cells an expression mentions.
func cellPreds(e syntax.Expr) []string {
	if pred, _, ok := ruleCell(e); ok {
		return []string{pred}
	}
	switch x := e.(type) {
	case *syntax.ParenExpr:
		return cellPreds(x.X)
	case *syntax.UnaryExpr:
		return cellPreds(x.X)
	case *syntax.BinaryExpr:
		return append(cellPreds(x.X), cellPreds(x.Y)...)
	}
	return nil
}

func (rm *ruleModel) addWatches(ws []watch, has map[string]bool) error {
	for _, w := range ws {
		if w.never {
			continue
		}
		body, err := rm.bodyLits(w.cond, has)
		if err != nil {
			return err
		}
		args := []datalog.Term{datalog.C("k:")}
		for _, v := range w.vars {
			args = append(args, datalog.V(v))
		}
		if err := rm.p.AddRule(datalog.Rule{Name: w.pred, Head: datalog.Atom{Pred: w.pred, Args: args}, Body: body, Support: datalog.One()}); err != nil {
			return err
		}
	}
	return nil
}

// Violation is a binding of a constraint's condition where an assert
// fails, named by the cells the failed assert reads (or, for a
// comparison of values alone, the cells of the condition).
type Violation struct {
	Constraint string
	Cells      []string
}

func (rm *ruleModel) violations() []Violation {
	var out []Violation
	for _, w := range rm.std.watches {
		if w.never {
			continue
		}
		for _, f := range rm.model.Facts(w.pred) {
			if rm.grader.GradeFact(f) != datalog.Certain {
				continue
			}
			bind := map[string]string{}
			for i, v := range w.vars {
				bind[v] = f.Args[i+1]
			}
			for _, a := range w.asserts {
				if rm.test(a, bind) {
					continue
				}
				cells := rm.cellsOf(a, bind)
				if len(cells) == 0 {
					for _, l := range w.cond {
						if !l.cmp && !l.neg {
							cells = append(cells, cellName(l.pred, l.subj, bind))
						}
					}
				}
				out = append(out, Violation{Constraint: w.name, Cells: cells})
				break
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Constraint != out[j].Constraint {
			return out[i].Constraint < out[j].Constraint
		}
		return strings.Join(out[i].Cells, " ") < strings.Join(out[j].Cells, " ")
	})
	return out
}

// resolve gives a term's constant under a binding.
func resolve(t rterm, bind map[string]string) (string, bool) {
	if t.v == "" {
		return t.c, true
	}
	k, ok := bind[t.v]
	return k, ok
}

func cellName(pred string, subj rterm, bind map[string]string) string {
	kind, attr, _ := strings.Cut(pred, ".")
	s, ok := resolve(subj, bind)
	if !ok {
		return kind + ".*." + attr
	}
	return kind + "." + s[2:] + "." + attr
}

// test evaluates an assert under a binding.
func (rm *ruleModel) test(e syntax.Expr, bind map[string]string) bool {
	if pred, subj, ok := ruleCell(e); ok {
		s, ok := resolve(subj, bind)
		if !ok {
			return false
		}
		_, held := rm.valueAt(pred, s)
		return held
	}
	switch x := e.(type) {
	case *syntax.ParenExpr:
		return rm.test(x.X, bind)
	case *syntax.UnaryExpr:
		return !rm.test(x.X, bind)
	case *syntax.BinaryExpr:
		switch x.Op {
		case syntax.AndOp:
			return rm.test(x.X, bind) && rm.test(x.Y, bind)
		case syntax.OrOp:
			return rm.test(x.X, bind) || rm.test(x.Y, bind)
		}
		a, ok1 := rm.side(x.X, bind)
		b, ok2 := rm.side(x.Y, bind)
		return ok1 && ok2 && compareKeys(x.Op, a, b)
	}
	return false
}

// side is an operand of an assert's comparison: a cell's value or a term.
func (rm *ruleModel) side(e syntax.Expr, bind map[string]string) (string, bool) {
	if pred, subj, ok := ruleCell(e); ok {
		s, ok := resolve(subj, bind)
		if !ok {
			return "", false
		}
		return rm.valueAt(pred, s)
	}
	t, ok := ruleTerm(e)
	if !ok {
		return "", false
	}
	return resolve(t, bind)
}

func (rm *ruleModel) cellsOf(e syntax.Expr, bind map[string]string) []string {
	var out []string
	var walk func(e syntax.Expr)
	walk = func(e syntax.Expr) {
		if pred, subj, ok := ruleCell(e); ok {
			out = append(out, cellName(pred, subj, bind))
			return
		}
		switch x := e.(type) {
		case *syntax.ParenExpr:
			walk(x.X)
		case *syntax.UnaryExpr:
			walk(x.X)
		case *syntax.BinaryExpr:
			walk(x.X)
			walk(x.Y)
		}
	}
	walk(e)
	return out
}

// Reasoning is the store's standing rules and constraints evaluated over
// one snapshot: what checkup reports and forget_rule withdraws.
type Reasoning struct {
	rm *ruleModel
}

// Reason evaluates every stored module's rules and constraints over s.
func Reason(s claims.Snapshot, mods Modules) (*Reasoning, error) {
	return ReasonContext(context.Background(), s, mods, 0)
}

// ReasonContext is Reason under a budget: ctx's deadline and memory bytes
// (0 is DefaultMemory). Past either it fails with a *BudgetError.
func ReasonContext(ctx context.Context, s claims.Snapshot, mods Modules, memory int64) (*Reasoning, error) {
	if mods == nil {
		mods = noModules{}
	}
	mt := newMeter(ctx, memory)
	if err := mt.alive(); err != nil {
		return nil, err
	}
	rm, err := buildModel(claims.NewTx(s), lowerStanding(mods, "", nil), mt)
	if err != nil {
		return nil, err
	}
	return &Reasoning{rm: rm}, nil
}

// Derived returns the value the rules conclude at c and the rule that
// concludes it, whether or not a claim is at c.
func (r *Reasoning) Derived(c claims.Cell) (claims.Value, string, bool) {
	con, ok := r.rm.conclude(c)
	if !ok || len(con.rules) == 0 {
		return claims.Value{}, "", false
	}
	v, _ := toClaim(con.val)
	return v, ruleSource(con), true
}

// Needs returns the cells a rule concluding c reads that hold no value.
func (r *Reasoning) Needs(c claims.Cell) []string { return r.rm.needs(c) }

// Violations returns the constraints' violations, by constraint then
// cells.
func (r *Reasoning) Violations() []Violation { return r.rm.violations() }

// Reads returns the attributes ("Kind.attr") the rules and constraints
// read, sorted.
func (r *Reasoning) Reads() []string { return sortedKeys(r.rm.std.reads()) }

// Derives returns the attributes the rules conclude, sorted.
func (r *Reasoning) Derives() []string { return sortedKeys(r.rm.std.heads) }

// Rules returns the number of standing rules.
func (r *Reasoning) Rules() int {
	names := map[string]bool{}
	for _, c := range r.rm.std.clauses {
		names[c.rule] = true
	}
	return len(names)
}

// Conclusions returns the cells at which the rules derive a value that
// holds, sorted (Cell.Less): what forget_rule can withdraw.
func (r *Reasoning) Conclusions() []claims.Cell {
	var out []claims.Cell
	if r.rm.model == nil {
		return out
	}
	for _, pred := range r.Derives() {
		kind, attr, _ := strings.Cut(pred, ".")
		seen := map[string]bool{}
		for _, f := range r.rm.model.Facts(pred) {
			subj, ok := strings.CutPrefix(f.Args[0], "s:")
			if ok && !seen[subj] && r.rm.grader.GradeFact(f) == datalog.Certain {
				seen[subj] = true
				out = append(out, claims.Cell{Kind: kind, Subject: subj, Attr: attr})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out
}
