// Tests of closures derived from a parent's: after random same-as stages
// the derived closure is the one built from scratch (same nodes, links,
// adjacency, members and partitions at every level), and every grade and
// pair truth equals a fresh compile's.

package world

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// deriveWorldSize is the persons of the random derivation worlds.
const deriveWorldSize = 24

// randomLink is a same-as link between two random persons under one of
// the provenances a link can have: cited a recorded decision (true),
// proposed (unknown), cited an unrecorded one.
func randomLink(r *rand.Rand) *objects.SameAs {
	provs := []*objects.Provenance{cited("d1"), prop, cited("d9")}
	return &objects.SameAs{Left: fmt.Sprintf("p%d", r.IntN(deriveWorldSize)), Right: fmt.Sprintf("p%d", r.IntN(deriveWorldSize)),
		Provenance: provs[r.IntN(len(provs))]}
}

// deriveBase is persons with homes and titles of mixed provenance and a
// few links; some persons are left unlinked.
func deriveBase(r *rand.Rand) []objects.Object {
	objs := []objects.Object{decision("d1"), place("castle-0"), place("castle-1"), place("castle-2")}
	provs := []*objects.Provenance{cited("d1"), prop, cited("d9")}
	for i := range deriveWorldSize {
		p := fmt.Sprintf("p%d", i)
		objs = append(objs, person(p, provs[r.IntN(3)]))
		if r.IntN(2) == 0 {
			objs = append(objs, fact(p, "home", fmt.Sprintf("castle-%d", r.IntN(3)), provs[r.IntN(3)]))
		}
	}
	for range r.IntN(6) {
		objs = append(objs, randomLink(r))
	}
	return objs
}

// closureSeeds random worlds TestDerivedClosureEqualsBuilt stages over
// (fewer under the race detector: see race_test.go).
var closureSeeds uint64 = 60

func TestDerivedClosureEqualsBuilt(t *testing.T) {
	derived := 0
	for seed := range closureSeeds {
		r := rand.New(rand.NewPCG(seed, 13))
		objs := deriveBase(r)
		w := compile(t, objs...)
		for step := range 12 {
			if r.IntN(3) > 0 {
				_ = w.closure() // a read: the next stage derives from a built closure
			}
			var add []objects.Object
			for range 1 + r.IntN(3) {
				add = append(add, randomLink(r))
			}
			nw, err := w.Stage(add, nil)
			if err != nil {
				t.Fatal(err)
			}
			objs = append(objs, add...)
			name := fmt.Sprintf("seed %d step %d", seed, step)
			if c := nw.closure(); c.origin != nil {
				derived++
			}
			if got, want := closureShape(nw.closure()), closureShape(nw.buildClosure()); got != want {
				t.Fatalf("%s: derived closure\n%s\nbuilt\n%s", name, got, want)
			}
			if got, want := readAll(nw), readAll(compile(t, objs...)); got != want {
				t.Fatalf("%s: staged world reads\n%s\ncompiled\n%s", name, got, want)
			}
			w = nw
		}
	}
	if derived < int(closureSeeds)*5 {
		t.Errorf("only %d of %d staged worlds derived their closure", derived, closureSeeds*12)
	}
}

// closureShape renders a closure canonically: nodes, links with their
// supports, adjacency, structural members, and each level's partition
// (classes as sorted member names) with the true classes' smallest
// members.
func closureShape(c *idClosure) string {
	s := fmt.Sprintf("names %v\n", c.names)
	for _, e := range c.edges {
		s += fmt.Sprintf("edge %d-%d %s\n", e.a, e.b, e.support)
	}
	s += fmt.Sprintf("adj %v\n", c.adj)
	var members [][]string
	for _, ms := range c.members {
		if len(ms) == 0 {
			continue
		}
		var names []string
		for _, m := range ms {
			names = append(names, c.names[m])
		}
		members = append(members, names)
	}
	slices.SortFunc(members, slices.Compare)
	s += fmt.Sprintf("members %v\n", members)
	for l := range levels {
		cls := c.labels(l)
		byLabel := map[int32][]string{}
		for n, k := range cls {
			byLabel[k] = append(byLabel[k], c.names[n])
		}
		var parts [][]string
		for _, ms := range byLabel {
			slices.Sort(ms)
			parts = append(parts, ms)
		}
		slices.SortFunc(parts, slices.Compare)
		s += fmt.Sprintf("level %d %v\n", l, parts)
	}
	for _, x := range c.names {
		s += certainClasses{c}.find(x) + " "
	}
	return s
}

// readAll grades every home and person atom over the persons and the
// places, and every pair's identity.
func readAll(w *World) string {
	s := ""
	xs := []string{"castle-0", "castle-1", "castle-2", "nobody"}
	for i := range deriveWorldSize {
		p := fmt.Sprintf("p%d", i)
		s += fmt.Sprintf("%s %s;", p, w.Grade("person", p))
		for _, x := range xs {
			s += w.Grade("home", p, x).String()
		}
		for j := range deriveWorldSize {
			s += fmt.Sprint(w.Valuation().Truth(pairVar(p, fmt.Sprintf("p%d", j)))) + ","
		}
		s += "\n"
	}
	return s
}
