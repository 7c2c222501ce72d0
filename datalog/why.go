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
	w := Why{Pred: pred, Args: slices.Clone(args), Paths: [][]string{}, Active: [][]string{},
		Blocked: []BlockedPath{}, BlockingDefeats: []string{}}
	pid, row, ok := m.lookupAtom(pred, args)
	if !ok {
		return w
	}
	g := m.Grader(v)
	w.Grade = g.gradeAtom(pid, row)
	sup := m.publicPoly(pid, row)
	w.Truncated = sup.Truncated()
	live := false
	var common map[string]bool
	for i, mo := range sup.mons() {
		path := make([]string, len(mo))
		var blockers []string
		pathTruth := True
		falses := map[string]bool{}
		for j, l := range mo {
			path[j] = l.name
			t := g.plitTruth(l)
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

// plitTruth is the truth of a public literal under g's valuation.
func (g *Grader) plitTruth(l plit) Truth {
	if l.neg == nil {
		t := g.v.Truth(l.name)
		if t > True {
			t = Unknown
		}
		return t
	}
	if l.neg.m == g.m {
		return g.gradeAtom(l.neg.pred, l.neg.row).Truth().Not()
	}
	return l.neg.m.Grader(g.v).gradeAtom(l.neg.pred, l.neg.row).Truth().Not()
}
