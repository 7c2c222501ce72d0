// The derived-consequence diff between two worlds: which atoms became
// newly certain, possible or dead, which changed grade, and which
// conflicts arose — the world is folded, not stored, so one new fact can
// move consequences far from it.

package world

import (
	"maps"
	"sort"
	"strings"

	"github.com/deloreis/deloreis/datalog"
)

// Consequence is one atom whose grade moved.
type Consequence struct {
	Pred   string        `json:"pred"`
	Args   []string      `json:"args"`
	Before datalog.Grade `json:"-"`
	After  datalog.Grade `json:"-"`
	New    bool          `json:"new,omitempty"` // the atom was not derived before at all
}

// ConsequenceDiff is what a change did to the world's consequences.
type ConsequenceDiff struct {
	NewlyCertain []Consequence `json:"newly_certain"`
	Possible     []Consequence `json:"possible"`      // newly possible
	Dead         []Consequence `json:"dead"`          // newly dead (or gone)
	GradeChanged []Consequence `json:"grade_changed"` // every atom whose grade moved
	Conflicts    []Finding     `json:"conflicts"`     // error findings the change brought
}

// Empty reports whether nothing moved.
func (d ConsequenceDiff) Empty() bool {
	return len(d.GradeChanged) == 0 && len(d.Conflicts) == 0
}

// Diff compares the world before a change (w) with the world after it.
func (w *World) Diff(after *World) ConsequenceDiff {
	before, now := w.gradePair(after)
	return w.diffOf(after, before, now)
}

// diffOf is Diff of after over w, given the grades of what may differ.
func (w *World) diffOf(after *World, before, now map[string]gradedAtom) ConsequenceDiff {
	d := ConsequenceDiff{NewlyCertain: []Consequence{}, Possible: []Consequence{}, Dead: []Consequence{},
		GradeChanged: []Consequence{}, Conflicts: []Finding{}}
	keys := make([]string, 0, len(before)+len(now))
	for k := range before {
		keys = append(keys, k)
	}
	for k := range now {
		if _, ok := before[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		b, hadB := before[k]
		a, hasA := now[k]
		gb, ga := datalog.Dead, datalog.Dead
		if hadB {
			gb = b.grade
		}
		if hasA {
			ga = a.grade
		}
		if gb == ga {
			continue
		}
		atom := a
		if !hasA {
			atom = b
		}
		c := Consequence{Pred: atom.pred, Args: atom.args, Before: gb, After: ga, New: !hadB}
		d.GradeChanged = append(d.GradeChanged, c)
		switch ga {
		case datalog.Certain:
			d.NewlyCertain = append(d.NewlyCertain, c)
		case datalog.Possible:
			d.Possible = append(d.Possible, c)
		default:
			d.Dead = append(d.Dead, c)
		}
	}
	old := map[string]bool{}
	for _, f := range w.Findings() {
		old[f.Code+"\x00"+f.Message] = true
	}
	for _, f := range after.Findings() {
		if f.Severity == SeverityError && !old[f.Code+"\x00"+f.Message] {
			d.Conflicts = append(d.Conflicts, f)
		}
	}
	return d
}

type gradedAtom struct {
	pred  string
	args  []string
	grade datalog.Grade
}

// gradePair grades, in w and in after, the atoms whose grade may differ
// between them: those the engine changed when after's model was evaluated
// from w's, when it was and nothing else moves grades (the valuation is
// the same, and no atom is read through an identity closure); else every
// atom of both. Grading every atom of a 10M-atom world twice took minutes
// and gigabytes for a diff of one staged fact.
func (w *World) gradePair(after *World) (map[string]gradedAtom, map[string]gradedAtom) {
	if ch, ok := w.changesTo(after); ok {
		return w.gradesOf(ch), after.gradesOf(ch)
	}
	return w.grades(), after.grades()
}

// changesTo returns what may differ between w's consequences and after's,
// when that is known atom by atom or predicate by predicate.
func (w *World) changesTo(after *World) (datalog.Changes, bool) {
	if w.model == nil || after.model == nil || !maps.Equal(w.val, after.val) ||
		w.readsClosures() || after.readsClosures() {
		return datalog.Changes{}, false
	}
	return after.model.ChangedSince(w.model)
}

// readsClosures reports whether some predicate may be read through the
// identity closure (readClosed), whose grades the model's supports alone
// do not give.
func (w *World) readsClosures() bool {
	return !w.legacy && len(w.closure().edges) > 0
}

// gradesOf grades, as grades does, the atoms ch names: every atom of its
// whole predicates, and each of its changed atoms the model holds.
func (w *World) gradesOf(ch datalog.Changes) map[string]gradedAtom {
	out := map[string]gradedAtom{}
	for pred := range ch.Whole {
		if !strings.HasPrefix(pred, "@") {
			w.gradePred(pred, out)
		}
	}
	for pred, list := range ch.Atoms {
		if strings.HasPrefix(pred, "@") || ch.Whole[pred] {
			continue
		}
		for _, args := range list {
			if w.model.Has(pred, args...) {
				out[gradeKey(pred, args)] = gradedAtom{pred: pred, args: args, grade: gradeOf(w.model.Support(pred, args...).Eval(w.val))}
			}
		}
	}
	return out
}

// grades grades every lore atom of the world (internal predicates aside),
// keyed by a canonical rendering.
func (w *World) grades() map[string]gradedAtom {
	out := map[string]gradedAtom{}
	for _, pred := range w.model.Preds() {
		if !strings.HasPrefix(pred, "@") {
			w.gradePred(pred, out)
		}
	}
	return out
}

// gradePred grades every atom of pred into out.
func (w *World) gradePred(pred string, out map[string]gradedAtom) {
	if w.readClosed(pred) {
		w.eachClosed(pred, nil, func(args []string, _ []int32) bool {
			out[gradeKey(pred, args)] = gradedAtom{pred: pred, args: args, grade: w.closedGrade(pred, args)}
			return true
		})
		return
	}
	for _, f := range w.model.Facts(pred) {
		out[gradeKey(pred, f.Args)] = gradedAtom{pred: pred, args: f.Args, grade: gradeOf(f.Support.Eval(w.val))}
	}
}

// gradeKey is an atom's key in a grades map.
func gradeKey(pred string, args []string) string {
	return pred + "(" + strings.Join(args, "\x00") + ")"
}
