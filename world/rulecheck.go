// The pre-flight of author.add_rule (DLI section 3.13): the checks a rule
// must pass before it is staged at all, because a rule that fails them is
// refused whole rather than staged and blocked. Range restriction and the
// name are read off the rule and the world; the stratification pre-flight
// is a tentative Stage (the caller's), run only once these pass.

package world

import (
	"fmt"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// HasRule reports whether a rule of the world — committed or staged, in
// the program or left out of it — has the name.
func (w *World) HasRule(name string) bool { return w.ruleNamed(name) }

// PreflightRule runs the pre-staging checks of a candidate rule with claim
// id, in the order DLI section 3.13 gives: range restriction
// (rule.unbound-variable), then the name (rule.duplicate). It returns the
// finding of the first check that fails, ok false; ok true when both pass.
func (w *World) PreflightRule(id objects.ID, r *objects.Rule) (Finding, bool) {
	if v, where, bad := unboundVar(r); bad {
		f := newFinding(CodeRuleUnboundVariable,
			"Variable %s in %s of rule %s is bound by no positive body atom; add a positive body atom that binds %s, or use a constant.",
			v, where, r.Name, v)
		f.Citations = []string{id.String()}
		f.Data = map[string]any{"rule": r.Name, "variable": v}
		return f, false
	}
	if w.ruleNamed(r.Name) {
		f := newFinding(CodeRuleDuplicate, "A rule named %q is already in the world; rename the new rule.", r.Name)
		f.Citations = []string{id.String()}
		f.Data = map[string]any{"rule": r.Name}
		return f, false
	}
	return Finding{}, true
}

// unboundVar finds the first head variable, then the first variable of a
// negated literal, that no positive body atom binds — the engine's range
// restriction (datalog's rangeRestricted), read off the object so that it
// runs before anything is lowered. The anonymous variable is never bound.
func unboundVar(r *objects.Rule) (v, where string, bad bool) {
	bound := map[string]bool{}
	for _, l := range r.Body {
		if !l.Negated {
			for _, t := range l.Atom.Args {
				if t.Var != "" && t.Var != datalog.Anon {
					bound[t.Var] = true
				}
			}
		}
	}
	for _, t := range r.Head.Args {
		if t.Var != "" && !bound[t.Var] {
			return t.Var, "the head", true
		}
	}
	for _, l := range r.Body {
		if l.Negated {
			for _, t := range l.Atom.Args {
				if t.Var != "" && !bound[t.Var] {
					return t.Var, fmt.Sprintf("the negated literal not %s", l.Atom.Pred), true
				}
			}
		}
	}
	return "", "", false
}
