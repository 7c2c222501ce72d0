// Reading closed atoms: grades, query answers, explanations and the
// graded atom set of a predicate that identity closes at read time (see
// closure.go). Grades are exact; supports are assembled on demand and
// bounded like the engine's (MaxMonomials).

package world

import (
	"slices"
	"strings"

	"github.com/deloreis/deloreis/datalog"
)

// Bounds of assembled supports: the stored atoms of one group a support
// sums over, the monomials of one identity pair's support, and the links
// the search for them may relax. Past any of them the support is cut (flagged
// truncated); grades never depend on it.
const (
	maxClosedTerms = 64      // per query answer
	maxWhyTerms    = 1 << 12 // per explanation
	maxLinkPaths   = 64
	maxPathSteps   = 1 << 16
)

// pairVar is the pair literal that stands for "a is b" in a query
// answer's support: its truth is connectivity (idClosure.pairTruth), and
// Why expands it to link paths.
func pairVar(a, b string) string {
	if b < a {
		a, b = b, a
	}
	return "@id:" + a + "|" + b
}

// Valuation is the world's valuation of provenance variables, pair
// literals included (their truth is connectivity): under it, every
// support the world returns evaluates to the grade it reports, unless it
// is flagged truncated.
func (w *World) Valuation() datalog.Valuation {
	return datalog.ValuationFunc(func(v string) datalog.Truth {
		if rest, ok := strings.CutPrefix(v, "@id:"); ok {
			if a, b, ok := strings.Cut(rest, "|"); ok {
				return w.closure().pairTruth(a, b)
			}
		}
		return w.val.Truth(v)
	})
}

// closedQuery answers q over the closed atoms of its predicate.
func (w *World) closedQuery(q datalog.Atom) []datalog.Answer {
	out := []datalog.Answer{}
	a := w.agg(q.Pred)
	if len(a.facts) == 0 || len(a.facts[0].Args) != len(q.Args) {
		return out
	}
	filter := map[int]string{}
	for i, t := range q.Args {
		if t.Var == "" {
			filter[i] = t.Const
		}
	}
	w.eachClosed(q.Pred, filter, func(args []string, group []int32) bool {
		b, ok := bindAnswer(q, args)
		if ok {
			out = append(out, datalog.Answer{Args: args, Bindings: b, Grade: w.closedGrade(q.Pred, args),
				Support: w.pairSupport(a, group, args)})
		}
		return true
	})
	slices.SortFunc(out, func(x, y datalog.Answer) int { return slices.Compare(x.Args, y.Args) })
	return out
}

// bindAnswer matches args against q's terms: constants must agree, a
// repeated variable takes one value, "_" binds nothing.
func bindAnswer(q datalog.Atom, args []string) (map[string]string, bool) {
	b := map[string]string{}
	for i, t := range q.Args {
		switch {
		case t.Var == "":
			if args[i] != t.Const {
				return nil, false
			}
		case t.Var == datalog.Anon:
		default:
			if prev, ok := b[t.Var]; ok && prev != args[i] {
				return nil, false
			}
			b[t.Var] = args[i]
		}
	}
	return b, true
}

// pairSupport is the support of a closed atom with identity pairs as
// pair literals: the sum over its group's stored atoms of their support
// times a pair literal per position where the stored atom differs.
func (w *World) pairSupport(a *predAgg, group []int32, args []string) datalog.Poly {
	terms := make([]datalog.Poly, 0, min(len(group), maxClosedTerms))
	for i, z := range group {
		if i == maxClosedTerms {
			return datalog.Sum(terms...).Truncate()
		}
		term := a.facts[z].Support
		for j, zj := range a.facts[z].Args {
			if zj != args[j] {
				term = term.Mul(datalog.VarPoly(pairVar(zj, args[j])))
			}
		}
		terms = append(terms, term)
	}
	return datalog.Sum(terms...)
}

// closedWhy explains a closed atom with its identity pairs expanded to
// link paths.
func (w *World) closedWhy(pred string, args []string) datalog.Why {
	a, c := w.agg(pred), w.closure()
	group, ok := a.groups[c.key(args, c.scls)]
	if !ok || len(a.facts[group[0]].Args) != len(args) {
		return datalog.Explain(pred, args, datalog.Poly{}, datalog.Dead, w.val)
	}
	labels := make([]map[int32]datalog.Poly, len(args))
	cut := false
	for j, x := range args {
		var complete bool
		labels[j], complete = c.linkSupports(x)
		cut = cut || !complete
	}
	terms := make([]datalog.Poly, 0, min(len(group), maxWhyTerms))
	for i, z := range group {
		if i == maxWhyTerms {
			cut = true
			break
		}
		term := a.facts[z].Support
		for j, zj := range a.facts[z].Args {
			if zj == args[j] {
				continue
			}
			p, ok := labels[j][c.mustNode(zj)]
			if !ok {
				p = c.shortestPath(c.mustNode(args[j]), c.mustNode(zj))
			}
			term = term.Mul(p)
		}
		terms = append(terms, term)
	}
	sup := datalog.Sum(terms...)
	if cut {
		sup = sup.Truncate()
	}
	return datalog.Explain(pred, args, sup, w.closedGrade(pred, args), w.val)
}

// linkSupports is, for each node linked to x, the support of "it is x":
// the sum over link paths of the product of the links' supports, which
// absorption keeps to the minimal sets of provenance literals. It is the
// least fixpoint of label(x) = 1, label(m) = Σ label(n)·link(n, m),
// reached by a work list (the sum over walks absorbs to the sum over
// simple paths). complete is false when the work passed its bound; the
// labels found are then lower bounds, and some nodes may have none.
func (c *idClosure) linkSupports(x string) (labels map[int32]datalog.Poly, complete bool) {
	n, ok := c.lookup(x)
	if !ok {
		return nil, true
	}
	labels = map[int32]datalog.Poly{n: datalog.One()}
	queue := []int32{n}
	queued := map[int32]bool{n: true}
	steps := 0
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		queued[u] = false
		for _, ei := range c.adj[u] {
			if steps++; steps > maxPathSteps {
				return labels, false
			}
			e := c.edges[ei]
			v := e.a
			if v == u {
				v = e.b
			}
			old, had := labels[v]
			next := old.Add(labels[u].Mul(e.support))
			if had && next.Equal(old) {
				continue
			}
			if len(next.Monomials()) > maxLinkPaths {
				return labels, false
			}
			labels[v] = next
			if !queued[v] {
				queued[v] = true
				queue = append(queue, v)
			}
		}
	}
	return labels, true
}

// shortestPath is the product of the link supports along one shortest
// path from a to b (breadth first, in the order of the adjacency lists).
func (c *idClosure) shortestPath(a, b int32) datalog.Poly {
	via := map[int32]int32{a: -1} // node → edge it was reached by
	queue := []int32{a}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, ei := range c.adj[n] {
			e := c.edges[ei]
			m := e.a
			if m == n {
				m = e.b
			}
			if _, seen := via[m]; !seen {
				via[m] = ei
				queue = append(queue, m)
			}
		}
		if _, done := via[b]; done {
			break
		}
	}
	p := datalog.One()
	for n := b; n != a; {
		ei, ok := via[n]
		if !ok {
			return datalog.Poly{}
		}
		e := c.edges[ei]
		p = p.Mul(e.support)
		if e.a == n {
			n = e.b
		} else {
			n = e.a
		}
	}
	return p
}
