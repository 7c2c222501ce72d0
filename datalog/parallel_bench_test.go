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
