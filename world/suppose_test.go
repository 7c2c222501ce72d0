package world

import (
	"math/rand/v2"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// supposeSeeds random worlds TestSupposeEqualsCompile supposes over (fewer
// under the race detector: see race_test.go).
var supposeSeeds uint64 = 60

// TestSupposeEqualsCompile: supposing hypotheses over a compiled or staged
// world gives, finding for finding and grade for grade, the world compiled
// with those suppositions — and leaves the world it was made from as it was.
func TestSupposeEqualsCompile(t *testing.T) {
	hyp := func(h string) *objects.Provenance { return objects.Hypothetical(h) }
	X, Y := objects.Var("X"), objects.Var("Y")
	for seed := range supposeSeeds {
		r := rand.New(rand.NewPCG(seed, 11))
		objs := randomWorld(r)
		// Claims under two hypotheses, a functional clash between them,
		// and a rule reading one: suppositions move grades and findings.
		objs = append(objs,
			&objects.Hypothesis{Ident: "h1", Statement: "One."},
			&objects.Hypothesis{Ident: "h2", Statement: "Two."},
			&objects.Functional{Pred: "liege", Provenance: prop},
			person("gareth", prop),
			fact("gareth", "liege", "arthur", hyp("h1")),
			fact("gareth", "liege", "lot", hyp("h2")),
			&objects.Rule{Name: "sworn", Head: objects.Atom{Pred: "sworn", Args: []objects.Term{X, Y}},
				Body: []objects.Literal{{Atom: objects.Atom{Pred: "liege", Args: []objects.Term{X, Y}}}}, Provenance: hyp("h1")},
		)
		cut := r.IntN(len(objs))
		var base []Entry
		for _, o := range objs[:cut] {
			id, _ := o.ID()
			base = append(base, Entry{ID: id, Object: o})
		}
		w, err := Compile(Input{Scope: "camelot", Base: base})
		if err != nil {
			t.Fatal(err)
		}
		if w, err = w.Stage(objs[cut:], nil); err != nil {
			t.Fatal(err)
		}
		before := dump(w)
		for _, hs := range [][]string{{"h1"}, {"h1", "h2"}, {"h2", "h2"}, nil} {
			got := w.Suppose(hs)
			want, err := Compile(Input{Scope: "camelot", Base: base, Staged: objs[cut:], Supposed: hs})
			if err != nil {
				t.Fatal(err)
			}
			if dump(got) != dump(want) {
				t.Fatalf("seed %d, supposing %v:\n--- Suppose\n%s\n--- Compile\n%s", seed, hs, dump(got), dump(want))
			}
			// Staging over a supposed world keeps the supposition.
			more, err := got.Stage([]objects.Object{fact("gareth", "title", "sir", hyp("h2"))}, nil)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Compile(Input{Scope: "camelot", Base: base, Supposed: hs,
				Staged: append(append([]objects.Object(nil), objs[cut:]...), fact("gareth", "title", "sir", hyp("h2")))})
			if err != nil {
				t.Fatal(err)
			}
			if dump(more) != dump(again) {
				t.Fatalf("seed %d: staging over a supposed world lost the supposition", seed)
			}
		}
		if dump(w) != before {
			t.Fatalf("seed %d: Suppose changed the world it was called on", seed)
		}
	}
}
