// This file holds the seeded generators of random programs used by the
// property tests and the fuzz target: genProgram draws small programs of
// random rules; genShaped builds programs of the shapes where a semi-naive
// evaluator goes wrong — long chains, deep, linear, non-linear and mutual
// recursion, negation over recursive strata, and many strata stacked.

package datalog

import "fmt"

// chooser draws small numbers: a *rand.Rand, or fuzz input.
type chooser interface {
	IntN(n int) int
}

// genConfig shapes generated programs: base predicates e0 (binary) and e1
// (unary) hold most facts; rule heads are p0…p{idb-1} (even ones binary).
type genConfig struct {
	idb, consts, vars int
	facts, rules      int
	negation          bool
}

var genDefault = genConfig{idb: 4, consts: 3, vars: 5, facts: 10, rules: 6, negation: true}

type genPred struct {
	name  string
	arity int
	level int // 0 for base predicates, 1+i for p_i
}

func genPreds(c genConfig) []genPred {
	ps := []genPred{{"e0", 2, 0}, {"e1", 1, 0}}
	for i := range c.idb {
		ps = append(ps, genPred{fmt.Sprintf("p%d", i), 2 - i%2, 1 + i})
	}
	return ps
}

func genPoly(r chooser, nvars int) Poly {
	x := func() Poly { return VarPoly(fmt.Sprintf("x%d", r.IntN(nvars))) }
	switch r.IntN(6) {
	case 0, 1:
		return One()
	case 2, 3:
		return x()
	case 4:
		return x().Mul(x())
	}
	return x().Add(x())
}

// genProgram draws a program. Rules are range-restricted; negated literals
// mostly read lower predicates, so most programs stratify and some do not.
func genProgram(r chooser, c genConfig) nProgram {
	var np nProgram
	ps := genPreds(c)
	constant := func() string { return fmt.Sprintf("c%d", r.IntN(c.consts)) }
	for range 1 + r.IntN(c.facts) {
		p := ps[r.IntN(2)]
		if r.IntN(5) == 0 {
			p = ps[r.IntN(len(ps))]
		}
		args := make([]string, p.arity)
		for i := range args {
			args[i] = constant()
		}
		sup := genPoly(r, c.vars)
		if sup.IsOne() && r.IntN(2) == 0 {
			sup = VarPoly(fmt.Sprintf("x%d", r.IntN(c.vars)))
		}
		np.facts = append(np.facts, nFact{p.name, args, sup})
	}
	for i := range r.IntN(c.rules + 1) {
		np.rules = append(np.rules, genRule(r, c, ps, fmt.Sprintf("r%d", i), constant))
	}
	return np
}

func genRule(r chooser, c genConfig, ps []genPred, name string, constant func() string) Rule {
	vars := []string{"X", "Y", "Z"}
	rule := Rule{Name: name, Support: genPoly(r, c.vars)}
	var bound []string
	term := func(fromBound bool) Term {
		if r.IntN(6) == 0 {
			return C(constant())
		}
		if fromBound {
			if len(bound) == 0 {
				return C(constant())
			}
			return V(bound[r.IntN(len(bound))])
		}
		return V(vars[r.IntN(len(vars))])
	}
	atom := func(p genPred, fromBound bool) Atom {
		a := Atom{Pred: p.name}
		for range p.arity {
			a.Args = append(a.Args, term(fromBound))
		}
		return a
	}
	head := ps[2+r.IntN(c.idb)]
	for range 1 + r.IntN(2) {
		p := ps[r.IntN(len(ps))]
		if r.IntN(2) == 0 {
			p = ps[r.IntN(2)]
		}
		a := atom(p, false)
		for _, t := range a.Args {
			if t.Var != "" {
				bound = append(bound, t.Var)
			}
		}
		rule.Body = append(rule.Body, Literal{Atom: a})
	}
	if c.negation && r.IntN(2) == 0 {
		p := ps[r.IntN(len(ps))]
		if r.IntN(4) > 0 {
			p = ps[r.IntN(head.level+1)] // a base predicate or a lower head
			if p.level >= head.level {
				p = ps[r.IntN(2)]
			}
		}
		rule.Body = append(rule.Body, Literal{Atom: atom(p, true), Negated: true})
	}
	rule.Head = atom(head, true)
	return rule
}

// shapeConfig bounds shaped programs.
type shapeConfig struct {
	nodes  int // a graph of 2…nodes+1 constants
	layers int // 1…layers stacked recursive definitions
	vars   int // support variables x0…x{vars-1}
}

