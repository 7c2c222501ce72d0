// What one sync round costs when the store is large and the change small:
// two replicas of a 100,000-fact store each commit one fact, then the
// first syncs (push), the second syncs (fetch, merge commit, push) and the
// first syncs again (fast-forward). The cost should follow the change.

package lorestore

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func BenchmarkSyncRound100k(b *testing.B) {
	a, _ := bigStore(b, benchN(100_000))
	defer a.Close()
	remote := filepath.Join(b.TempDir(), "r.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", remote).CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	url := "file://" + remote
	if err := a.AddRemote("origin", url); err != nil {
		b.Fatal(err)
	}
	if _, err := a.Push(context.Background(), "origin", PushOptions{}); err != nil {
		b.Fatal(err)
	}
	c, err := Clone(context.Background(), url, filepath.Join(b.TempDir(), "c.git"), CloneOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var push, merge, ff time.Duration
	n := 1_000_000
	for b.Loop() {
		b.StopTimer()
		commitFacts(b, a, "camelot", n, n+1)
		commitFacts(b, c, "camelot", n+1, n+2)
		n += 2
		b.StartTimer()
		for i, step := range []struct {
			s *Store
			d *time.Duration
		}{{a, &push}, {c, &merge}, {a, &ff}} {
			start := time.Now()
			res, err := step.s.Sync(context.Background(), "origin", SyncOptions{})
			if err != nil {
				b.Fatal(err)
			}
			*step.d += time.Since(start)
			if i == 1 && len(res.Merges) != 1 || i == 2 && !res.FastForward {
				b.Fatalf("sync %d did not do its step: %+v", i, res)
			}
		}
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(per(push), "ms/push-sync")
	b.ReportMetric(per(merge), "ms/merge-sync")
	b.ReportMetric(per(ff), "ms/ff-sync")
}
