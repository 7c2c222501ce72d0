// Identity closed at read time. The program carries a fact across entity
// identity only for the predicates a rule reads (the rules must join over
// identity); every other predicate keeps its atoms at their authored
// members, and reading one closes it: the closed atom p(x…) is the sum,
// over the stored atoms p(z…) with each z_i linked to x_i, of the stored
// support times, per position, the support of "z_i is x_i" — the sum over
// link paths of the product of link supports. Its grade needs no
// polynomial: Kleene evaluation is a lattice homomorphism, so "z is x"
// is true exactly when z and x are connected through links that are
// true, false exactly when they are not connected through links that are
// not false, and unknown otherwise (DL-0040). Two union-finds per
// valuation and two key sets per predicate grade any closed atom in
// O(arity); explanations expand link paths on demand, bounded.

package world

import (
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// idEdge is one linked pair of entities, its support the sum of the
// supports of the same-as claims between them (either way round).
type idEdge struct {
	a, b    int32
	support datalog.Poly
}

// idClosure is a world's entity identity as read-time closure needs it.
// The structural part (nodes, edges, classes) is the union of every
// lowered same-as link, whatever its grade: it decides which closed atoms
// exist. The true and non-false classes decide their grades.
type idClosure struct {
	node    map[string]int32 // linked entity → node (shared with derived closures, never written after build)
	extra   map[string]int32 // nodes a derived closure added (closure_derive.go)
	names   []string         // node → entity
	edges   []idEdge
	adj     [][]int32 // node → edges
	scls    []int32   // node → structural class
	members [][]int32 // structural class → nodes, by name
	tcls    []int32   // node → class over the links that are true
	tmin    []string  // true class → its smallest member (by root node)
	ncls    []int32   // node → class over the links that are not false

	// A closure derived from another (closure_derive.go) grades through
	// the aggregates of origin, the last one built from scratch: parts
	// names, per level, the origin key fragments of each class that
	// differs from origin's.
	origin *idClosure
	parts  [levels]map[int32][]string
	nparts int         // fragments in parts, for the bound
	owns   [owned]bool // which shared arrays a derived closure has copied

	mu   sync.Mutex
	aggs map[string]*predAgg
}

// lookup is the node of an entity, if it is linked.
func (c *idClosure) lookup(s string) (int32, bool) {
	if n, ok := c.node[s]; ok {
		return n, true
	}
	n, ok := c.extra[s]
	return n, ok
}

// predAgg is what grading a predicate's closed atoms needs: its stored
// atoms with their truths, grouped by the structural classes of their
// arguments, and the class keys of the true and of the non-false ones.
type predAgg struct {
	facts    []datalog.GroundFact
	truth    []datalog.Truth
	groups   map[string][]int32 // structural key → facts
	order    []string           // the group keys, sorted
	certain  map[string]bool    // true-class keys of the true atoms
	possible map[string]bool    // non-false-class keys of the non-false atoms
}

// closure is the world's identity closure, built on first use.
func (w *World) closure() *idClosure {
	w.closureOnce.Do(func() {
		if w.idParent != nil {
			w.idc = w.deriveClosure()
			w.idParent, w.idLinks = nil, nil // let the parent go
		}
		if w.idc == nil {
			w.idc = w.buildClosure()
		}
		w.idBuilt.Store(true)
	})
	return w.idc
}

func (w *World) buildClosure() *idClosure {
	c := &idClosure{node: map[string]int32{}, aggs: map[string]*predAgg{}}
	nodeOf := func(s string) int32 {
		n, ok := c.node[s]
		if !ok {
			n = int32(len(c.names))
			c.node[s] = n
			c.names = append(c.names, s)
			c.adj = append(c.adj, nil)
		}
		return n
	}
	pairs := map[[2]int32]int32{}
	for e := range each(w.ix.sameAs) {
		args, ok := w.sameAsAtom(e)
		if !ok {
			continue
		}
		a, b := nodeOf(args[0]), nodeOf(args[1])
		if b < a {
			a, b = b, a
		}
		s := w.support(e.ID, e.Object.(*objects.SameAs).Provenance)
		if i, ok := pairs[[2]int32{a, b}]; ok {
			c.edges[i].support = c.edges[i].support.Add(s)
			continue
		}
		i := int32(len(c.edges))
		pairs[[2]int32{a, b}] = i
		c.edges = append(c.edges, idEdge{a: a, b: b, support: s})
		c.adj[a], c.adj[b] = append(c.adj[a], i), append(c.adj[b], i)
	}
	truths := make([]datalog.Truth, len(c.edges))
	for i, e := range c.edges {
		truths[i] = e.support.Eval(w.val)
	}
	c.scls = c.classes(func(int) bool { return true })
	c.tcls = c.classes(func(i int) bool { return truths[i] == datalog.True })
	c.ncls = c.classes(func(i int) bool { return truths[i] != datalog.False })
	c.tmin = make([]string, len(c.names))
	for n, r := range c.tcls {
		if c.tmin[r] == "" || c.names[n] < c.tmin[r] {
			c.tmin[r] = c.names[n]
		}
	}
	c.members = make([][]int32, 0)
	idx := map[int32]int{}
	for n, k := range c.scls {
		j, ok := idx[k]
		if !ok {
			j = len(c.members)
			idx[k] = j
			c.members = append(c.members, nil)
		}
		c.members[j] = append(c.members[j], int32(n))
	}
	for n, k := range c.scls {
		c.scls[n] = int32(idx[k])
	}
	for _, ms := range c.members {
		sort.Slice(ms, func(i, j int) bool { return c.names[ms[i]] < c.names[ms[j]] })
	}
	return c
}

// classes labels each node with the root of its class under the edges
// keep lets through (union by size, path halving).
func (c *idClosure) classes(keep func(int) bool) []int32 {
	parent := make([]int32, len(c.names))
	size := make([]int32, len(c.names))
	for i := range parent {
		parent[i], size[i] = int32(i), 1
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for i, e := range c.edges {
		if !keep(i) {
			continue
		}
		ra, rb := find(e.a), find(e.b)
		if ra == rb {
			continue
		}
		if size[ra] < size[rb] {
			ra, rb = rb, ra
		}
		parent[rb] = ra
		size[ra] += size[rb]
	}
	for i := range parent {
		parent[i] = find(int32(i))
	}
	return parent
}

// certainClasses names each entity's class under the certain links by
// its smallest member, as the functional and fluent checks compare
// subjects and values.
type certainClasses struct{ c *idClosure }

func (e certainClasses) find(x string) string {
	if n, ok := e.c.lookup(x); ok {
		return e.c.tmin[e.c.tcls[n]]
	}
	return x
}

// key renders args by their classes under cls (an unlinked argument by
// itself), so that two argument lists have one key exactly when they are
// connected position by position.
func (c *idClosure) key(args []string, cls []int32) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(0)
		}
		if n, ok := c.lookup(a); ok {
			b.WriteByte('#')
			b.WriteString(strconv.Itoa(int(cls[n])))
		} else {
			b.WriteByte('=')
			b.WriteString(a)
		}
	}
	return b.String()
}

