// The call graph: which scripts write, computed fields that would write,
// and recursion — direct, mutual, or across stored modules.

package check

import (
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

// components returns each node's strongly connected component, by
// Tarjan's algorithm.
func (g *graph) components() map[string]int {
	n := len(g.names)
	index, low := make([]int, n), make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	comp := make(map[string]int, n)
	var stack []int
	next, ncomp := 0, 0
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range g.succ[v] {
			if index[w] < 0 {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[g.names[w]] = ncomp
				if w == v {
					break
				}
			}
			ncomp++
		}
	}
	for v := 0; v < n; v++ {
		if index[v] < 0 {
			visit(v)
		}
	}
	return comp
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
			if a, ok := k.Attr(attr); ok {
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
	for changed := true; changed; {
		changed = false
		for _, d := range c.defOrder {
			if c.writes[d.node] {
				continue
			}
			for _, e := range c.edges[d.node] {
				if c.nodeWrites(e.to) {
					c.writes[d.node], changed = true, true
					break
				}
			}
		}
	}
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

// recursion reports every local node on a call-graph cycle.
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
	comp := g.components()
	for _, d := range c.defOrder {
		for _, e := range c.edges[d.node] {
			if ci, ok := comp[e.to]; !ok || ci != comp[d.node] {
				continue
			}
			path := c.cyclePath(g, comp, e.to, d.node)
			c.errorf(e.pos, "recursion: %s — DKE Python has no recursion, direct, mutual or across modules, so that every program terminates; iterate a finite collection with `%s` instead",
				strings.Join(append([]string{c.display(d.node)}, path...), " → "), syntax.ForFix(c.lang, diag.VarPlaceholder))
			break
		}
	}
}

// cyclePath returns the shortest path from from to to within one
// component, as display names.
func (c *checker) cyclePath(g *graph, comp map[string]int, from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 && prev[to] == "" && from != to {
		n := queue[0]
		queue = queue[1:]
		succ := append([]string(nil), c.successors(n)...)
		sort.Strings(succ)
		for _, s := range succ {
			if _, ok := prev[s]; !ok && comp[s] == comp[from] {
				prev[s] = n
				queue = append(queue, s)
			}
		}
	}
	var path []string
	for n := to; n != ""; n = prev[n] {
		path = append([]string{c.display(n)}, path...)
		if n == from {
			break
		}
	}
	return path
}
