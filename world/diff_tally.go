// The consequence diff counted: how many atoms moved to each grade, and
// the first few of each in Diff's order, without ordering or holding the
// rest — what a summary of an import of millions of declarations prints.

package world

import (
	"slices"
	"strings"

	"github.com/deloreis/deloreis/datalog"
)

// Tally is a consequence diff counted by new grade.
type Tally struct {
	Counts map[datalog.Grade]int // atoms that moved to each grade
	First  []Consequence         // the first n of each grade, in Diff's order
}

// TallyConsequences counts every atom whose grade moved between w and
// after by its new grade, and keeps the first n (n > 0) of each grade as
// EachConsequence yields them. Where the engine's changes are known, or a
// predicate is read through an identity closure, it tallies
// EachConsequence's merge; else it visits each world's atoms in their
// model's order, looking each one up in the other world.
func (w *World) TallyConsequences(after *World, n int) Tally {
	t := tally{n: n, Tally: Tally{Counts: map[datalog.Grade]int{}}, first: map[datalog.Grade][]Consequence{}}
	if w.model == nil || after.model == nil {
		return t.Tally
	}
	if _, known := w.changesTo(after); known {
		w.EachConsequence(after, func(c Consequence) bool { t.add(c); return true })
		return t.done()
	}
	preds := append(w.model.Preds(), after.model.Preds()...)
	slices.SortFunc(preds, func(a, b string) int { return strings.Compare(a+"(", b+"(") })
	for _, pred := range slices.Compact(preds) {
		switch {
		case strings.HasPrefix(pred, "@"):
		case w.readClosed(pred) || after.readClosed(pred):
			mergeMoved(w.atomsOf(pred, true, nil), after.atomsOf(pred, true, nil), func(c Consequence) bool { t.add(c); return true })
		default:
			w.tallyPred(after, pred, &t)
		}
	}
	return t.done()
}

// tallyPred tallies the moves of pred's atoms, neither world reading it
// through a closure: each atom of after graded against w, then each of w's
// that after lacks (gone, so dead).
// Each world's atoms are graded by one grader of its model and
// valuation (datalog.Grader.EachAtom), as Support(…).Eval grades them.
func (w *World) tallyPred(after *World, pred string, t *tally) {
	had := w.model.Len(pred) > 0
	var before *datalog.Grader
	if had {
		before = w.model.Grader(w.val)
	}
	after.model.Grader(after.val).EachAtom(pred, func(args []string, ga datalog.Grade) bool {
		b, hadB := gradedAtom{}, had && w.model.Has(pred, args...)
		if hadB {
			b = gradedAtom{pred: pred, args: args, grade: before.Grade(pred, args...)}
		}
		if c, moved := consequence(b, hadB, gradedAtom{pred: pred, args: args, grade: ga}, true); moved {
			t.add(c)
		}
		return true
	})
	if !had {
		return
	}
	before.EachAtom(pred, func(args []string, gb datalog.Grade) bool {
		if !after.model.Has(pred, args...) {
			if c, moved := consequence(gradedAtom{pred: pred, args: args, grade: gb}, true, gradedAtom{}, false); moved {
				t.add(c)
			}
		}
		return true
	})
}

// tally is a Tally being counted: predicates are tallied in Diff's order,
// the atoms of one predicate in any.
type tally struct {
	Tally
	n     int
	first map[datalog.Grade][]Consequence
}

// add counts c and keeps it if it is among the first n of its grade so
// far: a list full of earlier predicates' atoms takes no more.
func (t *tally) add(c Consequence) {
	t.Counts[c.After]++
	l := t.first[c.After]
	if len(l) == t.n && (l[t.n-1].Pred != c.Pred || keyCompare(l[t.n-1].Args, c.Args) < 0) {
		return
	}
	i := len(l)
	for i > 0 && l[i-1].Pred == c.Pred && keyCompare(l[i-1].Args, c.Args) > 0 {
		i--
	}
	l = slices.Insert(l, i, c)
	t.first[c.After] = l[:min(len(l), t.n)]
}

// done is the tally, its first atoms in Diff's order.
func (t *tally) done() Tally {
	for _, l := range t.first {
		t.First = append(t.First, l...)
	}
	slices.SortStableFunc(t.First, func(a, b Consequence) int {
		if c := strings.Compare(a.Pred+"(", b.Pred+"("); c != 0 {
			return c
		}
		return keyCompare(a.Args, b.Args)
	})
	return t.Tally
}
