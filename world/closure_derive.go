// Deriving a staged world's identity closure from its parent's. Staging
// same-as claims under an unchanged valuation only adds links or raises a
// link's support, and Kleene evaluation of a sum is monotone, so every
// union-find only gains unions: the child copies the parent's flat arrays
// (a few arrays of int32 and strings indexed by node, no maps of strings)
// and unions the new links into them. Anything else (a decision, an
// attack, a supposition, a discard, a new entity or event) builds the
// closure again (DL-0100).
//
// Grades need the per-predicate class keys, which are keyed by class
// labels. A derived closure keeps those of its origin (the last closure
// built from scratch) and, per level, the origin key fragments each
// changed class is made of: a closed atom is certain exactly when some
// choice of one fragment per argument is a key of the origin's true
// atoms (DL-0101).

package world

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// The levels of the closure: structural (every link), true links, and
// links that are not false.
const (
	lvlStruct = iota
	lvlTrue
	lvlPossible
	levels
)

// The arrays a derived closure copies on first write, after the levels'.
const (
	ownEdges = levels + iota
	ownAdj
	ownMembers
	ownTmin
	owned
)

// Bounds of derivation: past them the closure is built from scratch.
const (
	maxDeriveDepth  = 64      // staged worlds back to one whose closure was read
	maxDeriveParts  = 1 << 12 // key fragments (and added nodes) carried from the origin
	maxGradeProduct = 1 << 10 // fragment combinations one derived grade may try
)

// inheritClosure notes that nw, staged from w with fresh, may derive its
// closure from w's: when fresh holds only same-as claims (no valuation
// move, no new names, no discard).
func (nw *World) inheritClosure(w *World, fresh []Entry) {
	for _, e := range fresh {
		if _, ok := e.Object.(*objects.SameAs); !ok {
			return
		}
	}
	depth := 0
	if !w.idBuilt.Load() {
		depth = w.idDepth + 1
	}
	if depth > maxDeriveDepth {
		return // a long chain of unread worlds: let them go
	}
	nw.idParent, nw.idLinks, nw.idDepth = w, fresh, depth
}

// deriveClosure is the parent's closure with the new links unioned in; nil
// when it must be built from scratch.
func (w *World) deriveClosure() *idClosure {
	p := w.idParent.closure()
	if len(w.idLinks) == 0 {
		return p // same program, same valuation, same links
	}
	c := p.clone()
	for _, e := range w.idLinks {
		args, ok := w.sameAsAtom(e)
		if !ok {
			continue
		}
		if !c.addLink(args[0], args[1], w.support(e.ID, e.Object.(*objects.SameAs).Provenance), w.val) {
			return nil
		}
		if c.nparts > maxDeriveParts || len(c.extra) > maxDeriveParts {
			return nil
		}
	}
	return c
}

// clone copies p's arrays for a derived closure; maps of strings are
// shared (node) or small (extra, parts).
func (p *idClosure) clone() *idClosure {
	c := &idClosure{node: p.node, origin: p.origin, nparts: p.nparts, aggs: map[string]*predAgg{}}
	if c.origin == nil {
		c.origin = p
	}
	c.extra = maps.Clone(p.extra)
	if c.extra == nil {
		c.extra = map[string]int32{}
	}
	for l := range c.parts {
		c.parts[l] = maps.Clone(p.parts[l])
		if c.parts[l] == nil {
			c.parts[l] = map[int32][]string{}
		}
	}
	// Shared until first written (own): a link inside a class writes no
	// labels, one between linked entities no names. Clipped, so that an
	// append copies.
	c.names, c.edges, c.adj = slices.Clip(p.names), slices.Clip(p.edges), slices.Clip(p.adj)
	c.members, c.tmin = slices.Clip(p.members), slices.Clip(p.tmin)
	c.scls, c.tcls, c.ncls = slices.Clip(p.scls), slices.Clip(p.tcls), slices.Clip(p.ncls)
	return c
}

// own returns s as c may write it: a copy the first time (flag unset).
func own[T any](s []T, flag *bool) []T {
	if *flag {
		return s
	}
	*flag = true
	return slices.Clone(s)
}

// ownLabels makes the label array of a level c's own to write.
func (c *idClosure) ownLabels(l int) []int32 {
	switch l {
	case lvlStruct:
		c.scls = own(c.scls, &c.owns[l])
	case lvlTrue:
		c.tcls = own(c.tcls, &c.owns[l])
	default:
		c.ncls = own(c.ncls, &c.owns[l])
	}
	return c.labels(l)
}

// labels is the class label array of a level.
func (c *idClosure) labels(l int) []int32 {
	switch l {
	case lvlStruct:
		return c.scls
	case lvlTrue:
		return c.tcls
	}
	return c.ncls
}

// nodeFor is x's node, added as a class of its own at every level when x
// was not linked.
func (c *idClosure) nodeFor(x string) int32 {
	if n, ok := c.lookup(x); ok {
		return n
	}
	n := int32(len(c.names))
	c.extra[x] = n
	c.names = append(c.names, x)
	c.adj = append(c.adj, nil)
	k := int32(len(c.members))
	c.members = append(c.members, []int32{n})
	c.scls, c.tcls, c.ncls = append(c.scls, k), append(c.tcls, n), append(c.ncls, n)
	c.tmin = append(c.tmin, x)
	frag := []string{"=" + x} // as the origin keys an unlinked argument
	c.parts[lvlStruct][k], c.parts[lvlTrue][n], c.parts[lvlPossible][n] = frag, frag, frag
	c.nparts += 3
	return n
}

