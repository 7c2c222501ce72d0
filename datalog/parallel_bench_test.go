package datalog

import "testing"

// BenchmarkParallelTCGrid70 is TC on a 70×70 grid (6.2 M path atoms),
// evaluation alone: rounds large enough that the parallel merge
// (parinsert.go) places its tuples in a hash of many segments. Run it
// with -cpu 1,2 for what the second core gives.
func BenchmarkParallelTCGrid70(b *testing.B) {
	es := gridEdges(70)
	var m *Model
	for b.Loop() {
		b.StopTimer()
		p := tcProgram(b, es, false)
		m = nil
		b.StartTimer()
		var err error
		if m, err = p.Eval(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(m.Len("path")), "tuples")
}
