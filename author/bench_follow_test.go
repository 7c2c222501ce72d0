package author

import (
	"flag"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// go test ./author -run '^$' -bench FollowMaterialize -benchtime 5x -args -follow.n=1000000
var followN = flag.Int("follow.n", 100_000, "facts in the world BenchmarkFollowMaterialize materializes over")

// followService is benchService's world (n facts over n/10 persons, cited
// by d-1) with rules (a recursion over the persons, a negation), in one
// commit, and a service over it that has not opened it yet.
func followService(b *testing.B, n int) (*Service, map[string]testOp) {
	b.Helper()
	s, err := lorestore.Init(b.TempDir(), lorestore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	batch := s.NewBatch()
	persons := max(1, n/10)
	put := func(o objects.Object) {
		if _, err := batch.Put("big", o); err != nil {
			b.Fatal(err)
		}
	}
	put(&objects.Decision{Ident: "d-1"})
	p := objects.Cited(objects.CitedProvisional, "d-1")
	for i := range persons {
		put(&objects.Entity{Kind: objects.KindPerson, Ident: fmt.Sprintf("p-%d", i), Name: "P", Provenance: p})
	}
	for i := range n {
		if i%10 == 0 {
			// One in ten facts links persons: something for the recursion.
			put(&objects.Fact{Entity: fmt.Sprintf("p-%d", i%persons), Key: "liege", Value: fmt.Sprintf("p-%d", (i*7+1)%persons), Provenance: p})
			continue
		}
		put(benchFact(i, persons))
	}
	X, Y, Z := objects.Var("X"), objects.Var("Y"), objects.Var("Z")
	atom := func(pred string, ts ...objects.Term) objects.Atom { return objects.Atom{Pred: pred, Args: ts} }
	for _, r := range []*objects.Rule{
		{Name: "sworn", Head: atom("sworn", X, Y), Body: []objects.Literal{{Atom: atom("liege", X, Y)}}},
		{Name: "sworn-far", Head: atom("sworn", X, Z), Body: []objects.Literal{{Atom: atom("sworn", X, Y)}, {Atom: atom("liege", Y, Z)}}},
		{Name: "lieged", Head: atom("lieged", X), Body: []objects.Literal{{Atom: atom("liege", X, Y)}}},
		{Name: "free", Head: atom("free", X), Body: []objects.Literal{{Atom: atom("person", X)}, {Atom: atom("lieged", X), Negated: true}}},
		{Name: "keyed", Head: atom("keyed", X), Body: []objects.Literal{{Atom: atom("k3", X, Y)}}},
	} {
		r.Provenance = p
		put(r)
	}
	if _, err := s.Commit(batch, lorestore.NewMessage(fmt.Sprintf("seed %d facts", n), "import", "big"), lorestore.CommitOptions{}); err != nil {
		b.Fatal(err)
	}
	svc, err := New(Config{Store: s, Documents: []string{"big"}})
	if err != nil {
		b.Fatal(err)
	}
	reg := testOps(svc)
	return svc, reg
}

// BenchmarkFollowMaterialize: over an n-fact world, a workspace stages ten
// facts and materializes them, and a new workspace opens on the new head.
// The new head's world is derived from the old one's, never compiled (it
// fails on a compile); beside the time of that round it reports the
// first open (a compile) and a compile of the last head from scratch.
func BenchmarkFollowMaterialize(b *testing.B) {
	svc, reg := followService(b, *followN)
	t0 := time.Now()
	ws := dispatch(b, reg, "author.open", map[string]any{"scope": "big"})["workspace"].(string)
	openCompile := time.Since(t0)
	compiles := svc.cache.compileCount()
	live0 := liveHeap()
	b.ResetTimer()
	var rounds []time.Duration
	for it := 0; it < b.N; it++ {
		for i := range 10 {
			dispatch(b, reg, "author.add_fact", map[string]any{"workspace": ws, "entity": fmt.Sprintf("p-%d", i), "key": "liege",
				"value": fmt.Sprintf("p-%d", it*10+i+1), "provenance": map[string]any{"kind": "proposed", "origin": "bench"}})
		}
		t0 := time.Now()
		dispatch(b, reg, "author.materialize", map[string]any{"workspace": ws})
		opened := dispatch(b, reg, "author.open", map[string]any{"scope": "big"})["workspace"]
		rounds = append(rounds, time.Since(t0))
		dispatch(b, reg, "author.discard", map[string]any{"workspace": opened}) // a reader done with it
		if n := svc.cache.compileCount() - compiles; n != 0 {
			b.Fatalf("%d compiles: the new head's world was not derived", n)
		}
	}
	b.StopTimer()
	// What the rounds left alive: the cache's worlds share all but what
	// each commit changed, so this grows with the commits, not the world.
	grown := float64(int64(liveHeap())-int64(live0)) / float64(b.N)
	head, err := svc.store.Head("main")
	if err != nil {
		b.Fatal(err)
	}
	t0 = time.Now()
	if _, err := CompileAt(svc.store, head, "big"); err != nil {
		b.Fatal(err)
	}
	slices.Sort(rounds)
	b.ReportMetric(float64(openCompile.Milliseconds()), "first-open-ms")
	b.ReportMetric(float64(rounds[len(rounds)/2].Microseconds())/1000, "materialize+open-ms")
	b.ReportMetric(float64(time.Since(t0).Milliseconds()), "compile-head-ms")
	b.ReportMetric(grown/(1<<10), "live-KiB/round")
}
