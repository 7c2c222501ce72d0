// This file explains a grade: every support path of an atom, which paths
// hold under the valuation, what blocks the others, and which false
// literals alone kill the atom.

package datalog

import "slices"

// BlockedPath is a support path that does not hold under the valuation,
// with the literals that stop it (false or unknown ones), canonical order.
type BlockedPath struct {
	Path     []string
	Blockers []string
}

// Why explains the grade of one atom under a valuation. Every slice is
// non-nil. For a truncated atom Paths are the kept monomials only, Grade is
// still exact, and BlockingDefeats is empty (the kept paths are not all).
type Why struct {
	Pred      string
	Args      []string
	Grade     Grade
	Truncated bool
	// Paths is every support monomial, canonical: [[]] for an unconditional
	// atom, [] for an atom that was not derived.
	Paths [][]string
	// Active is the paths whose every literal is true.
	Active [][]string
	// Blocked is the other paths, each with its false or unknown literals.
	Blocked []BlockedPath
	// BlockingDefeats is the literals that are false and occur in every path,
	// so that each alone kills the atom; empty when some path is still live
	// (true or unknown) or there is no path.
	BlockingDefeats []string
}

// Why explains pred(args) under v.
func (m *Model) Why(pred string, args []string, v Valuation) Why {
	pid, row, ok := m.lookupAtom(pred, args)
	if !ok {
		return Explain(pred, args, Poly{}, Dead, v)
	}
	return Explain(pred, args, m.publicPoly(pid, row), m.Grader(v).gradeAtom(pid, row), v)
}

// Explain explains an atom whose support is sup and whose grade under v
// is g (the caller's, since a cut support does not determine it): every
// path of sup, the active ones, the blocked ones with their blockers, and
// the false literals that occur in every path when none is live. A
// negated-atom literal is graded in its own model. It serves atoms that a
// caller assembles from the model's supports (identity closed at read).
func Explain(pred string, args []string, sup Poly, g Grade, v Valuation) Why {
	w := Why{Pred: pred, Args: slices.Clone(args), Paths: [][]string{}, Active: [][]string{},
		Blocked: []BlockedPath{}, BlockingDefeats: []string{}}
	if sup.IsZero() && !sup.Truncated() {
		return w
	}
	w.Grade = g
	w.Truncated = sup.Truncated()
	graders := map[*Model]*Grader{}
	live := false
	var common map[string]bool
	for i, mo := range sup.mons() {
		path := make([]string, len(mo))
		var blockers []string
		pathTruth := True
		falses := map[string]bool{}
		for j, l := range mo {
			path[j] = l.name
			t := litTruthUnder(l, v, graders)
			pathTruth = min(pathTruth, t)
			if t != True {
				blockers = append(blockers, l.name)
			}
			if t == False {
				falses[l.name] = true
			}
		}
		w.Paths = append(w.Paths, path)
		if pathTruth == True {
			w.Active = append(w.Active, path)
		} else {
			w.Blocked = append(w.Blocked, BlockedPath{Path: path, Blockers: blockers})
		}
		if pathTruth != False {
			live = true
		}
		if i == 0 {
			common = falses
		} else {
			for k := range common {
				if !falses[k] {
					delete(common, k)
				}
			}
		}
	}
	if !live && !w.Truncated && len(w.Paths) > 0 {
		for k := range common {
			w.BlockingDefeats = append(w.BlockingDefeats, k)
		}
		slices.Sort(w.BlockingDefeats)
	}
	return w
}

// litTruthUnder is the truth of a public literal under v, grading a
// negated atom with one grader per model.
func litTruthUnder(l plit, v Valuation, graders map[*Model]*Grader) Truth {
	if l.neg == nil {
		t := v.Truth(l.name)
		if t > True {
			t = Unknown
		}
		return t
	}
	g := graders[l.neg.m]
	if g == nil {
		g = l.neg.m.Grader(v)
		graders[l.neg.m] = g
	}
	return g.gradeAtom(l.neg.pred, l.neg.row).Truth().Not()
}