// pairTruth is the truth of "a is b": true, unknown or false by
// connectivity at the true and the non-false level.
func (c *idClosure) pairTruth(a, b string) datalog.Truth {
	if a == b {
		return datalog.True
	}
	na, oka := c.lookup(a)
	nb, okb := c.lookup(b)
	switch {
	case !oka || !okb || c.scls[na] != c.scls[nb]:
		return datalog.False
	case c.tcls[na] == c.tcls[nb]:
		return datalog.True
	case c.ncls[na] == c.ncls[nb]:
		return datalog.Unknown
	}
	return datalog.False
}

// readClosed reports whether reading pred closes it over identity here:
// identity carries it, the program does not, and there are links.
func (w *World) readClosed(pred string) bool {
	if w.legacy || !carried(pred) || w.identityActive && w.carry[pred] > 0 {
		return false
	}
	if _, noted := w.arity.get(pred); noted {
		if w.arity.of(pred) == 0 {
			return false
		}
	} else if !w.identityReachesPred(pred) {
		return false
	}
	return len(w.closure().edges) > 0
}

// identityReachesPred reports whether a predicate the arity table does not
// know (one that only predicate identities name) takes its atoms from a
// predicate identity carries: its atoms are then those of a closed one.
func (w *World) identityReachesPred(pred string) bool {
	seen := map[string]bool{pred: true}
	queue := []string{pred}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if _, noted := w.arity.get(p); noted {
			if w.identityCarries(p) {
				return true
			}
			continue
		}
		for _, e := range w.ix.predSameAs {
			ps := e.Object.(*objects.PredicateSameAs)
			for _, q := range [][2]string{{ps.Left, ps.Right}, {ps.Right, ps.Left}} {
				if q[0] == p && !seen[q[1]] {
					seen[q[1]] = true
					queue = append(queue, q[1])
				}
			}
		}
	}
	return false
}

