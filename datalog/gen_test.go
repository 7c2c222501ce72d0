// This file holds the seeded generator of small random programs used by the
// property tests and the fuzz target.

package datalog

import (
	"fmt"
	"math/rand/v2"
)

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

func genPoly(r *rand.Rand, nvars int) Poly {
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
func genProgram(r *rand.Rand, c genConfig) nProgram {
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

func genRule(r *rand.Rand, c genConfig, ps []genPred, name string, constant func() string) Rule {
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
