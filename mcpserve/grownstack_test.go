package mcpserve

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestCallRunnerRunsEveryCall: run returns after its function has run,
// also when more calls run at once than the runner has goroutines (the
// extra ones run in place, none waits for another).
func TestCallRunnerRunsEveryCall(t *testing.T) {
	r := &callRunner{jobs: make(chan func())}
	const n = 64
	var ran atomic.Int64
	release := make(chan struct{})
	var started, wg sync.WaitGroup
	started.Add(n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.run(func() {
				started.Done()
				<-release // every call is in flight before any ends
				ran.Add(1)
			})
		}()
	}
	started.Wait()
	close(release)
	wg.Wait()
	if got := ran.Load(); got != n {
		t.Fatalf("%d of %d calls ran", got, n)
	}
	var x int
	r.run(func() { x = 7 })
	if x != 7 {
		t.Fatal("run returned before its function ran")
	}
}
