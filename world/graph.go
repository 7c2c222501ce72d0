// This file holds Graph, the world as the data of a picture: entities,
// the binary atoms between them (authored or derived, each graded), and
// the attack edges between decisions with their grounded labels.

package world

import (
	"slices"
	"sort"
	"strings"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// Graph is a world drawn as nodes and edges. Every list is sorted, so the
// same world always gives the same graph.
type Graph struct {
	Entities  []GraphEntity
	Decisions []string // decision ids, the nodes of the attack edges
	Edges     []GraphEdge
	Attacks   []GraphAttack
}

// GraphEntity is one declared entity.
type GraphEntity struct {
	ID, Kind, Name string
	Grade          datalog.Grade // the grade of its declaration
}

// GraphEdge is one live binary atom whose arguments are both entities: a
// relation, or a fact whose value names an entity. Derived is set when no
// relation or fact of the scope states it (a rule or identity gave it).
type GraphEdge struct {
	Pred, From, To string
	Grade          datalog.Grade // certain or possible; dead atoms are left out
	Derived        bool
}

// GraphAttack is one attack edge about a claim, with the grounded labels
// of its two decisions in that claim's attack graph. The attack defeats
// its target when the attacker is labelled in.
type GraphAttack struct {
	Claim                      objects.ID
	Attacker, Target           string
	AttackerLabel, TargetLabel datalog.Label
}

// Defeats reports whether the attack defeats its target: the attacker is in.
func (a GraphAttack) Defeats() bool { return a.AttackerLabel == datalog.In }

// Graph returns the world as a graph.
func (w *World) Graph() Graph {
	var g Graph
	for id, e := range w.ix.entities.all() {
		g.Entities = append(g.Entities, GraphEntity{ID: id, Kind: string(e.object().Kind), Name: e.object().Name, Grade: w.ClaimGrade(e.id())})
	}
	sort.Slice(g.Entities, func(i, j int) bool { return g.Entities[i].ID < g.Entities[j].ID })
	for d := range w.ix.decisions {
		g.Decisions = append(g.Decisions, d)
	}
	sort.Strings(g.Decisions)
	g.Edges = w.graphEdges()
	g.Attacks = w.graphAttacks()
	return g
}

// graphEdges lists the live binary lore atoms between entities.
func (w *World) graphEdges() []GraphEdge {
	stated := map[[3]string]bool{}
	for e := range each(w.ix.relations) {
		r := e.Object.(*objects.Relation)
		stated[[3]string{r.Relation, r.From, r.To}] = true
	}
	for e := range each(w.ix.facts) {
		f := e.Object.(*objects.Fact)
		stated[[3]string{f.Key, f.Entity, f.Value}] = true
	}
	var out []GraphEdge
	for _, a := range w.grades() {
		if len(a.args) != 2 || a.grade == datalog.Dead {
			continue
		}
		if !w.ix.entities.has(a.args[0]) || !w.ix.entities.has(a.args[1]) {
			continue
		}
		out = append(out, GraphEdge{Pred: a.pred, From: a.args[0], To: a.args[1], Grade: a.grade,
			Derived: !stated[[3]string{a.pred, a.args[0], a.args[1]}]})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return strings.Compare(a.From+"\x00"+a.Pred+"\x00"+a.To, b.From+"\x00"+b.Pred+"\x00"+b.To) < 0
	})
	return out
}

// graphAttacks labels each claim's attack graph by the grounded semantics,
// as the valuation does, and lists its edges.
func (w *World) graphAttacks() []GraphAttack {
	var out []GraphAttack
	for c, edges := range w.attacks {
		var nodes []string
		for _, e := range edges {
			nodes = append(nodes, e[0], e[1])
		}
		slices.Sort(nodes)
		labels := datalog.Grounded(slices.Compact(nodes), edges)
		for _, e := range edges {
			out = append(out, GraphAttack{Claim: c, Attacker: e[0], Target: e[1], AttackerLabel: labels[e[0]], TargetLabel: labels[e[1]]})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Claim != b.Claim {
			return lessID(a.Claim, b.Claim)
		}
		if a.Attacker != b.Attacker {
			return a.Attacker < b.Attacker
		}
		return a.Target < b.Target
	})
	return out
}
