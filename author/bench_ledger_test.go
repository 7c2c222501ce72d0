package author

import (
	"fmt"
	"testing"
	"time"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// benchService is a service over a fresh store whose scope "big" holds n
// facts over n/10 persons, every fact cited (provisional) by decision d-1,
// in one commit; and an open workspace over it.
func benchService(b *testing.B, n int) (*Service, map[string]testOp, string, time.Duration) {
	b.Helper()
	s, err := lorestore.Init(b.TempDir(), lorestore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	batch := s.NewBatch()
	if _, err := batch.Put("big", &objects.Decision{Ident: "d-1"}); err != nil {
		b.Fatal(err)
	}
	p := objects.Cited(objects.CitedProvisional, "d-1")
	persons := max(1, n/10)
	for i := 0; i < persons; i++ {
		if _, err := batch.Put("big", &objects.Entity{Kind: objects.KindPerson, Ident: fmt.Sprintf("p-%d", i), Name: "P", Provenance: p}); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < n; i++ {
		if _, err := batch.Put("big", benchFact(i, persons)); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.Commit(batch, lorestore.NewMessage(fmt.Sprintf("seed %d facts", n), "import", "big"), lorestore.CommitOptions{}); err != nil {
		b.Fatal(err)
	}
	svc, err := New(Config{Store: s, Documents: []string{"big"}})
	if err != nil {
		b.Fatal(err)
	}
	reg := testOps(svc)
	t0 := time.Now()
	ws, err := svc.Open("big", "")
	if err != nil {
		b.Fatal(err)
	}
	return svc, reg, ws.ID(), time.Since(t0)
}

func benchFact(i, persons int) *objects.Fact {
	return &objects.Fact{Entity: fmt.Sprintf("p-%d", i%persons), Key: fmt.Sprintf("k%d", i%7), Value: fmt.Sprintf("v%d", i),
		Provenance: objects.Cited(objects.CitedProvisional, "d-1")}
}

// dispatch sends one request and fails the benchmark on an error answer.
func dispatch(b testing.TB, reg map[string]testOp, op string, params any) map[string]any {
	b.Helper()
	m := callOp(reg, op, params)
	if m["ok"] != true {
		b.Fatalf("%s: %v", op, m["error"])
	}
	return m
}

// BenchmarkRecordDecisions1000 records a 1,000-record batch (each record
// citing the next, the last citing the first: forward and cyclic
// citations) over a 10,000-fact world: one check, one stage, one commit.
func BenchmarkRecordDecisions1000(b *testing.B) {
	svc, reg, ws, _ := benchService(b, 10_000)
	const n = 1000
	b.ResetTimer()
	var total time.Duration
	for it := 0; it < b.N; it++ {
		recs := make([]any, n)
		for i := range recs {
			recs[i] = map[string]any{"decision": fmt.Sprintf("b%d-d%d", it, i),
				"provenance": map[string]any{"kind": "cited", "state": "provisional", "decisions": []string{fmt.Sprintf("b%d-d%d", it, (i+1)%n)}}}
		}
		before := svc.cache.compileCount()
		t0 := time.Now()
		dispatch(b, reg, "author.record_decisions", map[string]any{"workspace": ws, "records": recs})
		total += time.Since(t0)
		if got := svc.cache.compileCount() - before; got != 0 {
			b.Fatalf("%d compiles for a batch", got)
		}
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/batch")
	b.ReportMetric(float64(total.Microseconds())/float64(b.N*n), "µs/record")
}

// BenchmarkDefeat100k defeats the decision under one fact of a
// 100,000-fact world and times the call until author.query and ClaimGrade
// read the fact dead. The world is never compiled again: the defeat stages
// the attack onto the base world and files it in the cache.
func BenchmarkDefeat100k(b *testing.B) {
	const n = 100_000
	svc, reg, ws, compile := benchService(b, n)
	persons := n / 10
	compiles := svc.cache.compileCount()
	b.ResetTimer()
	var defeat, read time.Duration
	for it := 0; it < b.N; it++ {
		f := benchFact(it*7919%n, persons)
		id, _ := f.ID()
		t0 := time.Now()
		dispatch(b, reg, "author.defeat", map[string]any{"workspace": ws, "claim_id": id.String(), "decision": fmt.Sprintf("veto-%d", it), "defeated_decision": "d-1"})
		t1 := time.Now()
		q := dispatch(b, reg, "author.query", map[string]any{"workspace": ws, "goal": map[string]any{"pred": f.Key,
			"args": []any{map[string]any{"const": f.Entity}, map[string]any{"const": f.Value}}}})
		w, _ := svc.workspace(ws)
		w.mu.Lock()
		g := w.world.ClaimGrade(id)
		w.mu.Unlock()
		t2 := time.Now()
		defeat, read = defeat+t1.Sub(t0), read+t2.Sub(t1)
		ans := q["answers"].([]any)
		if len(ans) != 1 || ans[0].(map[string]any)["grade"] != "dead" || g != datalog.Dead {
			b.Fatalf("after defeat: %v, grade %v", q, g)
		}
	}
	b.StopTimer()
	if got := svc.cache.compileCount() - compiles; got != 0 {
		b.Fatalf("%d compiles during %d defeats: the world was recompiled", got, b.N)
	}
	// A second workspace opens on the defeated commit from the cache.
	if _, err := svc.Open("big", ""); err != nil {
		b.Fatal(err)
	}
	if got := svc.cache.compileCount() - compiles; got != 0 {
		b.Fatalf("opening the defeated commit compiled it")
	}
	b.ReportMetric(float64((defeat+read).Microseconds())/1000/float64(b.N), "ms/defeat-to-read")
	b.ReportMetric(float64(defeat.Microseconds())/1000/float64(b.N), "ms/defeat")
	b.ReportMetric(float64(read.Microseconds())/1000/float64(b.N), "ms/read")
	b.ReportMetric(float64(compile.Milliseconds()), "ms-compile-base") // what a recompile would cost
}
