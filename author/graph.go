// The graph of a scope's world as `deloreis graph` draws it: the whole
// world, or the neighbourhood of one entity (GraphOptions.Focus), N hops
// through relations and entity-valued facts, and through the attacks and
// defeats between the decisions that rule on a claim about an entity
// (DL-0473).

package author

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/deloreis/deloreis/base/spell"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// GraphOptions choose the world GraphSelect draws, and the part of it.
type GraphOptions struct {
	Rev   string // as the store names it; "" is its HEAD
	Scope string // "" when the commit holds only one
	// Focus, when set, is an entity of the scope: only the nodes within
	// Depth hops of it are drawn, with the edges between them.
	Focus string
	Depth int
}

// UnknownEntityError says that a graph's focus names no entity of the
// world drawn; Near are the entity ids spelt most like it.
type UnknownEntityError struct {
	Entity, Scope, Rev string
	Near               []string
}

func (e *UnknownEntityError) Error() string {
	msg := fmt.Sprintf("no entity %q in scope %s at %s", e.Entity, e.Scope, e.Rev)
	if len(e.Near) > 0 {
		msg += " (did you mean " + strings.Join(e.Near, ", ") + "?)"
	}
	return msg
}

// GraphSelect draws the world of a scope at a revision, or the part of it
// around o.Focus (a *UnknownEntityError when the world has no such
// entity). The scope must be one the commit holds, and may be left out
// when it holds only one (else a *ScopeChoiceError). The compile is
// reported to ctx's progress listener.
func (s *Service) GraphSelect(ctx context.Context, o GraphOptions) (GraphResult, error) {
	g, w, rev, err := s.graphAt(ctx, o)
	if err != nil || o.Focus == "" {
		return g, err
	}
	if !slices.ContainsFunc(g.Entities, func(e GraphEntity) bool { return e.ID == o.Focus }) {
		return GraphResult{}, &UnknownEntityError{Entity: o.Focus, Scope: g.Scope, Rev: rev, Near: nearEntities(g.Entities, o.Focus)}
	}
	return neighbourhood(g, claimEntities(w, g.Attacks), o.Focus, o.Depth), nil
}

// GraphNeighbourhoods draws, from one compile and one graph of the world
// GraphSelect would draw (o.Focus is not read), the part of it within
// o.Depth hops of each of foci that the world holds, in the order of
// foci; a focus that names no entity of it is left out. Several foci cost
// one graph, not one each (the reviewer's desk draws the neighbourhood of
// what a workspace stages).
func (s *Service) GraphNeighbourhoods(ctx context.Context, o GraphOptions, foci []string) ([]GraphResult, error) {
	o.Focus = ""
	g, w, _, err := s.graphAt(ctx, o)
	if err != nil {
		return nil, err
	}
	held := make(map[string]bool, len(g.Entities))
	for _, e := range g.Entities {
		held[e.ID] = true
	}
	var about map[string][]string
	var out []GraphResult
	for _, f := range foci {
		if !held[f] {
			continue
		}
		if about == nil {
			about = claimEntities(w, g.Attacks)
		}
		out = append(out, neighbourhood(g, about, f, o.Depth))
	}
	return out, nil
}

// graphAt draws all of the world of o's scope at o.Rev;
// rev is the revision as an error names it.
func (s *Service) graphAt(ctx context.Context, o GraphOptions) (g GraphResult, w *world.World, rev string, err error) {
	st, err := s.needStore()
	if err != nil {
		return GraphResult{}, nil, "", err
	}
	sn, err := st.Snapshot(o.Rev)
	if err != nil {
		return GraphResult{}, nil, "", err
	}
	scopes, err := sn.Scopes()
	if err != nil {
		return GraphResult{}, nil, "", err
	}
	scope := o.Scope
	switch {
	case scope != "" && !slices.Contains(scopes, scope):
		return GraphResult{}, nil, "", fault.Errorf(fault.Refused, CodeUnknownScope, "unknown scope %s at %s (scopes: %s)", scope, o.Rev, strings.Join(scopes, ", ")).With("scope", scope)
	case scope == "" && len(scopes) == 1:
		scope = scopes[0]
	case scope == "":
		return GraphResult{}, nil, "", &ScopeChoiceError{Rev: o.Rev, Scopes: scopes}
	}
	if o.Depth < 0 {
		return GraphResult{}, nil, "", fault.Errorf(fault.Invalid, fault.CodeBadParams, "depth %d is negative", o.Depth).With("field", "depth")
	}
	// The base world from the cache (a world file, an earlier compile):
	// the desk redraws a neighbourhood at every visit, and a compile of
	// a large world takes seconds. The cache reports a compile itself.
	w, err = s.baseWorldReporting(ctx, sn.Commit(), scope)
	if err != nil {
		return GraphResult{}, nil, "", err
	}
	return graphOf(w, sn.Commit(), scope), w, displayRev(o.Rev, sn.Commit()), nil
}

