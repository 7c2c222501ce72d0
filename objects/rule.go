// This file holds the rule — one datalog clause, head :- body — with its
// atoms, literals and terms. Validation here is structural only: range
// restriction and stratification are the reasoning engine's checks.

package objects

import "strconv"

// Term is a rule argument: exactly one of a variable, {"var":<id>}, or a
// constant, {"const":<free text>}. Both fields are non-empty strings, so
// the set one says which form a term has.
type Term struct {
	Var   string // a variable name (an id)
	Const string // a constant (non-empty free text)
}

// Var returns the variable term named name.
func Var(name string) Term { return Term{Var: name} }

// Const returns the constant term v.
func Const(v string) Term { return Term{Const: v} }

// IsVar reports whether t is a variable.
func (t Term) IsVar() bool { return t.Var != "" }

// Atom is a predicate applied to terms: {"args":[term…],"pred":<id>}. Args
// may be empty.
type Atom struct {
	Pred string
	Args []Term
}

// Literal is one body literal of a rule: {"atom":…,"negated":bool}. Negated
// is always encoded, false included, so the form is fixed.
type Literal struct {
	Atom    Atom
	Negated bool
}

// Rule declares one derivation rule (author.add_rule):
// {"body":[literal…],"head":atom,"name","provenance","type":"rule"}. The body
// is non-empty and keeps its order.
type Rule struct {
	Name       string // the rule name (an id)
	Head       Atom
	Body       []Literal
	Provenance *Provenance
}

// Type returns TypeRule.
func (*Rule) Type() Type { return TypeRule }

// Validate checks the structure of x: ids, terms, a non-empty body and the
// provenance. It does not check range restriction or stratification.
func (x *Rule) Validate() error {
	c := checker{typ: TypeRule}
	if len(x.Body) == 0 {
		c.add("body", CodeRequired, "body is required: a rule has at least one body literal")
	}
	for i := range x.Body {
		checkAtom(&c, &x.Body[i].Atom, i)
	}
	checkAtom(&c, &x.Head, -1)
	c.id("name", x.Name)
	x.Provenance.check(&c)
	return c.err()
}

// atomPath returns the path of field rest within the head (lit < 0) or the
// atom of body literal lit.
func atomPath(lit int, rest string) string {
	if lit < 0 {
		return "head" + rest
	}
	return "body[" + strconv.Itoa(lit) + "].atom" + rest
}

// checkAtom validates the head (lit < 0) or the atom of body literal lit.
func checkAtom(c *checker, a *Atom, lit int) {
	for j := range a.Args {
		t := &a.Args[j]
		arg := func() string { return atomPath(lit, ".args["+strconv.Itoa(j)+"]") }
		switch {
		case t.Var == "" && t.Const == "":
			p := arg()
			c.add(p, CodeRequired, p+" needs exactly one of var or const")
		case t.Var != "" && t.Const != "":
			p := arg() + ".const"
			c.add(p, CodeUnknown, p+" is not allowed beside var: a term is exactly one of var or const")
		case t.Var != "":
			c.idAt(t.Var, func() string { return arg() + ".var" })
		default:
			c.textAt(t.Const, func() string { return arg() + ".const" })
		}
	}
	c.idAt(a.Pred, func() string { return atomPath(lit, ".pred") })
}

// atom appends a validated atom.
func (e *enc) atom(a *Atom) {
	e.raw(`{"args":[`)
	for j := range a.Args {
		if j > 0 {
			e.raw(`,`)
		}
		if t := &a.Args[j]; t.Var != "" {
			e.raw(`{"var":`)
			e.str(t.Var)
		} else {
			e.raw(`{"const":`)
			e.str(t.Const)
		}
		e.raw(`}`)
	}
	e.raw(`],"pred":`)
	e.str(a.Pred)
	e.raw(`}`)
}

// AppendCanonical validates x and appends its canonical JSON to dst.
func (x *Rule) AppendCanonical(dst []byte) ([]byte, error) {
	if err := x.Validate(); err != nil {
		return dst, err
	}
	e := enc{b: dst}
	e.raw(`{"body":[`)
	for i := range x.Body {
		if i > 0 {
			e.raw(`,`)
		}
		e.raw(`{"atom":`)
		e.atom(&x.Body[i].Atom)
		if x.Body[i].Negated {
			e.raw(`,"negated":true}`)
		} else {
			e.raw(`,"negated":false}`)
		}
	}
	e.raw(`],"head":`)
	e.atom(&x.Head)
	e.raw(`,"name":`)
	e.str(x.Name)
	e.raw(`,"provenance":`)
	e.prov(x.Provenance)
	e.raw(`,"type":"rule"}`)
	return e.done(dst)
}

// ID returns the BLAKE3-256 of x's canonical bytes.
func (x *Rule) ID() (ID, error) { return idOf(x) }
