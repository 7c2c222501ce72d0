package author

import (
	"flag"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/deloreis/deloreis/world"
)

// go test ./author -run '^$' -bench OpenPhases -benchtime 1x -cpuprofile cpu.out -args -follow.n=1000000 -open.heap heap.out
var openHeap = flag.String("open.heap", "", "write a heap profile of the live compiled world here (BenchmarkOpenPhases)")

// BenchmarkOpenPhases splits a cold open of followService's n-fact world
// into its two halves, reading the scope (pack reads, tree walk, decode)
// and compiling it (index, lowering, evaluation, checks), with the live
// heap each leaves per object: where the time and memory of an open go
// (the design note of the compiled world file, DL-0283).
func BenchmarkOpenPhases(b *testing.B) {
	svc, _ := followService(b, *followN)
	head, err := svc.store.Head("main")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		live0 := liveHeap()
		t0 := time.Now()
		sn, err := svc.store.SnapshotAt(head)
		if err != nil {
			b.Fatal(err)
		}
		entries, err := LoadScope(sn, "big")
		if err != nil {
			b.Fatal(err)
		}
		load := time.Since(t0)
		live1 := liveHeap()
		t1 := time.Now()
		w, err := world.Compile(world.Input{Scope: "big", Base: entries})
		if err != nil {
			b.Fatal(err)
		}
		compile := time.Since(t1)
		entries = nil
		live2 := liveHeap()
		if *openHeap != "" {
			f, err := os.Create(*openHeap)
			if err != nil {
				b.Fatal(err)
			}
			if err := pprof.WriteHeapProfile(f); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
		n := float64(len(w.Entities())) // persons are a tenth of the facts
		n = n * 11
		b.ReportMetric(float64(load.Milliseconds()), "load-ms")
		b.ReportMetric(float64(compile.Milliseconds()), "compile-ms")
		b.ReportMetric(float64(live1-live0)/n, "loaded-B/obj")
		b.ReportMetric(float64(live2-live0)/n, "compiled-B/obj")
		runtime.KeepAlive(w)
	}
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