// agg is the aggregate of pred under the world's own closure, built on
// first use.
func (w *World) agg(pred string) *predAgg {
	return w.closure().aggOf(pred, w.model, w.val)
}

// aggOf is the aggregate of pred's atoms in model, graded under val and
// keyed by c's classes; c keeps it. The model and valuation must be the
// same on every call for one closure (a derived closure's origin is
// asked only while its worlds agree on both: closure_derive.go).
func (c *idClosure) aggOf(pred string, model *datalog.Model, val valuation) *predAgg {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.aggs[pred]; ok {
		return a
	}
	a := &predAgg{facts: model.Facts(pred), groups: map[string][]int32{}, certain: map[string]bool{}, possible: map[string]bool{}}
	g := model.Grader(val)
	a.truth = make([]datalog.Truth, len(a.facts))
	for i, f := range a.facts {
		t := g.Grade(pred, f.Args...).Truth()
		a.truth[i] = t
		k := c.key(f.Args, c.scls)
		if _, ok := a.groups[k]; !ok {
			a.order = append(a.order, k)
		}
		a.groups[k] = append(a.groups[k], int32(i))
		if t == datalog.True {
			a.certain[c.key(f.Args, c.tcls)] = true
		}
		if t != datalog.False {
			a.possible[c.key(f.Args, c.ncls)] = true
		}
	}
	sort.Strings(a.order)
	c.aggs[pred] = a
	return a
}

// closedGrade grades the closed atom pred(args).
func (w *World) closedGrade(pred string, args []string) datalog.Grade {
	c := w.closure()
	if g, ok := w.derivedGrade(c, pred, args); ok {
		return g
	}
	a := w.agg(pred)
	switch {
	case a.certain[c.key(args, c.tcls)]:
		return datalog.Certain
	case a.possible[c.key(args, c.ncls)]:
		return datalog.Possible
	}
	return datalog.Dead
}

// candidates lists, per position of a group's stored atom, the values a
// closed atom of the group takes there: the argument's structural class,
// or the argument alone when it is not linked.
func (c *idClosure) candidates(args []string) [][]string {
	out := make([][]string, len(args))
	for i, a := range args {
		n, ok := c.lookup(a)
		if !ok {
			out[i] = []string{a}
			continue
		}
		ms := c.members[c.scls[n]]
		out[i] = make([]string, len(ms))
		for j, m := range ms {
			out[i][j] = c.names[m]
		}
	}
	return out
}

// eachClosed calls f with every closed atom of pred, group by group;
// filter, when set, restricts position i to one value. f returns false to
// stop.
func (w *World) eachClosed(pred string, filter map[int]string, f func(args []string, group []int32) bool) {
	a, c := w.agg(pred), w.closure()
	for _, k := range a.order {
		group := a.groups[k]
		cands := c.candidates(a.facts[group[0]].Args)
		ok := true
		for i, v := range filter {
			if i >= len(cands) || !contains(cands[i], v) {
				ok = false
				break
			}
			cands[i] = []string{v}
		}
		if ok && !product(cands, func(args []string) bool { return f(args, group) }) {
			return
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// product calls f with every tuple of the candidate lists (f gets a fresh
// slice); it stops, returning false, when f does.
func product(cands [][]string, f func([]string) bool) bool {
	idx := make([]int, len(cands))
	for {
		args := make([]string, len(cands))
		for i, j := range idx {
			args[i] = cands[i][j]
		}
		if !f(args) {
			return false
		}
		i := len(idx) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(cands[i]) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return true
		}
	}
}