// shapeSmall keeps programs within the naive oracle's reach; shapeLarge
// derives thousands of atoms.
var (
	shapeSmall = shapeConfig{nodes: 10, layers: 4, vars: 2}
	shapeLarge = shapeConfig{nodes: 60, layers: 3, vars: 3}
)

// shapes are the recursive definitions a layer of genShaped may use.
const (
	shapeLeft      = iota // t(X,Z) :- t(X,Y), e(Y,Z)
	shapeRight            // t(X,Z) :- e(X,Y), t(Y,Z)
	shapeNonLinear        // t(X,Z) :- t(X,Y), t(Y,Z)
	shapeMutual           // a and b reach each other through e
	shapeNegation         // t(X,Y) :- node(X), node(Y), not below(X,Y)
	shapeCopy             // t(X,Y) :- below(X,Y): one more stratum
	shapeDeep             // a chain of copies, each recursive on itself
	numShapes
)

// genShaped draws a graph of edges e0 (a chain through every node, plus a
// few more edges that may close cycles) and nodes e1, and stacks layers of
// recursive definitions, each over the one below (the first over e0).
// The top layer's predicate is the one every shape ends in.
func genShaped(r chooser, c shapeConfig) nProgram {
	var np nProgram
	n := 2 + r.IntN(c.nodes)
	node := func(i int) string { return fmt.Sprintf("c%d", i) }
	sup := func() Poly {
		if c.vars == 0 || r.IntN(4) > 0 {
			return One()
		}
		return VarPoly(fmt.Sprintf("x%d", r.IntN(c.vars)))
	}
	order := make([]int, n) // the chain visits the nodes in a drawn order
	for i := range order {
		order[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		order[i], order[j] = order[j], order[i]
	}
	for i := 0; i+1 < n; i++ {
		np.facts = append(np.facts, nFact{"e0", []string{node(order[i]), node(order[i+1])}, sup()})
	}
	for range r.IntN(3) {
		np.facts = append(np.facts, nFact{"e0", []string{node(r.IntN(n)), node(r.IntN(n))}, One()})
	}
	for i := range n {
		if r.IntN(8) > 0 {
			np.facts = append(np.facts, nFact{"e1", []string{node(i)}, One()})
		}
	}
	below := "e0"
	for l := range 1 + r.IntN(c.layers) {
		below = genLayer(r, &np, l, below, r.IntN(numShapes), sup)
	}
	return np
}

// genLayer adds the rules of layer l of shape sh over the binary predicate
// below and returns the layer's predicate.
func genLayer(r chooser, np *nProgram, l int, below string, sh int, sup func() Poly) string {
	t := fmt.Sprintf("t%d", l)
	x, y, z := V("X"), V("Y"), V("Z")
	at := func(p string, a, b Term) Atom { return Atom{Pred: p, Args: []Term{a, b}} }
	pos := func(a Atom) Literal { return Literal{Atom: a} }
	rule := func(head Atom, body ...Literal) {
		np.rules = append(np.rules, Rule{Name: fmt.Sprintf("l%d_%d", l, len(np.rules)), Head: head, Body: body, Support: sup()})
	}
	base := func(p string) { rule(at(p, x, y), pos(at(below, x, y))) }
	switch sh {
	case shapeLeft:
		base(t)
		rule(at(t, x, z), pos(at(t, x, y)), pos(at("e0", y, z)))
	case shapeRight:
		base(t)
		rule(at(t, x, z), pos(at("e0", x, y)), pos(at(t, y, z)))
	case shapeNonLinear:
		base(t)
		rule(at(t, x, z), pos(at(t, x, y)), pos(at(t, y, z)))
	case shapeMutual:
		a, b := fmt.Sprintf("a%d", l), fmt.Sprintf("b%d", l)
		base(a)
		rule(at(b, x, z), pos(at(a, x, y)), pos(at("e0", y, z)))
		rule(at(a, x, z), pos(at(b, x, y)), pos(at("e0", y, z)))
		rule(at(t, x, y), pos(at(a, x, y)))
		rule(at(t, x, y), pos(at(b, x, y)))
	case shapeNegation:
		e1 := func(v Term) Literal { return pos(Atom{Pred: "e1", Args: []Term{v}}) }
		rule(at(t, x, y), e1(x), e1(y), Literal{Atom: at(below, x, y), Negated: true})
	case shapeCopy:
		base(t)
	case shapeDeep:
		prev := below
		for i := range 2 + r.IntN(4) {
			p := fmt.Sprintf("d%d_%d", l, i)
			rule(at(p, x, y), pos(at(prev, x, y)))
			rule(at(p, x, z), pos(at(p, x, y)), pos(at(prev, y, z)))
			prev = p
		}
		rule(at(t, x, y), pos(at(prev, x, y)))
	}
	return t
}