// edgeBetween is the edge joining a and b, or -1 (searching the shorter
// adjacency list).
func (c *idClosure) edgeBetween(a, b int32) int32 {
	from, to := a, b
	if len(c.adj[b]) < len(c.adj[a]) {
		from, to = b, a
	}
	for _, i := range c.adj[from] {
		if e := c.edges[i]; e.a == to || e.b == to {
			return i
		}
	}
	return -1
}

// addLink adds a link of support s between a and b (or adds s to the
// link they have) and unions their classes at every level its truth
// reaches. false when a truth fell (it cannot, by monotonicity; the
// guard keeps the closure exact if it ever did).
func (c *idClosure) addLink(a, b string, s datalog.Poly, val valuation) bool {
	na, nb := c.nodeFor(a), c.nodeFor(b)
	if nb < na {
		na, nb = nb, na
	}
	old := datalog.False
	if i := c.edgeBetween(na, nb); i >= 0 {
		c.edges = own(c.edges, &c.owns[ownEdges])
		old = c.edges[i].support.Eval(val)
		c.edges[i].support = c.edges[i].support.Add(s)
		s = c.edges[i].support
	} else {
		i = int32(len(c.edges))
		c.edges = append(c.edges, idEdge{a: na, b: nb, support: s})
		c.adj = own(c.adj, &c.owns[ownAdj])
		c.adj[na] = append(slices.Clip(c.adj[na]), i)
		c.adj[nb] = append(slices.Clip(c.adj[nb]), i)
	}
	t := s.Eval(val)
	if old == datalog.True && t != datalog.True || old != datalog.False && t == datalog.False {
		return false
	}
	c.union(lvlStruct, na, nb)
	if t == datalog.True {
		c.union(lvlTrue, na, nb)
	}
	if t != datalog.False {
		c.union(lvlPossible, na, nb)
	}
	return true
}

// union joins the classes of x and y at a level: the labels, the
// structural members (sorted by name) or the true classes' smallest
// members, and the key fragments of the joined class.
func (c *idClosure) union(l int, x, y int32) {
	keep, drop := c.labels(l)[x], c.labels(l)[y]
	if keep == drop {
		return
	}
	cls := c.ownLabels(l)
	if l == lvlStruct {
		c.members = own(c.members, &c.owns[ownMembers])
		if len(c.members[keep]) < len(c.members[drop]) {
			keep, drop = drop, keep
		}
		c.members[keep] = c.mergeByName(c.members[keep], c.members[drop])
		for _, m := range c.members[drop] {
			cls[m] = keep
		}
		c.members[drop] = nil
	} else {
		for i, k := range cls {
			if k == drop {
				cls[i] = keep
			}
		}
		if l == lvlTrue && c.tmin[drop] < c.tmin[keep] {
			c.tmin = own(c.tmin, &c.owns[ownTmin])
			c.tmin[keep] = c.tmin[drop]
		}
	}
	fk, fd := c.frags(l, keep), c.frags(l, drop)
	c.nparts -= len(c.parts[l][keep]) + len(c.parts[l][drop])
	delete(c.parts[l], drop)
	c.parts[l][keep] = append(slices.Clip(fk), fd...)
	c.nparts += len(fk) + len(fd)
}

// mergeByName merges two member lists sorted by name into a new one.
func (c *idClosure) mergeByName(xs, ys []int32) []int32 {
	out := make([]int32, 0, len(xs)+len(ys))
	for len(xs) > 0 && len(ys) > 0 {
		if c.names[ys[0]] < c.names[xs[0]] {
			out, ys = append(out, ys[0]), ys[1:]
		} else {
			out, xs = append(out, xs[0]), xs[1:]
		}
	}
	return append(append(out, xs...), ys...)
}

// frags are the origin key fragments of a class: those noted, or the
// class's own label when it is the origin's unchanged.
func (c *idClosure) frags(l int, label int32) []string {
	if f, ok := c.parts[l][label]; ok {
		return f
	}
	return []string{"#" + strconv.Itoa(int(label))}
}

// derivedGrade grades a closed atom through the origin's aggregate; ok is
// false when the closure is not derived, when the program carries
// identity (a rule may then derive pred's atoms from carried ones, so the
// origin's atoms may not be the world's), or past the product bound.
func (w *World) derivedGrade(c *idClosure, pred string, args []string) (datalog.Grade, bool) {
	if c.origin == nil || w.identityActive {
		return datalog.Dead, false
	}
	a := c.origin.aggOf(pred, w.model, w.val)
	for _, lv := range []struct {
		l     int
		keys  map[string]bool
		grade datalog.Grade
	}{{lvlTrue, a.certain, datalog.Certain}, {lvlPossible, a.possible, datalog.Possible}} {
		hit, ok := c.anyKey(lv.l, args, lv.keys)
		if !ok {
			return datalog.Dead, false
		}
		if hit {
			return lv.grade, true
		}
	}
	return datalog.Dead, true
}

// anyKey reports whether some choice of one origin fragment per argument
// of args (at level l) is in keys; ok is false past the product bound.
func (c *idClosure) anyKey(l int, args []string, keys map[string]bool) (hit, ok bool) {
	cands := make([][]string, len(args))
	n := 1
	for i, x := range args {
		if node, linked := c.lookup(x); linked {
			cands[i] = c.frags(l, c.labels(l)[node])
		} else {
			cands[i] = []string{"=" + x}
		}
		if n *= len(cands[i]); n > maxGradeProduct {
			return false, false
		}
	}
	if len(args) == 0 {
		return keys[""], true
	}
	product(cands, func(parts []string) bool {
		hit = keys[strings.Join(parts, "\x00")]
		return !hit
	})
	return hit, true
}

// mustNode is the node of an entity known to be linked.
func (c *idClosure) mustNode(x string) int32 {
	n, _ := c.lookup(x)
	return n
}
