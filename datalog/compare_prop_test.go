// This file holds the property test of built-in comparisons: a program
// whose rules compare is evaluated to the same model, supports and grades
// as the same program with each comparison lowered the old way, to a
// predicate of its variables holding the tuples of the constants that
// satisfy it; from scratch and incrementally, over random and shaped
// programs.

package datalog

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// cmpConsts are the constants of the compared programs: numbers whose
// order is not their strings' (and two spellings of one number), strings,
// a boolean and a constant of no kind.
var cmpConsts = []string{"n:2", "n:10", "n:-1.5", "n:10.0", "s:10", "s:9", "s:a", "b:true", "plain"}

var cmpConfig = genConfig{idb: 4, consts: len(cmpConsts), vars: 5, facts: 16, rules: 7, negation: true}

// typedConst maps a generator's constant cK to a constant of cmpConsts.
func typedConst(c string) string {
	k, err := strconv.Atoi(strings.TrimPrefix(c, "c"))
	if err != nil {
		return c
	}
	return cmpConsts[k%len(cmpConsts)]
}

func typedTerms(ts []Term) []Term {
	out := slices.Clone(ts)
	for i, t := range out {
		if t.Const != "" {
			out[i].Const = typedConst(t.Const)
		}
	}
	return out
}

func typedFact(f nFact) nFact {
	f.args = slices.Clone(f.args)
	for i, a := range f.args {
		f.args[i] = typedConst(a)
	}
	return f
}

// withComparisons types np's constants and adds comparisons to some of
// its rules: between variables the positive atoms bind, or a variable and
// a constant, or two constants.
func withComparisons(r *rand.Rand, np nProgram) nProgram {
	out := nProgram{}
	for _, f := range np.facts {
		out.facts = append(out.facts, typedFact(f))
	}
	for _, ru := range np.rules {
		ru.Head.Args = typedTerms(ru.Head.Args)
		body := make([]Literal, 0, len(ru.Body)+2)
		var vars []string
		for _, l := range ru.Body {
			l.Atom.Args = typedTerms(l.Atom.Args)
			body = append(body, l)
			for _, t := range l.Atom.Args {
				if !l.Negated && t.Var != "" && t.Var != Anon && !slices.Contains(vars, t.Var) {
					vars = append(vars, t.Var)
				}
			}
		}
		term := func() Term {
			if len(vars) > 0 && r.IntN(5) > 0 {
				return V(vars[r.IntN(len(vars))])
			}
			return C(cmpConsts[r.IntN(len(cmpConsts))])
		}
		for range r.IntN(3) {
			c := Cmp(CmpOp(1+r.IntN(int(numCmpOps)-1)), term(), term())
			body = slices.Insert(body, r.IntN(len(body)+1), c)
		}
		ru.Body = body
		out.rules = append(out.rules, ru)
	}
	return out
}

// asPairs lowers every comparison of np the old way: to the predicate
// cmp_<rule>_<j> of its distinct variables, whose facts (support One) are
// the tuples of cmpConsts that satisfy it.
func asPairs(np nProgram) nProgram {
	out := nProgram{facts: slices.Clone(np.facts)}
	for _, ru := range np.rules {
		ru.Body = slices.Clone(ru.Body)
		for j, l := range ru.Body {
			if !l.IsComparison() {
				continue
			}
			pred := fmt.Sprintf("cmp_%s_%d", ru.Name, j)
			var vars []string
			for _, t := range []Term{l.Cmp.X, l.Cmp.Y} {
				if t.Var != "" && !slices.Contains(vars, t.Var) {
					vars = append(vars, t.Var)
				}
			}
			args := make([]Term, len(vars))
			for k, v := range vars {
				args[k] = V(v)
			}
			ru.Body[j] = Literal{Atom: Atom{Pred: pred, Args: args}}
			out.facts = append(out.facts, pairFacts(pred, l.Cmp, vars)...)
		}
		out.rules = append(out.rules, ru)
	}
	return out
}

