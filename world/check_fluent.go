// The check battery, part three: fluents. A state of an inertial predicate
// holds from its since anchor until its until anchor, or, with none, until
// a later distinct certain value on the same slot caps it. Two distinct
// certain values on one slot are a silent transition when their anchors
// are ordered, an undeclared order (warn, with a settling before-fact) when
// they are not, and a contradiction (error) when they hold at once.

package world

import (
	"sort"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// slotState is one certain state on a slot.
type slotState struct {
	id    objects.ID
	state *objects.State
}

func (w *World) checkFluents() {
	inertial := w.policy(groupFluents, w.ix.inertial, true)
	if len(inertial) == 0 {
		return
	}
	preds, ents := w.predicateReps(), w.entityReps()
	order, props := w.certainOrder(), w.properties()
	slots := map[fdKey][]slotState{}
	for e := range each(w.ix.states) {
		s := e.Object.(*objects.State)
		rep := repOf(preds, s.Key)
		if !inertial[rep] {
			continue
		}
		if s.Since == "" {
			f := newFinding(CodeInertiaUnanchored, "%s.%s = %s has no since anchor: where it starts to hold is unknown.", s.Entity, s.Key, s.Value)
			f.Citations = []string{e.ID.String()}
			w.emit(groupFluents, f)
			continue
		}
		if w.ClaimGrade(e.ID) != datalog.Certain {
			continue
		}
		k := fdKey{rep, ents.find(s.Entity)}
		slots[k] = append(slots[k], slotState{e.ID, s})
	}
	for _, k := range sortedKeys(slots) {
		ss := slots[k]
		sort.Slice(ss, func(i, j int) bool { return lessID(ss[i].id, ss[j].id) })
		for i := range ss {
			for j := i + 1; j < len(ss); j++ {
				if ents.find(ss[i].state.Value) != ents.find(ss[j].state.Value) {
					w.comparePair(k, ss[i], ss[j], order, props)
				}
			}
		}
	}
}

// comparePair judges two distinct certain values on one slot.
func (w *World) comparePair(k fdKey, a, b slotState, order reach, props properties) {
	cites := []string{a.id.String(), b.id.String()}
	data := map[string]any{"predicate": k.pred, "subject": k.subject,
		"values": []string{a.state.Value, b.state.Value}, "anchors": []string{a.state.Since, b.state.Since}}
	sa, sb := a.state.Since, b.state.Since
	switch {
	case sa == sb || w.spansOverlap(a.state, b.state, order):
		f := newFinding(CodeFluentContradiction, "%s.%s holds both %s and %s at once (from %s and %s).%s",
			k.subject, k.pred, a.state.Value, b.state.Value, sa, sb, props.tail(k.pred))
		props.name(data, k.pred)
		f.Citations, f.Data = cites, data
		w.emit(groupFluents, f)
	case order.before(sa, sb) || order.before(sb, sa):
		// An ordered transition: the later value caps the earlier one.
	default:
		earlier, later := sa, sb
		if later < earlier {
			earlier, later = later, earlier
		}
		f := newFinding(CodeFluentOrderUndeclared, "%s.%s is %s from %s and %s from %s, but the order of %s and %s is not declared.",
			k.subject, k.pred, a.state.Value, sa, b.state.Value, sb, sa, sb)
		f.Citations, f.Data = cites, data
		f.Repair = &Repair{Kind: "add-before", Params: map[string]any{"earlier": earlier, "later": later}}
		w.emit(groupFluents, f)
	}
}

// spansOverlap reports whether two states with authored until anchors
// provably hold at once: each starts before the other ends.
func (w *World) spansOverlap(a, b *objects.State, order reach) bool {
	if a.Until == "" || b.Until == "" {
		return false
	}
	return order.before(a.Since, b.Until) && order.before(b.Since, a.Until)
}

// reach answers "is x declared before y" over the certain order facts.
type reach map[string]map[string]bool

func (w *World) certainOrder() reach {
	g := map[string][]string{}
	for _, f := range w.model.Facts(predBefore) {
		if len(f.Args) == 2 && gradeOf(f.Support.Eval(w.val)) == datalog.Certain {
			g[f.Args[0]] = append(g[f.Args[0]], f.Args[1])
		}
	}
	r := reach{}
	nodes := make([]string, 0, len(g))
	for n := range g {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	for _, n := range nodes {
		seen := map[string]bool{}
		stack := append([]string(nil), g[n]...)
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[x] {
				continue
			}
			seen[x] = true
			stack = append(stack, g[x]...)
		}
		r[n] = seen
	}
	return r
}

func (r reach) before(x, y string) bool { return r[x][y] }
