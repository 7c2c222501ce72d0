package author

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// mergeBenchStore is a store whose main and branch "side" each added
// n objects (entities and a fact on each) over a common base.
func mergeBenchStore(b *testing.B, n int) *lorestore.Store {
	b.Helper()
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s, err := lorestore.Init(b.TempDir(), lorestore.Options{Now: func() time.Time { clock = clock.Add(time.Second); return clock }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	p := objects.Proposed("bench")
	commit := func(branch, prefix string, count int) {
		batch := lorestore.NewBatch()
		for i := 0; i < count/2; i++ {
			id := fmt.Sprintf("%s-%05d", prefix, i)
			for _, o := range []objects.Object{
				&objects.Entity{Kind: objects.KindPerson, Ident: id, Name: id, Provenance: p},
				&objects.Fact{Entity: id, Key: "home", Value: prefix, Provenance: p},
			} {
				if _, err := batch.Put("camelot", o); err != nil {
					b.Fatal(err)
				}
			}
		}
		if _, err := s.Commit(batch, lorestore.NewMessage("materialize camelot: "+prefix, "materialize", "camelot"), lorestore.CommitOptions{Branch: branch}); err != nil {
			b.Fatal(err)
		}
	}
	commit("main", "base", 100)
	if _, err := s.CreateBranch("side", ""); err != nil {
		b.Fatal(err)
	}
	commit("main", "ours", n)
	commit("side", "theirs", n)
	return s
}

// BenchmarkMerge10k times author.merge end to end — the merge commit, the
// four worlds of the check (the base compiled cold, both sides and the
// merge derived from it), the ref moved — for two branches that each added 10,000 objects over a
// common base. Each iteration merges into a fresh branch at main's head,
// through a fresh Service (an empty world cache).
func BenchmarkMerge10k(b *testing.B) {
	s := mergeBenchStore(b, 10000)
	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		target := fmt.Sprintf("t-%d", i)
		if _, err := s.CreateBranch(target, "main"); err != nil {
			b.Fatal(err)
		}
		svc, err := New(Config{Store: s, Documents: []string{"camelot", "logres"}})
		if err != nil {
			b.Fatal(err)
		}
		reg := testOps(svc)
		// A workspace over the empty document: no camelot world is cached.
		ws, err := svc.Open("logres", "")
		if err != nil {
			b.Fatal(err)
		}
		params := map[string]any{"workspace": ws.ID(), "source": "side", "target": target}
		start := time.Now()
		b.StartTimer()
		resp := callOp(reg, "author.merge", params)
		b.StopTimer()
		total += time.Since(start)
		out, _ := json.Marshal(resp)
		// logres and the base compile; both sides and the merge follow the base (DL-0281).
		if !strings.Contains(string(out), `"merged":true`) || svc.cache.compileCount() != 2 || svc.cache.deriveCount() != 3 {
			b.Fatalf("merge: %s (%d compiles, %d derivations)", out, svc.cache.compileCount(), svc.cache.deriveCount())
		}
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/merge")
	b.ReportMetric(20000, "objects")
}
