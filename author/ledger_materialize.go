// Materialize with a decision (DLI section 2): the facts of the staged
// layer are accepted under a recorded decision. Conferral is facts-only:
// a staged entity, fact, relation, event, before-fact or state with a
// proposed provenance is stamped — rewritten with the cited provenance
// {decisions: [decision], state: ratified}, so it is a new object with a
// new id — and one Ratify record names the stamped ids. Everything else
// is committed as staged (DL-0113).

package author

import (
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// Stamp is one staged claim a decision stamped: its staged id and the id
// of the object committed in its place.
type Stamp struct {
	From string `json:"from" desc:"the staged fact's object id (64 hex digits)"`
	To   string `json:"to" desc:"the object id committed in its place, citing the materialize decision"`
}

// stamping is the staged layer as a materialize with a decision commits
// it: the objects in staging order (the stamped ones in place of their
// originals), the stamps, and the Ratify record (nil when nothing was
// stamped).
type stamping struct {
	objs   []objects.Object
	stamps []Stamp
	ratify *objects.Ratify
}

// stamp rewrites the staged layer of ws under decision. It refuses a
// stamp that would lose a citation: a ledger record (attack, standing
// revision, ratify carriage) of the world names a claim to be stamped by
// its id, which stamping changes.
func stamp(ws *Workspace, decision string) (*stamping, error) {
	named := ledgerNamed(ws.world)
	out := &stamping{objs: make([]objects.Object, 0, len(ws.staged))}
	var ratified []objects.ID
	seen := map[objects.ID]bool{}
	cited := objects.Cited(objects.CitedRatified, decision) // one, shared by every stamped claim
	for _, st := range ws.staged {
		s, ok := stamped(st.obj, cited)
		if !ok {
			out.objs = append(out.objs, st.obj)
			continue
		}
		if rec, ok := named[st.id]; ok {
			return nil, fault.Errorf(fault.Refused, CodeStampCitation,
				"Staged claim %s is named by the %s record %s, which would lose it: stamping gives the claim a new id. Materialize without a decision first.", st.id, rec.Object.Type(), rec.ID).
				With("claim_id", st.id.String()).With("cited_by", rec.ID.String())
		}
		id, err := s.ID()
		if err != nil {
			return nil, objectError(err)
		}
		out.objs = append(out.objs, s)
		out.stamps = append(out.stamps, Stamp{From: st.id.String(), To: id.String()})
		if !seen[id] {
			seen[id] = true
			ratified = append(ratified, id)
		}
	}
	if len(ratified) > 0 {
		out.ratify = &objects.Ratify{Decision: decision, Claims: ratified}
	}
	return out, nil
}

// stamped is the object a fact-like claim with a proposed provenance
// becomes under c, the decision's ratified citation (one pointer shared by
// every claim stamped); ok is false for every other object, which is
// committed as it is: a claim with its own citations keeps them, carriage
// (rules, identity, declarations) keeps its embedded provenance and stays
// as it reads, questions and their options are not claims of the decision.
func stamped(o objects.Object, c *objects.Provenance) (objects.Object, bool) {
	p, ok := objects.ProvenanceOf(o)
	if !ok || p.Kind != objects.ProvenanceProposed {
		return nil, false
	}
	switch x := o.(type) {
	case *objects.Entity:
		y := *x
		y.Provenance = c
		return &y, true
	case *objects.Fact:
		y := *x
		y.Provenance = c
		return &y, true
	case *objects.Relation:
		y := *x
		y.Provenance = c
		return &y, true
	case *objects.Event:
		y := *x
		y.Provenance = c
		return &y, true
	case *objects.Before:
		y := *x
		y.Provenance = c
		return &y, true
	case *objects.State:
		y := *x
		y.Provenance = c
		return &y, true
	}
	return nil, false
}

// ledgerNamed maps each claim id that a ledger record of w names to one
// such record.
func ledgerNamed(w *world.World) map[objects.ID]world.Entry {
	out := map[objects.ID]world.Entry{}
	for _, e := range w.LedgerRecords() {
		switch x := e.Object.(type) {
		case *objects.Attack:
			out[x.Claim] = e
		case *objects.Standing:
			out[x.Claim] = e
		case *objects.Ratify:
			for _, c := range x.Claims {
				out[c] = e
			}
		}
	}
	return out
}

// checkStamped stamps the staged layer under decision and checks the
// stamped layer over the base: stamping can make claims certain, and a
// certain claim can break a functional dependency that a possible one did
// not, so its error findings refuse the materialize as the staged
// layer's would.
func (s *Service) checkStamped(ws *Workspace, decision, movedTo string) (*stamping, error) {
	st, err := stamp(ws, decision)
	if err != nil {
		return nil, err
	}
	add := st.objs
	if st.ratify != nil {
		add = append(add[:len(add):len(add)], st.ratify)
	}
	nw, err := ws.baseWorld.Stage(add, nil)
	if err != nil {
		return nil, err
	}
	var b []world.Finding
	for _, f := range nw.Findings() {
		if f.Severity == world.SeverityError {
			b = append(b, f)
		}
	}
	if len(b) > 0 {
		return nil, blockedError(ws, b, movedTo)
	}
	return st, nil
}
