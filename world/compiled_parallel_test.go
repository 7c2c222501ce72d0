package world

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// chainsWorld is a world whose rounds are large enough for the parallel
// evaluation without any test hook: chains of parent facts (mixed
// provenance, so supports carry variables) and the recursive ancestor
// rule over them, with a negation in a stratum above.
func chainsWorld(chains, length int) []objects.Object {
	X, Y, Z := objects.Var("X"), objects.Var("Y"), objects.Var("Z")
	atom := func(pred string, args ...objects.Term) objects.Atom { return objects.Atom{Pred: pred, Args: args} }
	provs := []*objects.Provenance{prop, cited("d1"), objects.Cited(objects.CitedProvisional, "d2")}
	objs := []objects.Object{decision("d1"), decision("d2")}
	for c := range chains {
		for i := range length {
			id := fmt.Sprintf("p%d-%d", c, i)
			objs = append(objs, person(id, prop))
			if i > 0 {
				objs = append(objs, fact(fmt.Sprintf("p%d-%d", c, i-1), "parent", id, provs[(c+i)%len(provs)]))
			}
		}
	}
	return append(objs,
		&objects.Rule{Name: "anc-base", Head: atom("ancestor", X, Z),
			Body: []objects.Literal{{Atom: atom("parent", X, Z)}}, Provenance: prop},
		&objects.Rule{Name: "anc-step", Head: atom("ancestor", X, Z),
			Body: []objects.Literal{{Atom: atom("parent", X, Y)}, {Atom: atom("ancestor", Y, Z)}}, Provenance: prop},
		&objects.Rule{Name: "far", Head: atom("far", X, Z),
			Body: []objects.Literal{{Atom: atom("ancestor", X, Z)}, {Atom: atom("parent", X, Z), Negated: true}}, Provenance: prop},
	)
}

// TestWorldFileSameAtGOMAXPROCS1And2: a world whose evaluation runs in
// parallel at GOMAXPROCS=2 (600 chains of 12: rounds of thousands of
// rows) writes the world file it writes at GOMAXPROCS=1, byte for byte
// (issue 34). The parallel path must have run at 2.
func TestWorldFileSameAtGOMAXPROCS1And2(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	base := entriesOf(t, chainsWorld(600, 12))
	var files [2][]byte
	for i, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		before := datalog.ParallelBatches()
		w := mustCompile(t, Input{Scope: "camelot", Base: base})
		ran := datalog.ParallelBatches() - before
		if procs > 1 && ran == 0 {
			t.Fatalf("GOMAXPROCS=%d: %d parallel batches merged", procs, ran)
		}
		if n := w.EvalStats().Atoms; n < 600*11*12/2 {
			t.Fatalf("GOMAXPROCS=%d: %d atoms, fewer than the ancestors alone", procs, n)
		}
		var b bytes.Buffer
		if err := w.WriteCompiled(&b); err != nil {
			if errors.Is(err, datalog.ErrNoSnapshot) {
				t.Fatalf("GOMAXPROCS=%d: the world has no world file: %v", procs, err)
			}
			t.Fatal(err)
		}
		files[i] = b.Bytes()
	}
	if !bytes.Equal(files[0], files[1]) {
		n := 0
		for n < min(len(files[0]), len(files[1])) && files[0][n] == files[1][n] {
			n++
		}
		t.Fatalf("the world file written at GOMAXPROCS=2 differs from the one at 1 at byte %d (of %d and %d)", n, len(files[0]), len(files[1]))
	}
}
