// Tests of Graph, the world as the data of a picture.

package world

import (
	"testing"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// TestGraph: entities, authored and derived edges between entities (dead
// ones left out), and attack edges with their grounded labels.
func TestGraph(t *testing.T) {
	father := fact("galahad", "father", "lancelot", cited("canon-1"))
	epithet := fact("galahad", "epithet", "pure", cited("canon-1"))
	serves := &objects.Relation{Relation: "serves", From: "galahad", To: "logres", Provenance: prop}
	rule := &objects.Rule{Name: "dwells", Head: objects.Atom{Pred: "dwells-in", Args: []objects.Term{{Var: "X"}, {Var: "Y"}}},
		Body: []objects.Literal{{Atom: objects.Atom{Pred: "serves", Args: []objects.Term{{Var: "X"}, {Var: "Y"}}}}}, Provenance: prop}
	w := compile(t, person("galahad", prop), person("lancelot", cited("canon-1")), place("logres"),
		decision("canon-1"), decision("retcon-2"), decision("retcon-3"), father, epithet, serves, rule,
		&objects.Attack{Attacker: "retcon-2", Target: "canon-1", Claim: idOf(t, father)},
		&objects.Attack{Attacker: "retcon-3", Target: "retcon-2", Claim: idOf(t, father)})
	g := w.Graph()
	if len(g.Entities) != 3 || g.Entities[0].ID != "galahad" || g.Entities[0].Grade != datalog.Possible || g.Entities[1].Grade != datalog.Certain {
		t.Errorf("entities: %+v", g.Entities)
	}
	if len(g.Decisions) != 3 {
		t.Errorf("decisions: %v", g.Decisions)
	}
	want := []GraphEdge{
		{Pred: "dwells-in", From: "galahad", To: "logres", Grade: datalog.Possible, Derived: true},
		{Pred: "father", From: "galahad", To: "lancelot", Grade: datalog.Certain},
		{Pred: "serves", From: "galahad", To: "logres", Grade: datalog.Possible},
	}
	if len(g.Edges) != len(want) {
		t.Fatalf("edges: %+v", g.Edges)
	}
	for i := range want {
		if g.Edges[i] != want[i] {
			t.Errorf("edge %d: %+v, want %+v", i, g.Edges[i], want[i])
		}
	}
	if len(g.Attacks) != 2 {
		t.Fatalf("attacks: %+v", g.Attacks)
	}
	for _, a := range g.Attacks {
		switch a.Attacker {
		case "retcon-2":
			if a.AttackerLabel != datalog.Out || a.TargetLabel != datalog.In || a.Defeats() {
				t.Errorf("retcon-2's attack: %+v", a)
			}
		case "retcon-3":
			if a.AttackerLabel != datalog.In || a.TargetLabel != datalog.Out || !a.Defeats() {
				t.Errorf("retcon-3's attack: %+v", a)
			}
		}
	}
}
