// This file holds FuzzProgram: programs decoded from bytes (bounded size,
// valid or not), and programs the property tests' generators draw from the
// same bytes, must evaluate without panicking to either a typed *Error or
// a model closed under the rules, equal to the naive oracle when nothing is
// truncated (and otherwise with the oracle's atoms, unconditional where the
// oracle's are) and graded like the brute-force fixpoint. Its seed corpus (the
// f.Add cases and testdata/fuzz/FuzzProgram) runs in plain go test.

package datalog

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// byteSource hands out small numbers from fuzz input, zeros when it runs out.
type byteSource struct {
	b []byte
	i int
}

func (s *byteSource) next(n int) int {
	if s.i >= len(s.b) || n <= 0 {
		return 0
	}
	s.i++
	return int(s.b[s.i-1]) % n
}

func (s *byteSource) done() bool { return s.i >= len(s.b) }

// IntN makes fuzz input a chooser for the generators.
func (s *byteSource) IntN(n int) int { return s.next(n) }

// generateFuzzed draws a program from fuzz input with the generators of
// the property tests: a shaped one (long chains, deep and mutual
// recursion, negation over recursive strata) or a small random one, and
// per-atom bounds that may cut supports and a stratum budget that may
// spill a stratum.
func generateFuzzed(data []byte) (nProgram, Bounds) {
	s := &byteSource{b: data}
	b := Bounds{MaxMonomials: 1 + s.next(8), MaxMonomialSize: 1 + s.next(6)}
	if k := s.next(16); k < 8 {
		b.MaxStratumMonomials = 1 + k // a budget that spills, or runs out within a round
	}
	if s.next(3) == 0 {
		return genProgram(s, genDefault), b
	}
	return genShaped(s, shapeSmall), b
}

// decodeProgram turns bytes into a test program of at most 16 facts and 6
// rules over predicates q0…q4 and constants k0…k3. Arities, variables and
// supports come from the bytes, so programs can be invalid.
func decodeProgram(data []byte) (nProgram, Bounds) {
	s := &byteSource{b: data}
	b := Bounds{MaxMonomials: 1 + s.next(8), MaxMonomialSize: 1 + s.next(6), MaxStratumMonomials: 1 + s.next(200)}
	var np nProgram
	poly := func() Poly {
		switch s.next(5) {
		case 0:
			return Poly{}
		case 1, 2:
			return One()
		}
		p := Poly{}
		for range 1 + s.next(3) {
			m := One()
			for range 1 + s.next(3) {
				m = m.Mul(VarPoly(fmt.Sprintf("x%d", s.next(5))))
			}
			p = p.Add(m)
		}
		return p
	}
	atom := func() Atom {
		a := Atom{Pred: fmt.Sprintf("q%d", s.next(5))}
		for range s.next(4) {
			if s.next(3) == 0 {
				a.Args = append(a.Args, C(fmt.Sprintf("k%d", s.next(4))))
			} else {
				a.Args = append(a.Args, V(string(rune('A'+s.next(4)))))
			}
		}
		return a
	}
	for !s.done() && len(np.facts)+len(np.rules) < 22 {
		if s.next(3) > 0 && len(np.facts) < 16 {
			a := atom()
			args := make([]string, len(a.Args))
			for i := range args {
				args[i] = fmt.Sprintf("k%d", s.next(4))
			}
			np.facts = append(np.facts, nFact{a.Pred, args, poly()})
			continue
		}
		if len(np.rules) >= 6 {
			break
		}
		r := Rule{Name: fmt.Sprintf("r%d", len(np.rules)), Head: atom(), Support: poly()}
		for range s.next(4) {
			r.Body = append(r.Body, Literal{Atom: atom(), Negated: s.next(4) == 0})
		}
		np.rules = append(np.rules, r)
	}
	return np, b
}

// programSeeds are the seed inputs of the program fuzz targets.
var programSeeds = [][]byte{
	{},
	[]byte("transitive closure with provenance"),
	{3, 2, 100, 1, 0, 2, 1, 1, 3, 3, 2, 1, 2, 0, 1, 1, 1, 0, 3, 1, 1, 2, 0, 0, 2, 3, 1, 1, 0, 2, 1},
	{7, 5, 199, 2, 1, 2, 2, 0, 1, 3, 4, 0, 2, 1, 1, 1, 2, 0, 1, 0, 2, 2, 2, 1, 0, 3, 3, 2, 1, 2, 0, 0, 0, 1, 2},
}

// loadFuzzed decodes a program from fuzz input and loads it; what it
// refuses must be refused with a typed error. loaded is what went in.
func loadFuzzed(t *testing.T, data []byte) (p *Program, loaded nProgram, b Bounds) {
	np, b := decodeProgram(data)
	p, loaded = loadChecked(t, np, b)
	return p, loaded, b
}

