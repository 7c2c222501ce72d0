// This file holds the property tests over shaped programs (genShaped):
// long chains, deep, linear, non-linear and mutual recursion, negation
// over recursive strata, many strata — the shapes where a semi-naive
// round loop that stops early, or drops a delta, derives too little.

package datalog

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
)

// shapedCases is how many small shaped programs are compared with the
// naive oracle by default; largeCases how many large ones.
const (
	shapedCases = 300
	largeCases  = 12
)

// shapeSeeds and shapeFirst choose the seeds of the small shaped programs
// ("go test -run Shaped -shape.seeds 20000 -shape.first 300" tries more).
var (
	shapeSeeds = flag.Int("shape.seeds", shapedCases, "how many shaped programs TestSemiNaiveMatchesNaiveShaped compares with the oracle")
	shapeFirst = flag.Uint64("shape.first", 0, "the first seed of TestSemiNaiveMatchesNaiveShaped")
)

// evalShaped loads and evaluates np with bounds that truncate nothing.
func evalShaped(t *testing.T, np nProgram) *Model {
	t.Helper()
	p, err := np.load(identity(len(np.facts)), identity(len(np.rules)), Bounds{MaxMonomials: 1 << 20, MaxMonomialSize: 1 << 20, MaxStratumMonomials: 1 << 30})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	m, err := p.Eval()
	if err != nil {
		t.Fatalf("eval: %v", err)
	}
	if m.Stats().Truncated > 0 {
		t.Fatalf("%d supports truncated", m.Stats().Truncated)
	}
	return m
}

func TestSemiNaiveMatchesNaiveShaped(t *testing.T) {
	atoms, maxAtoms, truncated := 0, 0, 0
	tooLarge := 0
	for seed := *shapeFirst; seed < *shapeFirst+uint64(*shapeSeeds); seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		np := genShaped(r, shapeSmall)
		if tooLargeForOracle(t, np) {
			tooLarge++
			continue
		}
		m := evalShaped(t, np)
		sup, args, ok := naiveEval(np)
		if !ok {
			t.Fatalf("seed %d: the oracle cannot stratify a shaped program", seed)
		}
		if got, want := dump(m), dumpNaive(sup, args); got != want {
			t.Fatalf("seed %d: semi-naive and naive differ\nsemi-naive:\n%s\nnaive:\n%s", seed, got, want)
		}
		atoms += m.Stats().Atoms
		maxAtoms = max(maxAtoms, m.Stats().Atoms)
		truncated += checkTight(t, seed, np, sup, args, randomValuation(r, shapeSmall.vars))
	}
	t.Logf("%d shaped programs from seed %d (%d too large for the oracle), %d atoms, at most %d in one; %d supports truncated under tight bounds",
		*shapeSeeds, *shapeFirst, tooLarge, atoms, maxAtoms, truncated)
	if truncated == 0 {
		t.Error("no support was truncated: the tight bounds test nothing")
	}
	if tooLarge*50 > *shapeSeeds {
		t.Errorf("%d of %d programs are too large for the oracle", tooLarge, *shapeSeeds)
	}
}

// oracleBudget is the most monomials one stratum's exact supports may hold
// for a shaped program to be compared with the naive oracle. A few drawn
// programs (about one in 200, none of the first 300) hold tens of
// thousands, which the oracle, re-deriving every polynomial each round,
// takes minutes over; TestLargeShapes covers large programs.
const oracleBudget = 4096

// tooLargeForOracle reports whether some stratum of np passes
// oracleBudget: evaluated under that budget, the stratum spills, cheaply.
func tooLargeForOracle(t *testing.T, np nProgram) bool {
	t.Helper()
	p, err := np.load(identity(len(np.facts)), identity(len(np.rules)), Bounds{MaxMonomials: 1 << 20, MaxMonomialSize: 1 << 20, MaxStratumMonomials: oracleBudget})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	m, err := p.Eval()
	if err != nil {
		t.Fatalf("eval: %v", err)
	}
	return m.Stats().Truncated > 0
}

// tightBounds make evaluation leave the exact path: supports cut to one or
// two monomials of few literals (round by round with cuts), and stratum
// budgets of a few monomials, which spill an exact stratum or run out in
// the middle of a round (DL-0090).
var tightBounds = []Bounds{
	{MaxMonomials: 1, MaxMonomialSize: 2}, {MaxMonomials: 2, MaxMonomialSize: 3},
	{MaxStratumMonomials: 1}, {MaxStratumMonomials: 3}, {MaxStratumMonomials: 4},
	{MaxMonomials: 2, MaxMonomialSize: 1 << 10, MaxStratumMonomials: 3},
}