func pairFacts(pred string, c Comparison, vars []string) []nFact {
	var out []nFact
	bind := func(t Term, tuple []string) string {
		if t.Var == "" {
			return t.Const
		}
		return tuple[slices.Index(vars, t.Var)]
	}
	var each func(tuple []string)
	each = func(tuple []string) {
		if len(tuple) < len(vars) {
			for _, k := range cmpConsts {
				each(append(slices.Clip(tuple), k))
			}
			return
		}
		if CompareConsts(c.Op, bind(c.X, tuple), bind(c.Y, tuple)) {
			out = append(out, nFact{pred, tuple, One()})
		}
	}
	each(nil)
	return out
}

// withoutComparisons drops np's comparisons.
func withoutComparisons(np nProgram) nProgram {
	out := nProgram{facts: np.facts}
	for _, ru := range np.rules {
		ru.Body = slices.DeleteFunc(slices.Clone(ru.Body), Literal.IsComparison)
		out.rules = append(out.rules, ru)
	}
	return out
}

func loadOK(t testing.TB, np nProgram, b Bounds) *Program {
	t.Helper()
	p, err := np.load(identity(len(np.facts)), identity(len(np.rules)), b)
	must(t, err)
	return p
}

// pairlessDump is dump without the pair predicates' atoms, and the count
// of truncated atoms.
func pairlessDump(m *Model) string {
	keep := []string{fmt.Sprintf("truncated %d\n", m.Stats().Truncated)}
	for _, l := range strings.SplitAfter(dump(m), "\n") {
		if !strings.HasPrefix(l, "cmp_") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}

// TestComparisonsMatchPairs: random programs with comparisons, and shaped
// ones (recursion, negation, many strata) with comparisons in their
// recursive rules, evaluate with built-in comparisons to the model,
// supports and grades of the pair-table lowering, from scratch under
// tight and loose bounds, and then incrementally through random fact
// changes.
func TestComparisonsMatchPairs(t *testing.T) {
	checked, fired, filtered := 0, 0, 0
	for seed := range uint64(propertyCases) {
		r := rand.New(rand.NewPCG(seed, 41))
		var np nProgram
		if seed%3 == 2 {
			np = genShaped(r, shapeSmall)
		} else {
			np = genProgram(r, cmpConfig)
		}
		np = withComparisons(r, np)
		b := incBounds[seed%uint64(len(incBounds))]
		pc, err := np.load(identity(len(np.facts)), identity(len(np.rules)), b)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		pairs := asPairs(np)
		pp, err := pairs.load(identity(len(pairs.facts)), identity(len(pairs.rules)), b)
		if err != nil {
			t.Fatalf("seed %d: pairs: %v", seed, err)
		}
		mc, errC := pc.Eval()
		mp, errP := pp.Eval()
		if (errC == nil) != (errP == nil) {
			t.Fatalf("seed %d: built-in %v, pairs %v", seed, errC, errP)
		}
		if errC != nil {
			continue // unstratifiable
		}
		where := fmt.Sprintf("seed %d (bounds %+v)", seed, b)
		if got, want := pairlessDump(mc), pairlessDump(mp); got != want {
			t.Fatalf("%s: built-in\n%s\npairs\n%s\nrules %v", where, got, want, np.rules)
		}
		sameGrades(t, where, r, mp, mc)
		checked++
		if fullDump(mc) != fullDump(evalOK(t, loadOK(t, withoutComparisons(np), b))) {
			filtered++
		}
		fired += cmpIncremental(t, r, where, np, pc, pp, mc, mp, b)
	}
	t.Logf("%d programs, %d where the comparisons filter, %d incremental steps", checked, filtered, fired)
	if checked < propertyCases/2 || filtered < checked/4 || fired == 0 {
		t.Fatalf("only %d stratifiable programs, %d where the comparisons filter, %d incremental steps", checked, filtered, fired)
	}
}

// cmpIncremental applies random fact changes to both programs and checks
// their incremental models against each other and against a fresh
// evaluation; it returns the number of steps.
func cmpIncremental(t *testing.T, r *rand.Rand, where string, np nProgram, pc, pp *Program, mc, mp *Model, b Bounds) int {
	t.Helper()
	facts := np.facts
	steps := 0
	for step := range 5 {
		qc, qp := pc.Clone(), pp.Clone()
		var changes []string
		for range 1 + r.IntN(3) {
			var ch string
			facts, ch = cmpFactChange(t, r, qc, qp, facts)
			changes = append(changes, ch)
		}
		nc, err := qc.EvalFrom(mc)
		if err != nil {
			t.Fatalf("%s step %d: %v", where, step, err)
		}
		npm, err := qp.EvalFrom(mp)
		if err != nil {
			t.Fatalf("%s step %d: pairs: %v", where, step, err)
		}
		fresh := freshModel(t, np.rules, facts, b)
		at := fmt.Sprintf("%s step %d %v", where, step, changes)
		if got, want := fullDump(nc), fullDump(fresh); got != want {
			t.Fatalf("%s: incremental\n%s\nfresh\n%s", at, got, want)
		}
		if got, want := pairlessDump(nc), pairlessDump(npm); got != want {
			t.Fatalf("%s: built-in\n%s\npairs\n%s", at, got, want)
		}
		sameGrades(t, at, r, nc, fresh)
		sameGrades(t, at+" (pairs)", r, npm, fresh)
		pc, pp, mc, mp = qc, qp, nc, npm
		steps++
	}
	return steps
}

// cmpFactChange makes one random change to both programs: a new fact, a
// further support, a removal or a support taken back.
func cmpFactChange(t *testing.T, r *rand.Rand, pc, pp *Program, facts []nFact) ([]nFact, string) {
	both := func(f func(p *Program)) { f(pc); f(pp) }
	switch k := r.IntN(10); {
	case k < 5 || len(facts) == 0:
		f := typedFact(genProgram(r, cmpConfig).facts[0])
		if pc.AddFact(f.pred, f.args, f.sup) != nil {
			return facts, "none"
		}
		must(t, pp.AddFact(f.pred, f.args, f.sup))
		return append(slices.Clip(facts), f), fmt.Sprintf("add %s = %v", renderAtom(f.pred, f.args), f.sup)
	case k < 7:
		f := facts[r.IntN(len(facts))]
		f.sup = genPoly(r, cmpConfig.vars)
		both(func(p *Program) { must(t, p.AddFact(f.pred, f.args, f.sup)) })
		return append(slices.Clip(facts), f), fmt.Sprintf("add %s += %v", renderAtom(f.pred, f.args), f.sup)
	case k < 9:
		f := facts[r.IntN(len(facts))]
		both(func(p *Program) { p.RemoveFact(f.pred, f.args) })
		facts = slices.DeleteFunc(slices.Clone(facts), func(g nFact) bool {
			return g.pred == f.pred && slices.Equal(g.args, f.args)
		})
		return facts, "remove " + renderAtom(f.pred, f.args)
	default:
		i := r.IntN(len(facts))
		f := facts[i]
		both(func(p *Program) { p.RemoveSupport(f.pred, f.args, f.sup) })
		return slices.Delete(slices.Clone(facts), i, i+1), fmt.Sprintf("take back %s -= %v", renderAtom(f.pred, f.args), f.sup)
	}
}

// TestComparisonsMatchNaive: random programs with comparisons evaluate to
// the naive oracle's atoms and exact supports, and grade as its
// brute-force fixpoint does.
func TestComparisonsMatchNaive(t *testing.T) {
	checked := 0
	for seed := range uint64(propertyCases) {
		r := rand.New(rand.NewPCG(seed, 43))
		np := withComparisons(r, genProgram(r, cmpConfig))
		p := loadOK(t, np, Bounds{MaxMonomials: 1 << 20, MaxMonomialSize: 1 << 20})
		m, ok := evalMatchesNaive(t, seed, np, p)
		if !ok {
			continue
		}
		v := randomValuation(r, cmpConfig.vars)
		want, g := bruteGrades(np, v), m.Grader(v)
		for _, pred := range m.Preds() {
			for _, f := range m.Facts(pred) {
				if got := g.GradeFact(f).Truth(); got != want[atomKey(pred, f.Args)] {
					t.Fatalf("seed %d: %s%v graded %v, brute force %v under %v", seed, pred, f.Args, got, want[atomKey(pred, f.Args)], v)
				}
			}
		}
		checked++
	}
	if checked < propertyCases/2 {
		t.Fatalf("only %d stratifiable programs", checked)
	}
}
