// This file names the parts of each declaration type in source order: the
// order in which the parser records their offsets. The two must agree;
// TestSpans checks every part of every type against the source.

package dli

import "github.com/deloreis/deloreis/objects"

// partPaths returns the paths of the parts of o, in source order.
func partPaths(o objects.Object) []string {
	var w pathWalk
	switch x := o.(type) {
	case *objects.Entity:
		w.add("kind", "id", "name")
		w.prov(x.Provenance)
	case *objects.Fact:
		w.add("entity", "key", "value")
		w.prov(x.Provenance)
	case *objects.Relation:
		w.add("relation", "from", "to")
		w.prov(x.Provenance)
	case *objects.Event:
		w.add("id", "era")
		w.prov(x.Provenance)
	case *objects.Before:
		w.add("earlier", "later")
		w.prov(x.Provenance)
	case *objects.SameAs:
		w.add("left", "right")
		w.prov(x.Provenance)
	case *objects.PredicateSameAs:
		w.add("left", "right")
		w.prov(x.Provenance)
	case *objects.Question:
		w.add("id", "prompt")
		w.options(x.Options)
	case *objects.Hypothesis:
		w.add("id", "statement")
	case *objects.Rule:
		w.rule(x)
	case *objects.Functional:
		w.add("pred")
		w.prov(x.Provenance)
	case *objects.Inertial:
		w.add("pred")
		w.prov(x.Provenance)
	case *objects.State:
		w.state(x)
	case *objects.Decision:
		w.add("id")
		if x.Rationale != "" {
			w.add("rationale")
		}
		if x.Provenance != nil {
			w.prov(x.Provenance)
		}
	case *objects.Attack:
		w.add("attacker", "target", "claim")
	case *objects.Standing:
		w.add("claim", "standing", "decision")
	case *objects.Ratify:
		w.add("decision")
		for i := range x.Claims {
			w.add(index("claims", i))
		}
	default:
		w.language(o) // language.go
	}
	return w.paths
}

// pathWalk collects part paths.
type pathWalk struct {
	paths []string
}

// add appends paths.
func (w *pathWalk) add(paths ...string) {
	w.paths = append(w.paths, paths...)
}

// prov adds the parts of a provenance clause, when there is one.
func (w *pathWalk) prov(p *objects.Provenance) {
	if p.IsZero() {
		return
	}
	w.add("provenance", "provenance.kind")
	switch p.Kind {
	case objects.ProvenanceProposed:
		w.add("provenance.origin")
	case objects.ProvenanceHypothesis:
		w.add("provenance.hyp")
	default:
		for i := range p.Decisions {
			w.add(index("provenance.decisions", i))
		}
		w.add("provenance.state")
	}
}

// options adds the parts of a question's option lines.
func (w *pathWalk) options(opts []objects.Option) {
	for i := range opts {
		o := index("options", i)
		w.add(o, o+".id", o+".label")
		if a := opts[i].Implies; a != nil {
			w.add(o+".implies", o+".implies.pred")
			for j := range a.Args {
				w.add(index(o+".implies.args", j))
			}
		}
	}
}

// rule adds the parts of a rule: its name, head and body literals.
func (w *pathWalk) rule(x *objects.Rule) {
	w.add("name")
	w.atom("head", &x.Head)
	for i := range x.Body {
		l := index("body", i)
		w.add(l)
		w.atom(l+".atom", &x.Body[i].Atom)
	}
	w.prov(x.Provenance)
}

// atom adds the parts of an atom at path at.
func (w *pathWalk) atom(at string, a *objects.Atom) {
	w.add(at, at+".pred")
	for j := range a.Args {
		w.add(index(at+".args", j))
	}
}

// state adds the parts of a state: its fact head and anchors.
func (w *pathWalk) state(x *objects.State) {
	w.add("entity", "key", "value")
	if x.Since != "" {
		w.add("since")
	}
	if x.Until != "" {
		w.add("until")
	}
	w.prov(x.Provenance)
}
