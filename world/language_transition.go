// Reads the continuity op author.add_transition needs: the open values of
// a fluent slot, and whether the declared chronology orders two anchors.

package world

import (
	"sort"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// OpenValue is a value of a fluent slot that holds from an anchor and has
// no authored until: inertial persistence carries it forward.
type OpenValue struct {
	Claim objects.ID
	Value string
	Since string
}

// OpenValues lists the values of the slot (entity, key) that hold from an
// anchor with no until and are not dead, by anchor then value (one pass
// over the states).
func (w *World) OpenValues(entity, key string) []OpenValue {
	var out []OpenValue
	for e := range each(w.ix.states) {
		s := e.Object.(*objects.State)
		if s.Entity != entity || s.Key != key || s.Since == "" || s.Until != "" || w.ClaimGrade(e.ID) == datalog.Dead {
			continue
		}
		out = append(out, OpenValue{Claim: e.ID, Value: s.Value, Since: s.Since})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Since != out[j].Since {
			return out[i].Since < out[j].Since
		}
		return out[i].Value < out[j].Value
	})
	return out
}

// Precedes reports whether the certain before-facts order a before b,
// directly or through other anchors (one search over them): the order the
// continuity check reads.
func (w *World) Precedes(a, b string) bool {
	next := map[string][]string{}
	for e := range each(w.ix.befores) {
		x := e.Object.(*objects.Before)
		if w.ClaimGrade(e.ID) == datalog.Certain {
			next[x.Earlier] = append(next[x.Earlier], x.Later)
		}
	}
	seen := map[string]bool{a: true}
	queue := []string{a}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range next[n] {
			if m == b {
				return true
			}
			if !seen[m] {
				seen[m] = true
				queue = append(queue, m)
			}
		}
	}
	return false
}
