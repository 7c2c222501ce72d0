package author

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// shape is a graph of entities named by the letters of its edges
// ("a-b b-c"), and of decisions D1, D2… attacking each other
// ("D1>D2@c": D1 attacks D2 on a claim about c).
func shape(edges, attacks string) (GraphResult, map[string][]string) {
	g := GraphResult{Scope: "s"}
	seen := map[string]bool{}
	node := func(id string) {
		if !seen[id] {
			seen[id] = true
			if strings.HasPrefix(id, "D") {
				g.Decisions = append(g.Decisions, id)
			} else {
				g.Entities = append(g.Entities, GraphEntity{ID: id, Kind: "person", Grade: "certain"})
			}
		}
	}
	for _, e := range strings.Fields(edges) {
		from, to, _ := strings.Cut(e, "-")
		node(from)
		node(to)
		g.Edges = append(g.Edges, GraphEdge{Pred: "knows", From: from, To: to, Grade: "certain"})
	}
	about := map[string][]string{}
	for _, a := range strings.Fields(attacks) {
		pair, ent, _ := strings.Cut(a, "@")
		att, tgt, _ := strings.Cut(pair, ">")
		node(att)
		node(tgt)
		claim := "claim-" + ent
		about[claim] = []string{ent}
		g.Attacks = append(g.Attacks, GraphAttack{Claim: claim, Attacker: att, Target: tgt})
	}
	return g, about
}

// nodes lists a graph's entities and decisions, sorted.
func nodes(g GraphResult) string {
	var out []string
	for _, e := range g.Entities {
		out = append(out, e.ID)
	}
	out = append(out, g.Decisions...)
	slices.Sort(out)
	return strings.Join(out, " ")
}

func TestNeighbourhood(t *testing.T) {
	const chain, star, cycle = "a-b b-c c-d d-e", "s-a s-b s-c x-s", "a-b b-c c-d d-a"
	tests := []struct {
		name, edges, attacks, focus string
		depth                       int
		want                        string
		edges2, attacks2            int // the edges and attacks kept
	}{
		{"chain, depth 0: the entity alone", chain, "", "c", 0, "c", 0, 0},
		{"chain, depth 1: either way", chain, "", "c", 1, "b c d", 2, 0},
		{"chain, depth 2", chain, "", "c", 2, "a b c d e", 4, 0},
		{"chain, from its end", chain, "", "a", 2, "a b c", 2, 0},
		{"chain, deeper than it is long", chain, "", "a", 99, "a b c d e", 4, 0},
		{"star, the centre", star, "", "s", 1, "a b c s x", 4, 0},
		{"star, a leaf: the centre, then the others", star, "", "a", 1, "a s", 1, 0},
		{"star, a leaf at depth 2", star, "", "a", 2, "a b c s x", 4, 0},
		{"cycle, depth 1: both ways round", cycle, "", "a", 1, "a b d", 2, 0},
		{"cycle, depth 2: the edges between the part's nodes are kept", cycle, "", "a", 2, "a b c d", 4, 0},
		{"attacks: the decisions on a claim about the entity", chain, "D1>D2@c D3>D1@a", "c", 1, "D1 D2 b c d", 2, 1},
		{"defeats: a hop further reaches the attacker's attacker", chain, "D1>D2@c D3>D1@a", "c", 2, "D1 D2 D3 a b c d e", 4, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, about := shape(tc.edges, tc.attacks)
			got := neighbourhood(g, about, tc.focus, tc.depth)
			if nodes(got) != tc.want || len(got.Edges) != tc.edges2 || len(got.Attacks) != tc.attacks2 {
				t.Fatalf("nodes %q with %d edges and %d attacks, want %q with %d and %d", nodes(got), len(got.Edges), len(got.Attacks), tc.want, tc.edges2, tc.attacks2)
			}
		})
	}
}

// TestGraphSelect: the focus is selected from a compiled world (an
// attack's claim names its entities); a focus the world lacks is an
// *UnknownEntityError naming the near spellings.
func TestGraphSelect(t *testing.T) {
	h := newHarness(t, "camelot")
	rel := &objects.Relation{Relation: "serves", From: "galahad", To: "logres", Provenance: prop0}
	relID, err := rel.ID()
	if err != nil {
		t.Fatal(err)
	}
	h.commitObjects("main", "camelot",
		&objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: prop0},
		&objects.Entity{Kind: objects.KindPerson, Ident: "gawain", Name: "Gawain", Provenance: prop0},
		&objects.Entity{Kind: objects.KindPlace, Ident: "logres", Name: "Logres", Provenance: prop0},
		&objects.Entity{Kind: objects.KindPlace, Ident: "sarras", Name: "Sarras", Provenance: prop0},
		rel,
		&objects.Decision{Ident: "canon-1"}, &objects.Decision{Ident: "canon-2"},
		&objects.Attack{Attacker: "canon-2", Target: "canon-1", Claim: relID},
	)
	ctx, got := heard()
	g, err := h.svc.GraphSelect(ctx, GraphOptions{Focus: "logres", Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	if nodes(g) != "canon-1 canon-2 galahad logres" || len(g.Attacks) != 1 || len(g.Edges) != 1 {
		t.Fatalf("focus logres, depth 1: %q, %d edges, %d attacks", nodes(g), len(g.Edges), len(g.Attacks))
	}
	if rs := got(); len(rs) != 1 || rs[0].msg != "compiling the world of camelot" {
		t.Fatalf("reports %+v", rs)
	}
	_, err = h.svc.GraphSelect(context.Background(), GraphOptions{Focus: "galahd"})
	var unknown *UnknownEntityError
	if !errors.As(err, &unknown) || fmt.Sprint(unknown.Near) != "[galahad]" || !strings.Contains(err.Error(), `no entity "galahd" in scope camelot`) {
		t.Fatalf("an unknown focus: %v", err)
	}
	if whole, err := h.svc.GraphAt("", ""); err != nil || nodes(whole) != "canon-1 canon-2 galahad gawain logres sarras" {
		t.Fatalf("the whole world: %q %v", nodes(whole), err)
	}
	// Several foci from one graph: each as GraphSelect draws it, in the
	// order given, the ones the world does not hold left out.
	for _, tc := range []struct {
		foci []string
		want []string
	}{
		{[]string{"logres", "galahd", "sarras", "gawain"}, []string{"canon-1 canon-2 galahad logres", "sarras", "gawain"}},
		{[]string{"nobody"}, nil},
		{nil, nil},
	} {
		gs, err := h.svc.GraphNeighbourhoods(context.Background(), GraphOptions{Depth: 1}, tc.foci)
		var got []string
		for _, g := range gs {
			got = append(got, nodes(g))
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("foci %q: %q %v, want %q", tc.foci, got, err, tc.want)
		}
	}
}