// checkTight evaluates np under each of tightBounds and requires the atoms
// the oracle derives (oracleArgs), unconditional where the oracle's are,
// an untruncated support equal to the oracle's (oracleSup), each graded as
// the brute-force fixpoint grades it under v, and the same model when the
// last fact is added incrementally. It returns how many supports were cut.
func checkTight(t *testing.T, seed uint64, np nProgram, oracleSup map[string]Poly, oracleArgs map[string][]string, v MapValuation) int {
	t.Helper()
	want := bruteGrades(np, v)
	truncated := 0
	for _, b := range tightBounds {
		p, err := np.load(identity(len(np.facts)), identity(len(np.rules)), b)
		if err != nil {
			t.Fatalf("seed %d bounds %+v: load: %v", seed, b, err)
		}
		m, err := p.Eval()
		if err != nil {
			t.Fatalf("seed %d bounds %+v: eval: %v", seed, b, err)
		}
		truncated += m.Stats().Truncated
		checkIncremental(t, seed, np, b, dump(m))
		if d := oracleMismatch(m, oracleSup, oracleArgs); d != "" {
			t.Fatalf("seed %d bounds %+v: %s", seed, b, d)
		}
		g := m.Grader(v)
		for _, pred := range m.Preds() {
			for _, f := range m.Facts(pred) {
				k := atomKey(pred, f.Args)
				if got := g.Grade(pred, f.Args...).Truth(); got != want[k] {
					t.Fatalf("seed %d bounds %+v: %s%v = %v graded %v, brute force %v under %v", seed, b, pred, f.Args, f.Support, got, want[k], v)
				}
			}
		}
	}
	return truncated
}

// checkIncremental evaluates np without its last fact, adds the fact and
// evaluates again from that model: the result must be want, the dump of a
// fresh evaluation.
func checkIncremental(t *testing.T, seed uint64, np nProgram, b Bounds, want string) {
	t.Helper()
	n := len(np.facts)
	p, err := np.load(identity(n-1), identity(len(np.rules)), b)
	if err != nil {
		t.Fatalf("seed %d bounds %+v: load: %v", seed, b, err)
	}
	if _, err := p.Eval(); err != nil {
		t.Fatalf("seed %d bounds %+v: eval: %v", seed, b, err)
	}
	last := np.facts[n-1]
	if err := p.AddFact(last.pred, last.args, last.sup); err != nil {
		t.Fatalf("seed %d bounds %+v: add %s%v: %v", seed, b, last.pred, last.args, err)
	}
	m, err := p.Eval()
	if err != nil {
		t.Fatalf("seed %d bounds %+v: eval: %v", seed, b, err)
	}
	if got := dump(m); got != want {
		t.Fatalf("seed %d bounds %+v: adding %s%v incrementally gives\n%s\nfresh:\n%s", seed, b, last.pred, last.args, got, want)
	}
}

// TestLargeShapes evaluates shaped programs of up to thousands of atoms,
// beyond the naive oracle's reach, and checks each model closed under its
// rules: an evaluation that stops early leaves a rule instance whose head
// is missing.
func TestLargeShapes(t *testing.T) {
	maxAtoms := 0
	for seed := range uint64(largeCases) {
		np := genShaped(rand.New(rand.NewPCG(seed, 8)), shapeLarge)
		m := evalShaped(t, np)
		checkClosed(t, m, np)
		maxAtoms = max(maxAtoms, m.Stats().Atoms)
		t.Logf("seed %d: %d facts, %d rules, %d atoms", seed, len(np.facts), len(np.rules), m.Stats().Atoms)
	}
	if maxAtoms < 1000 {
		t.Errorf("the largest program has %d atoms: the large shapes are not large", maxAtoms)
	}
}

// TestShapesCover checks that the shaped generator draws every shape and
// long chains, so the tests above see them.
func TestShapesCover(t *testing.T) {
	seen := map[string]bool{}
	longest := 0
	for seed := range uint64(shapedCases) {
		np := genShaped(rand.New(rand.NewPCG(seed, 7)), shapeSmall)
		for _, ru := range np.rules {
			seen[shapeOf(ru)] = true
		}
		longest = max(longest, len(np.facts))
	}
	for _, want := range []string{"left", "right", "nonlinear", "mutual", "negation", "copy"} {
		if !seen[want] {
			t.Errorf("no program has a %s rule (seen %v)", want, seen)
		}
	}
	if longest < 10 {
		t.Errorf("the longest program has %d facts", longest)
	}
}

// shapeOf names the shape of one generated rule by its body.
func shapeOf(ru Rule) string {
	b := ru.Body
	switch {
	case len(b) == 3 && b[2].Negated:
		return "negation"
	case len(b) == 1:
		return "copy"
	case len(b) == 2 && b[0].Atom.Pred == ru.Head.Pred && b[1].Atom.Pred == ru.Head.Pred:
		return "nonlinear"
	case len(b) == 2 && b[1].Atom.Pred == ru.Head.Pred:
		return "right"
	case len(b) == 2 && b[0].Atom.Pred == ru.Head.Pred:
		return "left"
	case len(b) == 2:
		return "mutual"
	}
	return fmt.Sprint(len(b))
}