// displayRev is the revision as the user named it, or the commit.
func displayRev(rev string, h lorestore.Hash) string {
	if rev != "" {
		return rev
	}
	return h.String()[:12]
}

// nearEntities are up to three entity ids within a third of the length
// of id in edits, nearest first.
func nearEntities(es []GraphEntity, id string) []string {
	type near struct {
		id string
		d  int
	}
	var ns []near
	for _, e := range es {
		if d := spell.Distance(e.ID, id); d <= max(1, len(id)/3) {
			ns = append(ns, near{e.ID, d})
		}
	}
	sort.SliceStable(ns, func(i, j int) bool { return ns[i].d < ns[j].d })
	var out []string
	for _, n := range ns[:min(3, len(ns))] {
		out = append(out, n.id)
	}
	return out
}

// claimEntities maps each claim an attack is about to the entities the
// claim names: the decisions ruling on it are that near those entities.
func claimEntities(w *world.World, attacks []GraphAttack) map[string][]string {
	out := map[string][]string{}
	for _, a := range attacks {
		if _, ok := out[a.Claim]; ok {
			continue
		}
		out[a.Claim] = nil
		id, err := objects.ParseID(a.Claim)
		if err != nil {
			continue
		}
		e, ok := w.Lookup(id)
		if !ok {
			continue
		}
		switch o := e.Object.(type) {
		case *objects.Entity:
			out[a.Claim] = []string{o.Ident}
		case *objects.Fact:
			out[a.Claim] = []string{o.Entity, o.Value}
		case *objects.Relation:
			out[a.Claim] = []string{o.From, o.To}
		case *objects.Event:
			out[a.Claim] = []string{o.Era}
		}
	}
	return out
}

// neighbourhood is the part of g within depth hops of the entity focus,
// the hops taken either way along relation edges, attacks, and the link
// between a decision and the entities of the claim it rules on; every
// edge between two nodes of the part is kept.
func neighbourhood(g GraphResult, about map[string][]string, focus string, depth int) GraphResult {
	adj := map[string][]string{}
	link := func(a, b string) {
		adj[a] = append(adj[a], b)
		adj[b] = append(adj[b], a)
	}
	for _, e := range g.Edges {
		link("e:"+e.From, "e:"+e.To)
	}
	for _, a := range g.Attacks {
		link("d:"+a.Attacker, "d:"+a.Target)
		for _, ent := range about[a.Claim] {
			link("d:"+a.Attacker, "e:"+ent)
			link("d:"+a.Target, "e:"+ent)
		}
	}
	in := map[string]bool{"e:" + focus: true}
	frontier := []string{"e:" + focus}
	for hop := 0; hop < depth && len(frontier) > 0; hop++ {
		var next []string
		for _, n := range frontier {
			for _, m := range adj[n] {
				if !in[m] {
					in[m] = true
					next = append(next, m)
				}
			}
		}
		frontier = next
	}
	out := GraphResult{Scope: g.Scope, Commit: g.Commit, Entities: []GraphEntity{}, Decisions: []string{}, Edges: []GraphEdge{}, Attacks: []GraphAttack{}}
	for _, e := range g.Entities {
		if in["e:"+e.ID] {
			out.Entities = append(out.Entities, e)
		}
	}
	for _, d := range g.Decisions {
		if in["d:"+d] {
			out.Decisions = append(out.Decisions, d)
		}
	}
	for _, e := range g.Edges {
		if in["e:"+e.From] && in["e:"+e.To] {
			out.Edges = append(out.Edges, e)
		}
	}
	for _, a := range g.Attacks {
		if in["d:"+a.Attacker] && in["d:"+a.Target] {
			out.Attacks = append(out.Attacks, a)
		}
	}
	return out
}