// loadChecked loads np under b; what it refuses must be refused with a
// typed error. loaded is what went in.
func loadChecked(t *testing.T, np nProgram, b Bounds) (p *Program, loaded nProgram) {
	p = NewProgram()
	p.SetBounds(b)
	for _, fa := range np.facts {
		if err := p.AddFact(fa.pred, fa.args, fa.sup); err != nil {
			requireTyped(t, err)
			continue
		}
		loaded.facts = append(loaded.facts, fa)
	}
	for _, r := range np.rules {
		if err := p.AddRule(r); err != nil {
			requireTyped(t, err)
			continue
		}
		loaded.rules = append(loaded.rules, r)
	}
	return p, loaded
}

func FuzzProgram(f *testing.F) {
	for _, seed := range programSeeds {
		f.Add(seed)
	}
	// Inputs long enough for the generators to draw long chains and
	// several layers of recursion before the bytes run out.
	for i := range uint64(24) {
		r := rand.New(rand.NewPCG(i, 9))
		b := make([]byte, 200)
		for j := range b {
			b[j] = byte(r.IntN(256))
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 512 {
			return
		}
		p, loaded, _ := loadFuzzed(t, data)
		checkFuzzed(t, p, loaded, 100)
		np, b := generateFuzzed(data)
		p, loaded = loadChecked(t, np, b)
		checkFuzzed(t, p, loaded, 400)
	})
}

// checkFuzzed evaluates a fuzzed program: a typed error only where the
// oracle cannot stratify; otherwise a closed model, equal to the oracle
// when nothing is truncated (else with its atoms and unconditional
// supports) and graded like the brute-force fixpoint, when it has at most
// oracleAtoms atoms (the oracles are slow).
func checkFuzzed(t *testing.T, p *Program, loaded nProgram, oracleAtoms int) {
	t.Helper()
	m, err := p.Eval()
	if err != nil {
		requireTyped(t, err)
		if _, _, ok := naiveEval(loaded); ok {
			t.Fatalf("Eval failed with %v but the oracle stratifies the program", err)
		}
		return
	}
	checkClosed(t, m, loaded)
	if m.Stats().Atoms > oracleAtoms {
		return // the oracles are cubic and slower; closure was checked
	}
	sup, args, _ := naiveEval(loaded)
	if m.Stats().Truncated == 0 {
		if got, want := dump(m), dumpNaive(sup, args); got != want {
			t.Fatalf("engine\n%s\noracle\n%s", got, want)
		}
	} else if d := oracleMismatch(m, sup, args); d != "" {
		t.Fatalf("%s\nengine\n%s\noracle\n%s", d, dump(m), dumpNaive(sup, args))
	}
	v := MapValuation{"x0": True, "x1": False, "x3": True, "x4": Unknown}
	want := bruteGrades(loaded, v)
	g := m.Grader(v)
	for _, pred := range m.Preds() {
		for _, f := range m.Facts(pred) {
			if got := g.Grade(pred, f.Args...); got.Truth() != want[atomKey(pred, f.Args)] {
				t.Fatalf("%s%v graded %v, brute force %v", pred, f.Args, got, want[atomKey(pred, f.Args)])
			}
		}
	}
}

func requireTyped(t *testing.T, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Code == "" || e.Message == "" {
		t.Fatalf("error %v (%T) is not a typed *Error", err, err)
	}
}

// checkClosed verifies that every rule instance the model satisfies has its
// head in the model, and that every atom has a support.
func checkClosed(t *testing.T, m *Model, np nProgram) {
	atoms := map[string][]string{}
	preds := map[string]string{}
	one := map[string]bool{}
	for _, pred := range m.Preds() {
		for _, f := range m.Facts(pred) {
			k := atomKey(pred, f.Args)
			atoms[k], preds[k] = f.Args, pred
			one[k] = f.Support.IsOne()
			if f.Support.IsZero() && !f.Support.Truncated() {
				t.Fatalf("%s%v is in the model with the zero support", pred, f.Args)
			}
		}
	}
	for _, r := range np.rules {
		naiveMatches(r.Body, atoms, preds, map[string]string{}, func(b map[string]string, _ []string) {
			for _, l := range r.Body {
				if l.Negated && one[atomKey(l.Atom.Pred, ground(l.Atom, b))] {
					return
				}
			}
			h := ground(r.Head, b)
			if _, ok := atoms[atomKey(r.Head.Pred, h)]; !ok {
				t.Fatalf("rule %s fires with %v but %s%v is not in the model", r.Name, b, r.Head.Pred, h)
			}
		})
	}
}
