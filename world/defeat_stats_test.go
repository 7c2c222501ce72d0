package world

import (
	"fmt"
	"testing"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// Defeating the decision a rule or a predicate identity cites kills the
// derivations through it with no re-fixpoint (DLI 3.13, 3.15): the staged
// attack evaluates no stratum from scratch.
func TestDefeatOfCarriageRunsNoFixpoint(t *testing.T) {
	rule := &objects.Rule{Name: "hearth-from-home", Provenance: cited("d-rule"),
		Head: objects.Atom{Pred: "hearth", Args: []objects.Term{objects.Var("X"), objects.Var("Y")}},
		Body: []objects.Literal{{Atom: objects.Atom{Pred: "home", Args: []objects.Term{objects.Var("X"), objects.Var("Y")}}}}}
	psame := &objects.PredicateSameAs{Left: "home", Right: "dwelling", Provenance: cited("d-same")}
	objs := []objects.Object{decision("d-rule"), decision("d-same"), decision("d-kin"), place("hall"), rule, psame}
	for i := 0; i < 200; i++ {
		p := fmt.Sprintf("p-%d", i)
		key := "home"
		if i%2 == 1 {
			key = "dwelling"
		}
		objs = append(objs, person(p, cited("d-kin")), fact(p, key, "hall", cited("d-kin")))
	}
	w := compile(t, objs...)
	for _, tc := range []struct {
		name   string
		target objects.Object
		dec    string
		dead   string // an atom the defeat kills
	}{
		{"rule", rule, "d-rule", "p-0"},
		{"predicate identity", psame, "d-same", "p-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if g := w.Grade("hearth", tc.dead, "hall"); g != datalog.Certain {
				t.Fatalf("before: hearth(%s, hall) is %v", tc.dead, g)
			}
			nw, err := w.Stage([]objects.Object{decision("d-veto"), &objects.Attack{Attacker: "d-veto", Target: tc.dec, Claim: idOf(t, tc.target)}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if g := nw.Grade("hearth", tc.dead, "hall"); g != datalog.Dead {
				t.Fatalf("after: hearth(%s, hall) is %v", tc.dead, g)
			}
			st := nw.EvalStats()
			if fresh := st.Strata - st.Reused - st.Maintained; fresh != 0 {
				t.Fatalf("the defeat evaluated %d of %d strata from scratch (%+v)", fresh, st.Strata, st)
			}
		})
	}
}
