// Identity components: the union of entities (same-as) and of predicates
// (predicate same-as), as the checks read them: the checks group
// subjects, values and predicates by their component's representative,
// the lexicographically smallest member. Entity components are those of
// the identity closure (closure.go).

package world

import (
	"sort"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// unionFind over strings; the representative is the smallest member.
type unionFind map[string]string

func (u unionFind) find(x string) string {
	p, ok := u[x]
	if !ok || p == x {
		return x
	}
	r := u.find(p)
	u[x] = r
	return r
}

func (u unionFind) union(a, b string) {
	ra, rb := u.find(a), u.find(b)
	if ra == rb {
		return
	}
	if rb < ra {
		ra, rb = rb, ra
	}
	u[ra], u[rb] = ra, ra
}

// component is one predicate identity component.
type component struct {
	rep     string
	members []string // sorted
	claims  []string // ids of the identity claims that join it
}

// predicateComponents joins predicates by their same-as claims: the
// certain ones only, or every claim that is not dead.
func (w *World) predicateComponents(certainOnly bool) []component {
	u := unionFind{}
	claims := map[string][]string{}
	var joined []string
	for _, e := range w.ix.predSameAs {
		ps := e.Object.(*objects.PredicateSameAs)
		g := w.ClaimGrade(e.ID)
		if ps.Left == ps.Right || g == datalog.Dead || certainOnly && g != datalog.Certain {
			continue
		}
		u.union(ps.Left, ps.Right)
		joined = append(joined, ps.Left, ps.Right, e.ID.String())
	}
	members := map[string]map[string]bool{}
	for i := 0; i < len(joined); i += 3 {
		for _, p := range joined[i : i+2] {
			r := u.find(p)
			if members[r] == nil {
				members[r] = map[string]bool{}
			}
			members[r][p] = true
		}
		r := u.find(joined[i])
		claims[r] = append(claims[r], joined[i+2])
	}
	var out []component
	for r, ms := range members {
		c := component{rep: r, claims: dedupe(claims[r])}
		for m := range ms {
			c.members = append(c.members, m)
		}
		sort.Strings(c.members)
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rep < out[j].rep })
	return out
}

// predicateReps maps each predicate in a certain identity component to the
// component's representative.
func (w *World) predicateReps() map[string]string {
	reps := map[string]string{}
	for _, c := range w.predicateComponents(true) {
		for _, m := range c.members {
			reps[m] = c.rep
		}
	}
	return reps
}

// entityReps is the union of entities under certain same-as claims (not
// self-merges, not the chronology spine), each class named by its
// smallest member: the true level of the identity closure.
func (w *World) entityReps() certainClasses {
	return certainClasses{w.closure()}
}

func dedupe(ss []string) []string {
	sort.Strings(ss)
	out := ss[:0]
	for i, s := range ss {
		if i == 0 || s != ss[i-1] {
			out = append(out, s)
		}
	}
	return out
}

func repOf(reps map[string]string, p string) string {
	if r, ok := reps[p]; ok {
		return r
	}
	return p
}
