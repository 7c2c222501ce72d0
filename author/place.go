// Placing findings: each finding of a checked file is reported at the
// declaration it cites and, where the finding names the part at fault (an
// unknown entity, an unrecorded decision, an unbound variable, a control
// character), at that part's token.

package author

import (
	"fmt"
	"slices"
	"sort"

	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// Placed is a finding and where it is reported.
type Placed struct {
	Pos     dli.Pos
	Finding world.Finding
}

// PlaceAll places the findings of a document, in source order (findings
// at one position keep their order). A document with no findings never
// pays for the locator's index.
func PlaceAll(doc *dli.Document, fs []world.Finding) []Placed {
	if len(fs) == 0 {
		return []Placed{}
	}
	return placeEach(NewPlacer(doc).Place, fs)
}

// placeEach places each finding with place, in source order.
func placeEach(place func(world.Finding) dli.Pos, fs []world.Finding) []Placed {
	ps := make([]Placed, len(fs))
	for i, f := range fs {
		ps[i] = Placed{place(f), f}
	}
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Pos.Line != ps[j].Pos.Line {
			return ps[i].Pos.Line < ps[j].Pos.Line
		}
		return ps[i].Pos.Col < ps[j].Pos.Col
	})
	return ps
}

// Placer places the findings of one document; its index is built once.
type Placer struct {
	doc *dli.Document
	loc *dli.Locator
}

// NewPlacer indexes a document for placing its findings.
func NewPlacer(doc *dli.Document) *Placer { return &Placer{doc: doc, loc: dli.NewLocator(doc)} }

// Place returns where a finding is reported: the token it concerns, else
// the cited declaration, else the scope line, else 1:1.
func (p *Placer) Place(f world.Finding) dli.Pos {
	first := (*dli.Decl)(nil)
	for _, c := range f.Citations {
		if d, ok := p.loc.Decl(c); ok && (first == nil || d.Pos.Line < first.Pos.Line) {
			first = d
		}
	}
	if first == nil {
		if name, ok := f.Data["rule"].(string); ok {
			first, _ = p.loc.Declared(objects.TypeRule, name)
		}
	}
	return placeAt(first, 0, f, p.doc.ScopePos)
}

// placeAt is where f is reported when it concerns the declaration d (nil:
// none), whose lines are shift lines above where they are in the file (a
// declaration parsed from a part of it): its part at fault, else d, else
// the scope line at scopePos, else 1:1.
func placeAt(d *dli.Decl, shift int, f world.Finding, scopePos dli.Pos) dli.Pos {
	if d != nil {
		at := d.Pos
		if path := partAtFault(d.Object, f); path != "" {
			if s, ok := d.Find(path); ok && s.IsValid() {
				at = s.Start
			}
		}
		at.Line += shift
		return at
	}
	if scopePos.IsValid() {
		return scopePos
	}
	return dli.Pos{Line: 1, Col: 1}
}

// partAtFault names the part of o (a path of dli.Decl.Find) that a
// finding concerns, or "" for the declaration as a whole.
func partAtFault(o objects.Object, f world.Finding) string {
	str := func(k string) string { s, _ := f.Data[k].(string); return s }
	switch f.Code {
	case world.CodeEntityUnknown:
		return fieldHolding(o, str("entity"))
	case world.CodeNotAnEra:
		return fieldHolding(o, str("era"))
	case world.CodeCitationUnknownDecision:
		return decisionPart(o, str("decision"))
	case world.CodeCitationUnknownClaim:
		return claimPart(o, str("claim"))
	case world.CodeFieldControlChar:
		return str("field")
	case world.CodeTemporalUnsupported, world.CodeSortMismatch:
		if s, ok := o.(*objects.SameAs); ok && f.Code == world.CodeTemporalUnsupported {
			if v, ok := f.Data["endpoint"].(string); ok && v == s.Right {
				return "right"
			}
			return "left"
		}
	case world.CodeRuleUnboundVariable:
		return variablePart(o, str("variable"))
	}
	return ""
}

// fieldHolding names the reference field of o that holds id.
func fieldHolding(o objects.Object, id string) string {
	var fields [][2]string
	switch x := o.(type) {
	case *objects.Fact:
		fields = [][2]string{{"entity", x.Entity}}
	case *objects.Relation:
		fields = [][2]string{{"from", x.From}, {"to", x.To}}
	case *objects.Event:
		fields = [][2]string{{"era", x.Era}}
	case *objects.Before:
		fields = [][2]string{{"earlier", x.Earlier}, {"later", x.Later}}
	case *objects.State:
		fields = [][2]string{{"entity", x.Entity}, {"since", x.Since}, {"until", x.Until}}
	case *objects.SameAs:
		fields = [][2]string{{"left", x.Left}, {"right", x.Right}}
	}
	for _, kv := range fields {
		if kv[1] == id {
			return kv[0]
		}
	}
	return ""
}

// decisionPart names the part of o that names decision d.
func decisionPart(o objects.Object, d string) string {
	switch x := o.(type) {
	case *objects.Attack:
		if x.Attacker == d {
			return "attacker"
		}
		return "target"
	case *objects.Standing, *objects.Ratify:
		return "decision"
	}
	if p, ok := objects.ProvenanceOf(o); ok {
		if i := slices.Index(p.Decisions, d); i >= 0 {
			return fmt.Sprintf("provenance.decisions[%d]", i)
		}
	}
	return ""
}

// claimPart names the part of o that names claim id.
func claimPart(o objects.Object, id string) string {
	switch x := o.(type) {
	case *objects.Attack, *objects.Standing:
		return "claim"
	case *objects.Ratify:
		for i, c := range x.Claims {
			if c.String() == id {
				return fmt.Sprintf("claims[%d]", i)
			}
		}
	}
	return ""
}

// variablePart names the first head argument of a rule that is variable v.
func variablePart(o objects.Object, v string) string {
	r, ok := o.(*objects.Rule)
	if !ok || v == "" {
		return ""
	}
	for i, t := range r.Head.Args {
		if t.Var == v {
			return fmt.Sprintf("head.args[%d]", i)
		}
	}
	for i, l := range r.Body {
		if l.Negated {
			for j, t := range l.Atom.Args {
				if t.Var == v {
					return fmt.Sprintf("body[%d].atom.args[%d]", i, j)
				}
			}
		}
	}
	return ""
}
