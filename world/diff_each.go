// The consequence diff as a stream: one predicate at a time, the atoms of
// each world merged in the diff's order, so that a diff of millions of
// atoms holds one predicate's atoms at a time, not a map of every atom of
// both worlds keyed by its rendering (an import of 3M declarations spent
// a third of its 146 s and most of its 7.4 GB peak there).

package world

import (
	"slices"
	"strings"
)

// EachConsequence calls yield for every atom whose grade moved between w
// and after, in the order of Diff's lists (by the atom's rendering), until
// yield returns false. Only the atoms the engine changed when after's
// model was evaluated from w's are graded, when it was and nothing else
// moves grades (the valuation is the same, and no atom is read through an
// identity closure); else every atom of both. Grading every atom of a
// 10M-atom world twice took minutes and gigabytes for a diff of one
// staged fact.
func (w *World) EachConsequence(after *World, yield func(Consequence) bool) {
	if w.model == nil || after.model == nil {
		return
	}
	ch, known := w.changesTo(after)
	var preds []string
	if known {
		for pred := range ch.Whole {
			preds = append(preds, pred)
		}
		for pred := range ch.Atoms {
			if !ch.Whole[pred] {
				preds = append(preds, pred)
			}
		}
	} else {
		preds = append(w.model.Preds(), after.model.Preds()...)
	}
	// A key starts pred + "(": so are the keys' blocks ordered.
	slices.SortFunc(preds, func(a, b string) int { return strings.Compare(a+"(", b+"(") })
	preds = slices.Compact(preds)
	for _, pred := range preds {
		if strings.HasPrefix(pred, "@") {
			continue
		}
		whole := !known || ch.Whole[pred]
		if !mergeMoved(w.atomsOf(pred, whole, ch.Atoms[pred]), after.atomsOf(pred, whole, ch.Atoms[pred]), yield) {
			return
		}
	}
}

// mergeMoved yields the moves between before and after, two lists of one
// predicate's atoms in key order, and reports whether yield wanted more.
func mergeMoved(before, after []gradedAtom, yield func(Consequence) bool) bool {
	i, j := 0, 0
	for i < len(before) || j < len(after) {
		var b, a gradedAtom
		hadB, hasA := false, false
		switch {
		case j == len(after):
			b, hadB, i = before[i], true, i+1
		case i == len(before):
			a, hasA, j = after[j], true, j+1
		default:
			switch c := keyCompare(before[i].args, after[j].args); {
			case c < 0:
				b, hadB, i = before[i], true, i+1
			case c > 0:
				a, hasA, j = after[j], true, j+1
			default:
				b, a, hadB, hasA, i, j = before[i], after[j], true, true, i+1, j+1
			}
		}
		if c, moved := consequence(b, hadB, a, hasA); moved && !yield(c) {
			return false
		}
	}
	return true
}

// atomsOf grades pred's atoms in key order: every one (whole), else those
// of list the model holds.
func (w *World) atomsOf(pred string, whole bool, list [][]string) []gradedAtom {
	var out []gradedAtom
	switch {
	case whole && w.readClosed(pred):
		w.eachClosed(pred, nil, func(args []string, _ []int32) bool {
			out = append(out, gradedAtom{pred: pred, args: args, grade: w.closedGrade(pred, args)})
			return true
		})
	case whole:
		facts := w.model.Facts(pred)
		out = make([]gradedAtom, len(facts))
		for i, f := range facts {
			out[i] = gradedAtom{pred: pred, args: f.Args, grade: gradeOf(f.Support.Eval(w.val))}
		}
	default:
		for _, args := range list {
			if w.model.Has(pred, args...) {
				out = append(out, gradedAtom{pred: pred, args: args, grade: gradeOf(w.model.Support(pred, args...).Eval(w.val))})
			}
		}
	}
	less := func(a, b gradedAtom) int { return keyCompare(a.args, b.args) }
	if !slices.IsSortedFunc(out, less) {
		slices.SortStableFunc(out, less)
	}
	// An atom listed twice is one key, as in a map; its grade is the same.
	return slices.CompactFunc(out, func(a, b gradedAtom) bool { return keyCompare(a.args, b.args) == 0 })
}

// keyCompare orders two argument lists of one predicate as their keys
// (gradeKey) order, without building the keys but in the rare case where
// one argument is a prefix of the other's and the separators decide.
func keyCompare(a, b []string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) && i == len(b) {
		return 0
	}
	if i < len(a) && i < len(b) {
		x, y := a[i], b[i]
		for k := 0; k < len(x) && k < len(y); k++ {
			if x[k] != y[k] {
				if x[k] < y[k] {
					return -1
				}
				return 1
			}
		}
	}
	return strings.Compare(gradeKey("", a), gradeKey("", b))
}
