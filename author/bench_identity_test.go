package author

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// identityStore commits a world of n persons and links same-as links
// among them (random trees inside blocks of 100), all cited on a recorded
// decision, so every link is certain.
func identityStore(b *testing.B, n, links int) (*lorestore.Store, map[string]testOp) {
	b.Helper()
	store, err := lorestore.Init(b.TempDir(), lorestore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	batch := lorestore.NewBatch()
	canon := objects.Cited(objects.CitedRatified, "canon")
	put := func(o objects.Object) {
		if _, err := batch.Put("camelot", o); err != nil {
			b.Fatal(err)
		}
	}
	put(&objects.Decision{Ident: "canon"})
	for i := 0; i < n; i++ {
		put(&objects.Entity{Kind: objects.KindPerson, Ident: fmt.Sprintf("p%d", i), Name: fmt.Sprintf("Person %d", i), Provenance: canon})
	}
	r := rand.New(rand.NewPCG(uint64(n), 8))
	for l := 0; l < links; l++ {
		block := r.IntN(n / 100)
		a, c := block*100+r.IntN(100), block*100+r.IntN(100)
		if a == c {
			c = block*100 + (c+1-block*100)%100
		}
		put(&objects.SameAs{Left: fmt.Sprintf("p%d", a), Right: fmt.Sprintf("p%d", c), Provenance: canon})
	}
	if _, err := store.Commit(batch, lorestore.NewMessage("seed", "materialize", "camelot"), lorestore.CommitOptions{}); err != nil {
		b.Fatal(err)
	}
	svc, err := New(Config{Store: store, Documents: []string{"camelot"}})
	if err != nil {
		b.Fatal(err)
	}
	reg := testOps(svc)
	return store, reg
}

// BenchmarkAssertSameAs100k times author.assert_same_as through the
// registry — decode, fence, mutation law, world stage, findings brought,
// digest — staging one more certain link into a workspace over a
// committed world of 100,000 persons and 50,000 links. Each iteration
// stages a distinct pair joining two blocks; opening the workspace (the
// compile) is outside the timer. It reports the median (median-ns) beside
// ns/op; the target is under 5 ms.
func BenchmarkAssertSameAs100k(b *testing.B) {
	const n, links = 100_000, 50_000
	t0 := time.Now()
	_, reg := identityStore(b, n, links)
	t1 := time.Now()
	ws := dispatch(b, reg, "author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	b.Logf("commit %v, open (compile) %v", t1.Sub(t0), time.Since(t1))
	if chk := dispatch(b, reg, "author.check", map[string]any{"workspace": ws}); chk["blocked"] != false {
		b.Fatalf("the seeded world is blocked: %v", chk["findings"])
	}
	canon := map[string]any{"kind": "cited", "decisions": []string{"canon"}, "state": "ratified"}
	var times []time.Duration
	i := 0
	for b.Loop() {
		left, right := fmt.Sprintf("p%d", (i*7919)%n), fmt.Sprintf("p%d", (i*104729+50)%n)
		params := map[string]any{"workspace": ws, "left": left, "right": right, "provenance": canon}
		i++
		t0 := time.Now()
		resp := callOp(reg, "author.assert_same_as", params)
		times = append(times, time.Since(t0))
		if resp["ok"] != true {
			b.Fatalf("assert_same_as %s = %s: %v", left, right, resp["error"])
		}
	}
	slices.Sort(times)
	med := times[len(times)/2]
	b.ReportMetric(float64(med.Nanoseconds()), "median-ns")
	b.Logf("BenchmarkAssertSameAs100k: %d links staged, median %v, p95 %v, max %v", len(times), med, times[len(times)*95/100], times[len(times)-1])
}
