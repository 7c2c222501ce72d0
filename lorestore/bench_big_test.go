// BenchmarkCommit900k: one commit of 900,000 small objects, the size of a
// 50 MB .dli import (issue 8 item 7), with the heap it costs.

package lorestore

import (
	"path/filepath"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/deloreis/deloreis/objects"
)

// heapPeak samples the live heap (objects not yet freed) every few
// milliseconds until stop is called, which returns the highest sample.
// Sampling through runtime/metrics does not stop the world.
func heapPeak() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	var mu sync.Mutex
	peak := read()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				v := read()
				mu.Lock()
				peak = max(peak, v)
				mu.Unlock()
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return max(peak, read())
	}
}

func BenchmarkCommit900k(b *testing.B) {
	n := benchN(900_000)
	facts := make([]objects.Object, n)
	for i := range facts {
		facts[i] = fact(i)
	}
	var took time.Duration
	var peak, live uint64
	for b.Loop() {
		b.StopTimer()
		s, err := Init(filepath.Join(b.TempDir(), "c.git"), Options{})
		if err != nil {
			b.Fatal(err)
		}
		base := liveHeap()
		stop := heapPeak()
		b.StartTimer()
		start := time.Now()
		batch := newBenchBatch(s)
		for _, f := range facts {
			if _, err := batch.Put("camelot", f); err != nil {
				b.Fatal(err)
			}
		}
		took += time.Since(start)
		b.StopTimer()
		if l := liveHeap(); l > base {
			live = max(live, l-base)
		}
		b.StartTimer()
		start = time.Now()
		if _, err := s.Commit(batch, NewMessage("bulk", "materialize", "camelot"), CommitOptions{}); err != nil {
			b.Fatal(err)
		}
		took += time.Since(start)
		b.StopTimer()
		if p := stop(); p > base {
			peak = max(peak, p-base)
		}
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(took.Nanoseconds())/float64(b.N), "put+commit-ns/op")
	b.ReportMetric(float64(n)*float64(b.N)/took.Seconds(), "objects/s")
	// peak-heap-MB counts garbage not yet collected too, so it follows the
	// collector's pacing over everything live, the facts included;
	// batch-live-MB is what the full batch holds just before Commit.
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(live)/(1<<20), "batch-live-MB")
}
