// The call graph: which scripts write, computed fields that would write,
// and recursion — direct, mutual, or across stored modules.

package check

import (
	"fmt"
	"sort"
	"strings"

	"github.com/deloreis/deloreis/dke/diag"
	"github.com/deloreis/deloreis/dke/syntax"
)

// graph is a directed graph of named nodes.
type graph struct {
	ids   map[string]int
	names []string
	succ  [][]int
}

func newGraph() *graph { return &graph{ids: map[string]int{}} }

func (g *graph) node(n string) int {
	if i, ok := g.ids[n]; ok {
		return i
	}
	g.ids[n] = len(g.names)
	g.names = append(g.names, n)
	g.succ = append(g.succ, nil)
	return g.ids[n]
}

func (g *graph) add(from, to string) {
	f, t := g.node(from), g.node(to)
	g.succ[f] = append(g.succ[f], t)
}

// components returns each node's strongly connected component by name.
func (g *graph) components() map[string]int {
	comp, _ := g.sccs()
	out := make(map[string]int, len(comp))
	for v, ci := range comp {
		out[g.names[v]] = ci
	}
	return out
}

// sccs returns each node's strongly connected component and how many
// there are, by Tarjan's algorithm run with an explicit stack, so that a
// cycle of any length costs linear time and no goroutine stack.
func (g *graph) sccs() ([]int, int) {
	n := len(g.names)
	index, low, comp := make([]int, n), make([]int, n), make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i], comp[i] = -1, -1
	}
	type frame struct{ v, next int } // next: the next successor to visit
	var stack []int
	var calls []frame
	counter, ncomp := 0, 0
	push := func(v int) {
		index[v], low[v] = counter, counter
		counter++
		stack = append(stack, v)
		onStack[v] = true
		calls = append(calls, frame{v: v})
	}
	for root := 0; root < n; root++ {
		if index[root] >= 0 {
			continue
		}
		push(root)
		for len(calls) > 0 {
			f := &calls[len(calls)-1]
			v := f.v
			if f.next < len(g.succ[v]) {
				w := g.succ[v][f.next]
				f.next++
				if index[w] < 0 {
					push(w)
				} else if onStack[w] {
					low[v] = min(low[v], index[w])
				}
				continue
			}
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				u := calls[len(calls)-1].v
				low[u] = min(low[u], low[v])
			}
			if low[v] != index[v] {
				continue
			}
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[w] = ncomp
				if w == v {
					break
				}
			}
			ncomp++
		}
	}
	return comp, ncomp
}

// isLocal reports whether a call-graph node belongs to this module.
func (c *checker) isLocal(n string) bool {
	if c.local == nil {
		c.local = map[string]bool{}
		for _, d := range c.defOrder {
			c.local[d.node] = true
		}
	}
	return c.local[n]
}

// successors returns the nodes n calls: recorded for this module's nodes,
// from the store for the others.
func (c *checker) successors(n string) []string {
	if c.isLocal(n) {
		return edgeTargets(c.edges[n])
	}
	if strings.HasPrefix(n, "@") {
		kind, attr, _ := strings.Cut(n[1:], ".")
		if k, ok := c.env.Kind(kind); ok && k.Module != c.module {
			if a, ok := c.attr(k, attr); ok {
				return a.Calls
			}
		}
		return nil
	}
	mod, name, _ := strings.Cut(n, ".")
	if mod == c.module {
		return nil
	}
	if m, ok := c.env.Module(mod); ok {
		if s, ok := m.Script(name); ok {
			return s.Calls
		}
	}
	return nil
}

// nodeWrites reports whether a node writes to the store.
func (c *checker) nodeWrites(n string) bool {
	if c.isLocal(n) {
		return c.writes[n]
	}
	mod, name, _ := strings.Cut(n, ".")
	if m, ok := c.env.Module(mod); ok && mod != c.module {
		if s, ok := m.Script(name); ok {
			return s.Writes
		}
	}
	return false
}

func (c *checker) finishGraph() {
	c.propagateWrites()
	for _, d := range c.defOrder {
		if d.role != computedDef {
			continue
		}
		for _, e := range c.edges[d.node] {
			if !strings.HasPrefix(e.to, "@") && c.nodeWrites(e.to) {
				c.errorf(e.pos, "a computed field cannot write: %s writes to the store", c.display(e.to))
			}
		}
	}
	c.recursion()
}

