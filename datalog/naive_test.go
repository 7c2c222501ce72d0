// This file holds the test oracle: a naive evaluator that is simple rather
// than fast. It stratifies by iterating stratum numbers, joins by nested
// loops over every atom with a map of bindings, and keeps exact, unbounded
// polynomials with the public Poly arithmetic. It also grades by a
// brute-force three-valued least fixpoint under a valuation, with no
// polynomials at all.

package datalog

import (
	"fmt"
	"slices"
	"strings"
)

// nFact is a ground fact of a test program.
type nFact struct {
	pred string
	args []string
	sup  Poly
}

// nProgram is a test program in plain form.
type nProgram struct {
	facts []nFact
	rules []Rule
}

func atomKey(pred string, args []string) string { return pred + "\x00" + strings.Join(args, "\x00") }

// naiveStrata numbers predicates so that a rule's head is at least its
// positive body and above its negated body; false when that diverges.
func naiveStrata(rules []Rule) (map[string]int, bool) {
	s := map[string]int{}
	for i := 0; i <= len(rules)+1; i++ {
		changed := false
		for _, r := range rules {
			for _, l := range r.Body {
				if l.IsComparison() {
					continue
				}
				need := s[l.Atom.Pred]
				if l.Negated {
					need++
				}
				if s[r.Head.Pred] < need {
					s[r.Head.Pred] = need
					changed = true
				}
			}
		}
		if !changed {
			return s, true
		}
	}
	return nil, false
}

// naiveMatches calls f with every binding that satisfies the positive body
// and the comparisons against atoms (nested loops over the atoms of each body predicate, map
// bindings, copied only for a consistent candidate).
func naiveMatches(body []Literal, atoms map[string][]string, preds map[string]string, b map[string]string, f func(map[string]string, []string)) {
	naiveMatchFrom(body, 0, atoms, naiveByPred(preds), b, nil, f)
}

// naiveByPred lists the atom keys of each predicate, sorted.
func naiveByPred(preds map[string]string) map[string][]string {
	byPred := map[string][]string{}
	for k, p := range preds {
		byPred[p] = append(byPred[p], k)
	}
	for _, ks := range byPred {
		slices.Sort(ks)
	}
	return byPred
}

func naiveMatchFrom(body []Literal, i int, atoms map[string][]string, byPred map[string][]string, b map[string]string, used []string, f func(map[string]string, []string)) {
	for i < len(body) && (body[i].Negated || body[i].IsComparison()) {
		i++
	}
	if i == len(body) {
		for _, l := range body {
			if c := l.Cmp; l.IsComparison() && !CompareConsts(c.Op, ground(Atom{Args: []Term{c.X}}, b)[0], ground(Atom{Args: []Term{c.Y}}, b)[0]) {
				return
			}
		}
		f(b, used)
		return
	}
	a := body[i].Atom
	for _, k := range byPred[a.Pred] {
		args := atoms[k]
		if len(args) != len(a.Args) || !consistent(a, args, b) {
			continue
		}
		nb := map[string]string{}
		for kk, v := range b {
			nb[kk] = v
		}
		for j, t := range a.Args {
			if t.Var != "" {
				nb[t.Var] = args[j]
			}
		}
		naiveMatchFrom(body, i+1, atoms, byPred, nb, append(slices.Clone(used), k), f)
	}
}

// consistent reports whether args match a's constants, the bindings b, and
// themselves where a repeats a variable.
func consistent(a Atom, args []string, b map[string]string) bool {
	local := map[string]string{}
	for j, t := range a.Args {
		switch {
		case t.Var == "":
			if args[j] != t.Const {
				return false
			}
		case t.Var == Anon:
		default:
			if v, ok := b[t.Var]; ok && v != args[j] {
				return false
			}
			if v, ok := local[t.Var]; ok && v != args[j] {
				return false
			}
			local[t.Var] = args[j]
		}
	}
	return true
}

func ground(a Atom, b map[string]string) []string {
	out := make([]string, len(a.Args))
	for i, t := range a.Args {
		if t.Var != "" {
			out[i] = b[t.Var]
		} else {
			out[i] = t.Const
		}
	}
	return out
}

// naiveEval evaluates prog with exact polynomials. It returns atom key →
// support, and false when the program is not stratifiable.
func naiveEval(prog nProgram) (map[string]Poly, map[string][]string, bool) {
	strata, ok := naiveStrata(prog.rules)
	if !ok {
		return nil, nil, false
	}
	sup := map[string]Poly{}
	args := map[string][]string{}
	preds := map[string]string{}
	for _, f := range prog.facts {
		k := atomKey(f.pred, f.args)
		sup[k] = sup[k].Add(f.sup)
		args[k], preds[k] = f.args, f.pred
	}
	top := 0
	for _, s := range strata {
		top = max(top, s)
	}
	for level := 0; level <= top; level++ {
		for {
			contrib := map[string]Poly{}
			byPred := naiveByPred(preds) // the atoms as the round starts
			for _, r := range prog.rules {
				if strata[r.Head.Pred] != level {
					continue
				}
				naiveMatchFrom(r.Body, 0, args, byPred, map[string]string{}, nil, func(b map[string]string, used []string) {
					p := r.Support
					for _, k := range used {
						p = p.Mul(sup[k])
					}
					for _, l := range r.Body {
						if !l.Negated {
							continue
						}
						ga := ground(l.Atom, b)
						q, ok := sup[atomKey(l.Atom.Pred, ga)]
						switch {
						case !ok || q.IsZero():
						case q.IsOne():
							return
						default:
							p = p.Mul(VarPoly("not " + renderAtom(l.Atom.Pred, ga)))
						}
					}
					h := ground(r.Head, b)
					k := atomKey(r.Head.Pred, h)
					contrib[k] = contrib[k].Add(p)
					args[k], preds[k] = h, r.Head.Pred
				})
			}
			changed := false
			for k, c := range contrib {
				n := sup[k].Add(c)
				if !n.Equal(sup[k]) {
					sup[k] = n
					changed = true
				}
			}
			if !changed {
				break
			}
		}
	}
	return sup, args, true
}

