// Hand-computed tests of identity closed at read time: the program stays
// linear in what was authored, grades follow connectivity, a defeated
// link un-merges on the next read, and why expands identities to links.

package world

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// TestIdentityProgramStaysLinear: a chain and a star of persons, each
// with a home, give a model whose atoms are linear in the objects — no
// symmetric-transitive closure, no fact copied to every member. (Before
// DL-0040 the model held the N² pairs of @same and N² homes.)
func TestIdentityProgramStaysLinear(t *testing.T) {
	const n = 150
	for _, shape := range identityShapes[:2] {
		objs := identityWorld(n, shape.links(n, nil), true)
		w := compile(t, objs...)
		atoms := 0
		for _, p := range w.model.Preds() {
			atoms += w.model.Len(p)
		}
		if atoms > 2*len(objs) {
			t.Errorf("%s of %d: the model holds %d atoms for %d objects", shape.name, n, atoms, len(objs))
		}
		// The world still reads closed: every member has every home.
		if g := w.Grade("home", "p149", "castle-0"); g != datalog.Certain {
			t.Errorf("%s: home(p149, castle-0) is %s, want certain", shape.name, g)
		}
	}
}

// TestClosedGradesFollowConnectivity: a chain a–b–c–d whose middle link
// is proposed (unknown) and whose last link cites an unrecorded decision
// until it is recorded; a fact at a reads certain across true links,
// possible across the unknown one, and dead past a defeated one.
func TestClosedGradesFollowConnectivity(t *testing.T) {
	ab := &objects.SameAs{Left: "a", Right: "b", Provenance: cited("d1")}
	bc := &objects.SameAs{Left: "b", Right: "c", Provenance: prop}
	cd := &objects.SameAs{Left: "c", Right: "d", Provenance: cited("d2")}
	objs := []objects.Object{decision("d1"), person("a", prop), person("b", prop), person("c", prop), person("d", prop),
		place("camelot"), fact("a", "home", "camelot", cited("d1")), ab, bc, cd}
	w := compile(t, objs...)
	want := map[string]datalog.Grade{"a": datalog.Certain, "b": datalog.Certain, "c": datalog.Possible, "d": datalog.Possible, "camelot": datalog.Dead}
	for x, g := range want {
		if got := w.Grade("home", x, "camelot"); got != g {
			t.Errorf("home(%s, camelot) is %s, want %s", x, got, g)
		}
	}
	// Recording d2 moves the valuation only (the incremental path).
	before := incrementalStages.Load()
	w2, err := w.Stage([]objects.Object{decision("d2")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if incrementalStages.Load() == before {
		t.Error("recording a decision recompiled the world")
	}
	if g := w2.Grade("home", "d", "camelot"); g != datalog.Possible {
		t.Errorf("home(d, camelot) is %s, want possible (through the proposed link)", g)
	}
	// Attacking d1 on the first link defeats it: a and b un-merge, and
	// only the link's support changes (no recompile).
	resupportedBefore := resupported.Load()
	w3, err := w2.Stage([]objects.Object{decision("d3"), &objects.Attack{Attacker: "d3", Target: "d1", Claim: idOf(t, ab)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resupported.Load() == resupportedBefore {
		t.Error("the attacked link was not given its new support incrementally")
	}
	if g := w3.Grade("home", "b", "camelot"); g != datalog.Dead {
		t.Errorf("after the defeat home(b, camelot) is %s, want dead", g)
	}
	why := w3.Why("home", "b", "camelot")
	if len(why.Paths) != 1 || strings.Join(why.Paths[0], " ") != "d:d1 d:d1@"+idOf(t, ab).String() ||
		strings.Join(why.BlockingDefeats, " ") != "d:d1@"+idOf(t, ab).String() {
		t.Errorf("why home(b, camelot): %+v", why)
	}
	fresh := compile(t, append(slices.Clone(objs), decision("d2"), decision("d3"), &objects.Attack{Attacker: "d3", Target: "d1", Claim: idOf(t, ab)})...)
	if dump(w3) != dump(fresh) {
		t.Error("the staged defeat reads differently from a compile")
	}
}

// TestClosedQueryAndWhy: query answers reach every member with pair
// literals in their supports; why expands them to the links' supports.
func TestClosedQueryAndWhy(t *testing.T) {
	w := compile(t, decision("d1"), person("a", prop), person("b", prop), person("c", prop), place("camelot"),
		fact("a", "home", "camelot", cited("d1")),
		&objects.SameAs{Left: "a", Right: "b", Provenance: cited("d1")},
		&objects.SameAs{Left: "c", Right: "b", Provenance: prop})
	var got []string
	for _, a := range w.Query(datalog.Atom{Pred: "home", Args: []datalog.Term{{Var: "X"}, {Const: "camelot"}}}) {
		got = append(got, fmt.Sprintf("%s %s %s", a.Args[0], a.Grade, a.Support))
		if tr := a.Support.Eval(w.Valuation()); tr != a.Grade.Truth() {
			t.Errorf("the support of home(%s, camelot) evaluates %s under the world's valuation, graded %s", a.Args[0], tr, a.Grade)
		}
	}
	want := []string{"a certain {d:d1}", "b certain {@id:a|b, d:d1}", "c possible {@id:a|c, d:d1}"}
	if !slices.Equal(got, want) {
		t.Errorf("answers:\n got  %q\n want %q", got, want)
	}
	why := w.Why("home", "c", "camelot")
	if len(why.Paths) != 1 || strings.Join(why.Paths[0], " ") != "d:d1 proposed" || len(why.Active) != 0 {
		t.Errorf("why home(c, camelot): %+v", why)
	}
}
