package world

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// TestConcurrentStage: a World is read and staged over from many
// goroutines at once (as a server serving several workspaces over one
// base would); every staged world equals its compile and the shared one
// does not change. Run under -race in make test.
func TestConcurrentStage(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	base := entriesOf(t, randomWorld(r))
	w, err := Compile(Input{Scope: "camelot", Base: base})
	if err != nil {
		t.Fatal(err)
	}
	before := dump(w)
	const workers = 8
	adds := make([][]objects.Object, workers)
	for i := range adds {
		for step := range 6 {
			adds[i] = append(adds[i], randomStep(r, i*10+step))
		}
	}
	got := make([]*World, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cur := w
			for _, o := range adds[i] {
				if cur, errs[i] = cur.Stage([]objects.Object{o}, nil); errs[i] != nil {
					return
				}
				_ = w.Findings() // readers of the shared world meanwhile
				_ = w.Grade("p", "a", "b")
			}
			got[i] = cur
		}()
	}
	wg.Wait()
	if dump(w) != before {
		t.Fatal("staging from several goroutines changed the shared world")
	}
	for i := range workers {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		want, err := Compile(Input{Scope: "camelot", Base: base, Staged: adds[i]})
		if err != nil {
			t.Fatal(err)
		}
		if dump(got[i]) != dump(want) {
			t.Fatalf("worker %d: %s", i, fmt.Sprintf("staged world differs from its compile:\n%s\n---\n%s", dump(got[i]), dump(want)))
		}
	}
}