func kleene(p Poly, lit func(string) Truth) Truth {
	best := False
	for _, m := range p.Monomials() {
		t := True
		for _, l := range m {
			t = min(t, lit(l))
		}
		best = max(best, t)
	}
	return best
}

// bruteGrades grades every derivable atom under v by a three-valued least
// fixpoint over the program itself: an atom's truth is the best, over its
// facts and rule instances, of the least truth among the instance's parts.
func bruteGrades(prog nProgram, v Valuation) map[string]Truth {
	strata, _ := naiveStrata(prog.rules)
	val := func(s string) Truth { return v.Truth(s) }
	truth := map[string]Truth{}
	args := map[string][]string{}
	preds := map[string]string{}
	for _, f := range prog.facts {
		k := atomKey(f.pred, f.args)
		truth[k] = max(truth[k], kleene(f.sup, val))
		args[k], preds[k] = f.args, f.pred
	}
	top := 0
	for _, s := range strata {
		top = max(top, s)
	}
	for level := 0; level <= top; level++ {
		for changed := true; changed; {
			changed = false
			for _, r := range prog.rules {
				if strata[r.Head.Pred] != level {
					continue
				}
				naiveMatches(r.Body, args, preds, map[string]string{}, func(b map[string]string, used []string) {
					t := kleene(r.Support, val)
					for _, k := range used {
						t = min(t, truth[k])
					}
					for _, l := range r.Body {
						if l.Negated {
							t = min(t, truth[atomKey(l.Atom.Pred, ground(l.Atom, b))].Not())
						}
					}
					h := ground(r.Head, b)
					k := atomKey(r.Head.Pred, h)
					if _, seen := args[k]; !seen {
						args[k], preds[k] = h, r.Head.Pred
						changed = true
					}
					if t > truth[k] {
						truth[k] = t
						changed = true
					}
				})
			}
		}
	}
	return truth
}

// load builds a Program from a test program, in the given orders.
func (np nProgram) load(factOrder, ruleOrder []int, b Bounds) (*Program, error) {
	p := NewProgram()
	p.SetBounds(b)
	for _, i := range factOrder {
		f := np.facts[i]
		if err := p.AddFact(f.pred, f.args, f.sup); err != nil {
			return nil, err
		}
	}
	for _, i := range ruleOrder {
		if err := p.AddRule(np.rules[i]); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// dump renders every atom of m with its support, canonically.
func dump(m *Model) string {
	var b strings.Builder
	for _, pred := range m.Preds() {
		for _, f := range m.Facts(pred) {
			fmt.Fprintf(&b, "%s = %s\n", renderAtom(pred, f.Args), f.Support)
		}
	}
	return b.String()
}

// dumpNaive renders the oracle's atoms like dump.
func dumpNaive(sup map[string]Poly, args map[string][]string) string {
	type row struct {
		pred string
		args []string
		sup  Poly
	}
	var rows []row
	for k, p := range sup {
		pred, _, _ := strings.Cut(k, "\x00")
		rows = append(rows, row{pred, args[k], p})
	}
	slices.SortFunc(rows, func(a, b row) int {
		if c := strings.Compare(a.pred, b.pred); c != 0 {
			return c
		}
		return slices.Compare(a.args, b.args)
	})
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%s = %s\n", renderAtom(r.pred, r.args), r.sup)
	}
	return b.String()
}

// oracleMismatch compares a model, evaluated under any bounds, with the
// oracle's exact supports: the same atoms, each unconditional exactly when
// the oracle's is (negation depends on it), and an untruncated support
// equal to the oracle's. It describes the first difference, or returns "".
func oracleMismatch(m *Model, sup map[string]Poly, args map[string][]string) string {
	n := 0
	for _, pred := range m.Preds() {
		for _, f := range m.Facts(pred) {
			n++
			ws, ok := sup[atomKey(pred, f.Args)]
			switch {
			case !ok:
				return fmt.Sprintf("%s%v = %v is not the oracle's", pred, f.Args, f.Support)
			case f.Support.IsOne() != ws.IsOne() || !f.Support.Truncated() && f.Support.String() != ws.String():
				return fmt.Sprintf("%s%v = %v (truncated %v), the oracle's support is %v", pred, f.Args, f.Support, f.Support.Truncated(), ws)
			}
		}
	}
	if n != len(args) {
		return fmt.Sprintf("%d atoms, the oracle derives %d", n, len(args))
	}
	return ""
}
