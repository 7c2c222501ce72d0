package testenv

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// PeakHeap runs fn, sampling the heap in use every interval, and returns
// how far the peak rose above the heap before fn (after a collection): a
// test's or benchmark's bound on what a call builds.
func PeakHeap(interval time.Duration, fn func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(interval):
			}
		}
	})
	fn()
	close(stop)
	wg.Wait()
	return max(peak.Load(), base) - base
}