// propagateWrites marks every local node that calls, directly or
// through other calls, a node that writes: a walk back along the calls
// from the writers, so each call is followed once.
func (c *checker) propagateWrites() {
	callers := map[string][]string{}
	for _, d := range c.defOrder {
		for _, e := range c.edges[d.node] {
			if c.isLocal(e.to) {
				callers[e.to] = append(callers[e.to], d.node)
			} else if c.nodeWrites(e.to) {
				c.writes[d.node] = true
			}
		}
	}
	var work []string
	for _, d := range c.defOrder {
		if c.writes[d.node] {
			work = append(work, d.node)
		}
	}
	for len(work) > 0 {
		n := work[len(work)-1]
		work = work[:len(work)-1]
		for _, p := range callers[n] {
			if !c.writes[p] {
				c.writes[p] = true
				work = append(work, p)
			}
		}
	}
}

// display renders a node for a message.
func (c *checker) display(n string) string {
	if strings.HasPrefix(n, "@") {
		return n[1:]
	}
	if mod, name, _ := strings.Cut(n, "."); mod == c.module {
		return name
	}
	return n
}

// recursion reports each call-graph cycle through this module once: one
// diagnostic per strongly connected component, at the first call of its
// first member (in source order) that stays within it.
func (c *checker) recursion() {
	g := newGraph()
	var queue []string
	seen := map[string]bool{}
	for _, d := range c.defOrder {
		if d.role != ruleDef && d.role != constraintDef && !seen[d.node] {
			seen[d.node] = true
			queue = append(queue, d.node)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		g.node(n)
		for _, s := range c.successors(n) {
			g.add(n, s)
			if !seen[s] {
				seen[s] = true
				queue = append(queue, s)
			}
		}
	}
	comp, ncomp := g.sccs()
	order := append([]*defDecl(nil), c.defOrder...) // in source order
	sort.SliceStable(order, func(i, j int) bool { return order[i].stmt.Def.Off < order[j].stmt.Def.Off })
	members := make([][]int, ncomp) // in source order, then discovery order
	listed := make([]bool, len(g.names))
	add := func(v int) {
		if !listed[v] {
			listed[v] = true
			members[comp[v]] = append(members[comp[v]], v)
		}
	}
	for _, d := range order {
		if v, ok := g.ids[d.node]; ok {
			add(v)
		}
	}
	for v := range g.names {
		add(v)
	}
	reported := make([]bool, ncomp)
	for _, d := range order {
		v, ok := g.ids[d.node]
		if !ok || reported[comp[v]] {
			continue
		}
		for _, e := range c.edges[d.node] {
			if w := g.ids[e.to]; comp[w] == comp[v] {
				reported[comp[v]] = true
				c.errorf(e.pos, "recursion: %s — DKE Python has no recursion, direct, mutual or across modules, so that every program terminates; iterate a finite collection with `%s` instead",
					c.cycleText(g, g.cycle(v, w, comp), members[comp[v]]), syntax.ForFix(c.lang, diag.VarPlaceholder))
				break
			}
		}
	}
}

// shownNames bounds how many names a recursion diagnostic spells out.
const shownNames = 8

// cycleText renders a cycle, v → … → v, and the other members of its
// component, naming at most shownNames of each.
func (c *checker) cycleText(g *graph, cycle, members []int) string {
	var b strings.Builder
	for i, v := range cycle[:len(cycle)-1] {
		if i == shownNames {
			fmt.Fprintf(&b, " → … (%d more)", len(cycle)-1-i)
			break
		}
		if i > 0 {
			b.WriteString(" → ")
		}
		b.WriteString(c.display(g.names[v]))
	}
	b.WriteString(" → " + c.display(g.names[cycle[0]]))
	on := make(map[int]bool, len(cycle))
	for _, v := range cycle {
		on[v] = true
	}
	var rest []string
	extra := 0
	for _, v := range members {
		if on[v] {
			continue
		}
		if extra++; len(rest) < shownNames {
			rest = append(rest, c.display(g.names[v]))
		}
	}
	if extra > 0 {
		b.WriteString("; also in this cycle of calls: " + strings.Join(rest, ", "))
		if extra > len(rest) {
			fmt.Fprintf(&b, " and %d more", extra-len(rest))
		}
	}
	return b.String()
}

// cycle returns the shortest cycle v → w → … → v within v's component,
// by breadth-first search from w.
func (g *graph) cycle(v, w int, comp []int) []int {
	prev := map[int]int{w: w}
	for queue := []int{w}; len(queue) > 0; queue = queue[1:] {
		if _, ok := prev[v]; ok {
			break
		}
		for _, s := range g.succ[queue[0]] {
			if _, ok := prev[s]; !ok && comp[s] == comp[v] {
				prev[s] = queue[0]
				queue = append(queue, s)
			}
		}
	}
	back := []int{v} // v, …, w: the path from w to v, backwards
	for n := v; n != w; {
		n = prev[n]
		back = append(back, n)
	}
	path := []int{v}
	for i := len(back) - 1; i >= 0; i-- {
		path = append(path, back[i])
	}
	return path
}
