package world

import (
	"runtime"
	"testing"
	"time"
)

// BenchmarkWorldHeap100k measures what a compiled 100k-fact bench world
// holds beside its objects (live heap per object, the objects themselves
// live before and after) and what it costs the collector to mark it (the
// median of five forced collections with the world live, against five
// without): where the memory of issue 13 goal 1 and the GC share of goal
// 3 go (DL-0315).
//
//	go test ./world -run '^$' -bench WorldHeap -benchtime 1x
func BenchmarkWorldHeap100k(b *testing.B) {
	objs := bigWorld(b)
	entries := entriesOf(b, objs)
	for range b.N {
		idle := gcTime()
		live0 := heapNow()
		w, err := Compile(Input{Scope: "s", Base: entries})
		if err != nil {
			b.Fatal(err)
		}
		busy := gcTime() // collects the compile's garbage too
		live1 := heapNow()
		b.ReportMetric(float64(live1-live0)/float64(len(objs)), "world-B/obj")
		b.ReportMetric(float64((busy-idle).Microseconds())/1000, "gc-mark-ms")
		runtime.KeepAlive(w)
	}
	runtime.KeepAlive(entries)
}

// gcTime is the median wall time of five forced collections.
func gcTime() time.Duration {
	ds := make([]time.Duration, 5)
	for i := range ds {
		t := time.Now()
		runtime.GC()
		ds[i] = time.Since(t)
	}
	for i := range ds {
		for j := i + 1; j < len(ds); j++ {
			if ds[j] < ds[i] {
				ds[i], ds[j] = ds[j], ds[i]
			}
		}
	}
	return ds[2]
}
