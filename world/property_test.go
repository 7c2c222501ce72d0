// Property tests over random worlds: the compiled world does not depend on
// the order objects arrive in, nor on which of them are committed and which
// staged; entity and predicate identity commute.

package world

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// randomWorld draws a small world with identity, predicate identity, rules,
// attacks and functional declarations over a few names, so that they meet.
func randomWorld(r *rand.Rand) []objects.Object {
	ents := []string{"a", "b", "c", "d", "e"}
	preds := []string{"p", "q", "s"}
	decs := []string{"d1", "d2", "d3"}
	prov := func() *objects.Provenance {
		switch r.IntN(3) {
		case 0:
			return objects.Proposed("s")
		case 1:
			return objects.Cited(objects.CitedRatified, decs[r.IntN(len(decs))])
		}
		return objects.Cited(objects.CitedProvisional, decs[r.IntN(len(decs))], decs[r.IntN(len(decs))])
	}
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	var objs []objects.Object
	for _, e := range ents {
		objs = append(objs, &objects.Entity{Kind: objects.KindPerson, Ident: e, Name: e, Provenance: prov()})
	}
	for _, d := range decs[:2] {
		objs = append(objs, &objects.Decision{Ident: d})
	}
	var facts []*objects.Fact
	for i := 0; i < 4+r.IntN(6); i++ {
		f := &objects.Fact{Entity: pick(ents), Key: pick(preds), Value: pick(ents), Provenance: prov()}
		facts = append(facts, f)
		objs = append(objs, f)
	}
	for i := 0; i < r.IntN(3); i++ {
		objs = append(objs, &objects.SameAs{Left: pick(ents), Right: pick(ents), Provenance: prov()})
	}
	objs = append(objs, linkedPersons(r, prov)...)
	for i := 0; i < r.IntN(3); i++ {
		objs = append(objs, &objects.PredicateSameAs{Left: pick(preds), Right: pick(preds), Provenance: prov()})
	}
	if r.IntN(2) == 0 {
		objs = append(objs, &objects.Functional{Pred: pick(preds), Provenance: prov()})
	}
	X, Y, Z := objects.Var("X"), objects.Var("Y"), objects.Var("Z")
	for i := 0; i < r.IntN(3); i++ {
		h, b1, b2 := pick(preds), pick(preds), pick(preds)
		objs = append(objs, &objects.Rule{Name: fmt.Sprintf("r%d", i),
			Head:       objects.Atom{Pred: "derived-" + h, Args: []objects.Term{X, Z}},
			Body:       []objects.Literal{{Atom: objects.Atom{Pred: b1, Args: []objects.Term{X, Y}}}, {Atom: objects.Atom{Pred: b2, Args: []objects.Term{Y, Z}}}},
			Provenance: prov()})
	}
	for i := 0; i < r.IntN(3) && len(facts) > 0; i++ {
		f := facts[r.IntN(len(facts))]
		id, _ := f.ID()
		objs = append(objs, &objects.Attack{Attacker: pick(decs), Target: pick(decs), Claim: id})
	}
	return objs
}

// linkedPersons is, half the time, a long chain or a star of same-as links
// over up to 20 more persons (x00, x01, …), joined to a, a few of them
// with facts.
func linkedPersons(r *rand.Rand, prov func() *objects.Provenance) []objects.Object {
	if r.IntN(2) == 0 {
		return nil
	}
	n := 5 + r.IntN(16)
	star := r.IntN(2) == 0
	var objs []objects.Object
	for i := 0; i < n; i++ {
		x := fmt.Sprintf("x%02d", i)
		objs = append(objs, &objects.Entity{Kind: objects.KindPerson, Ident: x, Name: x, Provenance: prov()})
		prev := fmt.Sprintf("x%02d", i-1)
		switch {
		case i == 0:
			prev = "a"
		case star:
			prev = "x00"
		}
		objs = append(objs, &objects.SameAs{Left: prev, Right: x, Provenance: prov()})
		if r.IntN(5) == 0 {
			objs = append(objs, &objects.Fact{Entity: x, Key: []string{"p", "q", "s"}[r.IntN(3)], Value: "a", Provenance: prov()})
		}
	}
	return objs
}

// dump renders everything observable about a world, canonically.
func dump(w *World) string {
	var b strings.Builder
	for _, f := range w.Findings() {
		cites := append([]string(nil), f.Citations...)
		sort.Strings(cites)
		fmt.Fprintf(&b, "F %s %s %s %v\n", f.Code, f.Message, strings.Join(cites, ","), f.Repair)
	}
	gs := w.grades()
	keys := make([]string, 0, len(gs))
	for k := range gs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "G %s %s\n", k, gs[k].grade)
	}
	return b.String()
}

// orderSeeds random worlds TestOrderIndependence shuffles (fewer under the
// race detector: see race_test.go).
var orderSeeds uint64 = 150

func TestOrderIndependence(t *testing.T) {
	for seed := range orderSeeds {
		r := rand.New(rand.NewPCG(seed, 7))
		objs := randomWorld(r)
		want := dump(compile(t, objs...))
		for trial := 0; trial < 3; trial++ {
			shuffled := append([]objects.Object(nil), objs...)
			r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			// Commit a random prefix, stage the rest.
			cut := r.IntN(len(shuffled) + 1)
			var base []Entry
			for _, o := range shuffled[:cut] {
				id, _ := o.ID()
				base = append(base, Entry{ID: id, Object: o})
			}
			w, err := Compile(Input{Scope: "camelot", Base: base, Staged: shuffled[cut:]})
			if err != nil {
				t.Fatal(err)
			}
			if got := dump(w); got != want {
				t.Fatalf("seed %d trial %d: the world depends on arrival order:\n--- first\n%s\n--- shuffled\n%s", seed, trial, want, got)
			}
		}
	}
}

// TestIdentitiesCommute: a fact crosses an entity identity and a predicate
// identity in either order of arrival, with both claims in its support.
func TestIdentitiesCommute(t *testing.T) {
	same := &objects.SameAs{Left: "lancelot", Right: "du-lac", Provenance: cited("d1")}
	psame := &objects.PredicateSameAs{Left: "home", Right: "seat", Provenance: cited("d2")}
	f := fact("lancelot", "home", "joyous-gard", prop)
	common := []objects.Object{person("lancelot", prop), person("du-lac", prop), decision("d1"), decision("d2"), f}
	orders := [][]objects.Object{
		append(append([]objects.Object{}, common...), same, psame),
		append([]objects.Object{psame, same}, common...),
	}
	var dumps []string
	for _, objs := range orders {
		w := compile(t, objs...)
		why := w.Why("seat", "du-lac", "joyous-gard")
		if len(why.Paths) != 1 || strings.Join(why.Paths[0], " ") != "d:d1 d:d2 proposed" {
			t.Fatalf("support of the crossed fact: %+v", why.Paths)
		}
		dumps = append(dumps, dump(w))
	}
	if dumps[0] != dumps[1] {
		t.Fatal("identity and predicate identity do not commute")
	}
}
