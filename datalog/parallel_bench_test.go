//go:build unix

package datalog

import (
	"testing"
	"time"
)

// BenchmarkParallelTCGrid70 is TC on a 70×70 grid (6.2 M path atoms),
// evaluation alone: rounds large enough that the parallel merge
// (parinsert.go) places its tuples in a hash of many segments. Run it
// with -cpu 1,2 for what the second core gives; cpu-s is the process's
// CPU time per evaluation (cpuTime), the work done whatever the load.
// -short (bench-ci) takes a 30×30 grid.
func BenchmarkParallelTCGrid70(b *testing.B) {
	w := 70
	if testing.Short() {
		w = 30
	}
	es := gridEdges(w)
	var m *Model
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		p := tcProgram(b, es, false)
		m = nil
		b.StartTimer()
		c0 := cpuTime()
		var err error
		if m, err = p.Eval(); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c0
	}
	b.ReportMetric(float64(m.Len("path")), "tuples")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkParDoCall is one parDo as a large round makes them: 8 tasks of
// 25 µs on the workers, then 100 µs of work on the caller alone, so that
// the time per op past 200 µs (with two cores) is what a call costs. Its
// cases: a new goroutine for each call's second worker and the caller
// waiting parked, as before DL-0531 (spawn), and the waiting helpers with
// the caller waiting spinning (helpers). Run it with -cpu 2.
func BenchmarkParDoCall(b *testing.B) {
	busy := func(d time.Duration) {
		for t := time.Now(); time.Since(t) < d; {
		}
	}
	for _, spawn := range []bool{true, false} {
		name := "helpers"
		if spawn {
			name = "spawn"
		}
		b.Run(name, func(b *testing.B) {
			parSpawn.Store(spawn)
			defer parSpawn.Store(false)
			ws := []*evaluator{{}, {}}
			for b.Loop() {
				parDo(8, ws, func(int, *evaluator, int) { busy(25 * time.Microsecond) })
				busy(100 * time.Microsecond)
			}
		})
	}
}
