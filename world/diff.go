// The derived-consequence diff between two worlds: which atoms became
// newly certain, possible or dead, which changed grade, and which
// conflicts arose — the world is folded, not stored, so one new fact can
// move consequences far from it.

package world

import (
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
		GradeChanged: []Consequence{}, Conflicts: []Finding{}}
	before := w.grades()
	now := after.grades()
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

// grades grades every lore atom of the world (internal predicates aside),
// keyed by a canonical rendering.
func (w *World) grades() map[string]gradedAtom {
	out := map[string]gradedAtom{}
	for _, pred := range w.model.Preds() {
		if strings.HasPrefix(pred, "@") {
			continue
		}
		if w.readClosed(pred) {
			w.eachClosed(pred, nil, func(args []string, _ []int32) bool {
				key := pred + "(" + strings.Join(args, "\x00") + ")"
				out[key] = gradedAtom{pred: pred, args: args, grade: w.closedGrade(pred, args)}
				return true
			})
			continue
		}
		for _, f := range w.model.Facts(pred) {
			key := pred + "(" + strings.Join(f.Args, "\x00") + ")"
			out[key] = gradedAtom{pred: pred, args: f.Args, grade: gradeOf(f.Support.Eval(w.val))}
		}
	}
	return out
}
