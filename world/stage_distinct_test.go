package world

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// TestStageDistinctKeysEqualsCompile: facts whose keys no other fact has
// (each a predicate of its own, named before, between and after those
// the rules read), staged one at a time over a world with rules, give at
// every step the world a compile of them all gives — findings, grades
// and the program's strata in their order — and so does staging them all
// at once.
func TestStageDistinctKeysEqualsCompile(t *testing.T) {
	keys := []string{"a", "zz", "p0", "q1", "b", "r", "pa", "s0", "m", "aa", "p-2", "zzz", "c", "t"}
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 34))
		base := entriesOf(t, randomWorld(r))
		w0, err := Compile(Input{Scope: "camelot", Base: base})
		if err != nil {
			t.Fatal(err)
		}
		provs := []*objects.Provenance{prop, objects.Cited(objects.CitedRatified, "d1"), objects.Cited(objects.CitedProvisional, "d2")}
		w := w0
		var staged []objects.Object
		for i, k := range keys {
			f := fact([]string{"a", "b", "c"}[r.IntN(3)], fmt.Sprintf("%s%d", k, seed), fmt.Sprint(i), provs[r.IntN(len(provs))])
			staged = append(staged, f)
			if w, err = w.Stage([]objects.Object{f}, nil); err != nil {
				t.Fatal(err)
			}
			want, err := Compile(Input{Scope: "camelot", Base: base, Staged: staged})
			if err != nil {
				t.Fatal(err)
			}
			sameWorld(t, fmt.Sprintf("seed %d, %d staged one at a time", seed, i+1), w, want)
		}
		all, err := w0.Stage(staged, nil)
		if err != nil {
			t.Fatal(err)
		}
		sameWorld(t, fmt.Sprintf("seed %d, all at once", seed), all, w)
	}
}

// sameWorld holds got to want: findings, grades and the strata.
func sameWorld(t *testing.T, where string, got, want *World) {
	t.Helper()
	if g, w := dump(got), dump(want); g != w {
		t.Fatalf("%s: staged world differs from a fresh compile:\n--- staged\n%s\n--- fresh\n%s", where, g, w)
	}
	gs, err := got.prog.Strata()
	if err != nil {
		t.Fatal(err)
	}
	ws, err := want.prog.Strata()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gs, ws) {
		t.Fatalf("%s: strata differ:\n%+v\n%+v", where, gs, ws)
	}
}
