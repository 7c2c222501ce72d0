package datalog

import (
	"slices"
	"strconv"
	"testing"
)

// TestFactsShared: a stratum of facts alone is a version of the program's
// own table (DL-0356) when no fact was removed, with or without
// provenance; the program writing on (adds, removals, a clone's adds)
// leaves the model as it was, and every model equals the one evaluated
// from scratch from the same facts.
func TestFactsShared(t *testing.T) {
	type edge struct {
		a, b string
		s    int
	}
	for _, tc := range []struct {
		name       string
		prov, drop bool
	}{
		{"sets", false, false},
		{"sets, removed", false, true},
		{"exact", true, false},
		{"exact, removed", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sup := func(s int) Poly {
				if tc.prov {
					return VarPoly("d:" + strconv.Itoa(s))
				}
				return One()
			}
			var edges []edge
			for i := range 150 {
				edges = append(edges, edge{strconv.Itoa(i), strconv.Itoa(i + 1), i % 3})
			}
			load := func(es []edge) *Program {
				p := build(t, nil, tcRules)
				for _, e := range es {
					must(t, p.AddFact("edge", []string{e.a, e.b}, sup(e.s)))
				}
				return p
			}
			without := func(es []edge, a string) []edge {
				return slices.DeleteFunc(slices.Clone(es), func(e edge) bool { return e.a == a })
			}
			p := load(edges)
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
			rel, tab := m1.rels[id], p.facts[id].tab
			if shared := &rel.data.segs[0][0] == &tab.data.segs[0][0]; shared == tc.drop {
				t.Fatalf("model shares the fact table: %v, want %v", shared, !tc.drop)
			}
			c := p.Clone()
			must(t, p.AddFact("edge", []string{"x", "0"}, sup(0)))
			p.RemoveFact("edge", []string{"5", "6"})
			must(t, c.AddFact("edge", []string{"y", "1"}, sup(1)))
			m2, mc := evalOK(t, p), evalOK(t, c)
			if got := dump(m1); got != want1 {
				t.Fatal("the first model changed as the program went on")
			}
			pe := append(without(edges, "5"), edge{"x", "0", 0})
			if got, want := dump(m2), dump(evalOK(t, load(pe))); got != want {
				t.Fatalf("after adds and removals:\n%s\nwant\n%s", got, want)
			}
			ce := append(slices.Clone(edges), edge{"y", "1", 1})
			if got, want := dump(mc), dump(evalOK(t, load(ce))); got != want {
				t.Fatalf("the clone:\n%s\nwant\n%s", got, want)
			}
		})
	}
}
