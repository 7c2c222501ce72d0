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
	d := ConsequenceDiff{NewlyCertain: []Consequence{}, Possible: []Consequence{}, Dead: []Consequence{},
		GradeChanged: []Consequence{}}
	w.EachConsequence(after, func(c Consequence) bool {
		d.add(c)
		return true
	})
	d.Conflicts = w.Conflicts(after)
	return d
}

// add files c under GradeChanged and the list of its new grade.
func (d *ConsequenceDiff) add(c Consequence) {
	d.GradeChanged = append(d.GradeChanged, c)
	switch c.After {
	case datalog.Certain:
		d.NewlyCertain = append(d.NewlyCertain, c)
	case datalog.Possible:
		d.Possible = append(d.Possible, c)
	default:
		d.Dead = append(d.Dead, c)
	}
}

// Conflicts are the error findings after has that w has not: the
// conflicts a change brought.
func (w *World) Conflicts(after *World) []Finding {
	out := []Finding{}
	old := map[string]bool{}
	for _, f := range w.Findings() {
		old[f.Code+"\x00"+f.Message] = true
	}
	for _, f := range after.Findings() {
		if f.Severity == SeverityError && !old[f.Code+"\x00"+f.Message] {
			out = append(out, f)
		}
	}
	return out
}

// diffOf is Diff of after over w computed from two grade maps (grades,
// gradesOf): the plain form the streaming Diff is held to in the tests.
func (w *World) diffOf(after *World, before, now map[string]gradedAtom) ConsequenceDiff {
	d := ConsequenceDiff{NewlyCertain: []Consequence{}, Possible: []Consequence{}, Dead: []Consequence{},
		GradeChanged: []Consequence{}}
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
		if c, moved := consequence(b, hadB, a, hasA); moved {
			d.add(c)
		}
	}
	d.Conflicts = w.Conflicts(after)
	return d
}

// consequence is the move of one atom graded b in the world before (when
// hadB) and a after (when hasA), and whether its grade moved at all.
func consequence(b gradedAtom, hadB bool, a gradedAtom, hasA bool) (Consequence, bool) {
	gb, ga := datalog.Dead, datalog.Dead
	if hadB {
		gb = b.grade
	}
	if hasA {
		ga = a.grade
	}
	if gb == ga {
		return Consequence{}, false
	}
	atom := a
	if !hasA {
		atom = b
	}
	return Consequence{Pred: atom.pred, Args: atom.args, Before: gb, After: ga, New: !hadB}, true
}

type gradedAtom struct {
	pred  string
	args  []string
	grade datalog.Grade
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

// grades grades every lore atom of the world (internal predicates aside),
// keyed by a canonical rendering: diffOf's input.
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
