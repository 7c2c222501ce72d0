package datalog

import (
	"slices"
	"strconv"
	"testing"
)

// TestFactsShared: a stratum of facts alone is a version of the program's
// own table (DL-0356) when no fact was removed, with or without
// provenance, and takes the fact set's support handles when no fact has
// an entry of its own (every support One or a unit); the program writing on (adds, removals, a clone's adds)
// leaves the model as it was, and every model equals the one evaluated
// from scratch from the same facts.
func TestFactsShared(t *testing.T) {
	for _, tc := range factsSharedCases {
		t.Run(tc.name, func(t *testing.T) { checkFactsShared(t, tc) })
	}
}

// sharedEdge is an edge fact of TestFactsShared, with the number of its support.
type sharedEdge struct {
	a, b string
	s    int
}

// factsSharedCase is a way TestFactsShared loads its facts: with
// provenance or not, one fact removed or not, one fact given two supports
// taken back.
type factsSharedCase struct {
	name              string
	prov, drop, twice bool
}

// factsSharedCases are TestFactsShared's ways of loading its facts.
var factsSharedCases = []factsSharedCase{
	{"sets", false, false, false},
	{"sets, removed", false, true, false},
	{"exact", true, false, false},
	{"exact, removed", true, true, false},
	{"exact, given twice", true, false, true},
}

// checkFactsShared is TestFactsShared for one case.
func checkFactsShared(t *testing.T, tc factsSharedCase) {
	sup := func(s int) Poly {
		if tc.prov {
			return VarPoly("d:" + strconv.Itoa(s))
		}
		return One()
	}
	var edges []sharedEdge
	for i := range 150 {
		edges = append(edges, sharedEdge{strconv.Itoa(i), strconv.Itoa(i + 1), i % 3})
	}
	load := func(es []sharedEdge) *Program {
		p := build(t, nil, tcRules)
		for _, e := range es {
			must(t, p.AddFact("edge", []string{e.a, e.b}, sup(e.s)))
		}
		return p
	}
	without := func(es []sharedEdge, a string) []sharedEdge {
		return slices.DeleteFunc(slices.Clone(es), func(e sharedEdge) bool { return e.a == a })
	}
	p := load(edges)
	if tc.twice { // a second support: an entry of its own
		must(t, p.AddFact("edge", []string{"3", "4"}, VarPoly("d:9")))
		must(t, p.AddFact("edge", []string{"3", "4"}, NewPoly([]string{"d:1", "d:2"})))
		if removed, _ := p.RemoveSupport("edge", []string{"3", "4"}, VarPoly("d:9")); !removed {
			t.Fatal("a support of edge(3, 4) not taken back")
		}
		if removed, _ := p.RemoveSupport("edge", []string{"3", "4"}, NewPoly([]string{"d:1", "d:2"})); !removed {
			t.Fatal("a support of edge(3, 4) not taken back")
		}
	}
	if tc.drop {
		if !p.RemoveFact("edge", []string{"0", "1"}) {
			t.Fatal("edge(0, 1) not removed")
		}
		edges = without(edges, "0")
	}
	m1 := evalOK(t, p)
	want1 := dump(evalOK(t, load(edges)))
	if got := dump(m1); got != want1 {
		t.Fatalf("model:\n%s\nwant\n%s", got, want1)
	}
	id, _ := p.preds.lookup("edge")
	rel, tab := m1.rel(id), p.fact(id).tab
	if shared := &rel.data.segs[0][0] == &tab.data.segs[0][0]; shared == tc.drop {
		t.Fatalf("model shares the fact table: %v, want %v", shared, !tc.drop)
	}
	if tc.prov {
		ents := p.fact(id).ents
		shared := &rel.prefs.segs[0][0] == &ents.segs[0][0]
		if want := !tc.drop && !tc.twice; shared != want {
			t.Fatalf("model shares the support handles: %v, want %v", shared, want)
		}
	}
	c := p.Clone()
	must(t, p.AddFact("edge", []string{"x", "0"}, sup(0)))
	p.RemoveFact("edge", []string{"5", "6"})
	must(t, c.AddFact("edge", []string{"y", "1"}, sup(1)))
	m2, mc := evalOK(t, p), evalOK(t, c)
	if got := dump(m1); got != want1 {
		t.Fatal("the first model changed as the program went on")
	}
	pe := append(without(edges, "5"), sharedEdge{"x", "0", 0})
	if got, want := dump(m2), dump(evalOK(t, load(pe))); got != want {
		t.Fatalf("after adds and removals:\n%s\nwant\n%s", got, want)
	}
	ce := append(slices.Clone(edges), sharedEdge{"y", "1", 1})
	if got, want := dump(mc), dump(evalOK(t, load(ce))); got != want {
		t.Fatalf("the clone:\n%s\nwant\n%s", got, want)
	}
}
