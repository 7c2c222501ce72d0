package datalog

import (
	"flag"
	"runtime"
	"strconv"
	"testing"
)

var factHeapN = flag.Int("factheap.n", 300_000, "facts in BenchmarkFactHeap's program")

// BenchmarkFactHeap reports the live heap per fact of a program of binary
// facts and of its model (a stratum of facts alone), with every fact
// citing one of five decisions (shared) or a variable of its own (own):
// what DL-0354..DL-0356 save.
// go test ./datalog -run '^$' -bench FactHeap -benchtime 1x [-args -factheap.n=1000000]
func BenchmarkFactHeap(b *testing.B) {
	for _, own := range []bool{false, true} {
		name := "shared"
		if own {
			name = "own"
		}
		b.Run(name, func(b *testing.B) {
			n := *factHeapN
			args := make([][]string, n)
			sups := make([]Poly, n)
			for i := range n {
				args[i] = []string{"e" + strconv.Itoa(i), "v" + strconv.Itoa(i%100)}
				v := "d:" + strconv.Itoa(i%5)
				if own {
					v = "o:" + strconv.Itoa(i)
				}
				sups[i] = VarPoly(v)
			}
			var prog, model float64
			for b.Loop() {
				runtime.GC()
				h0 := heapInUse()
				p := NewProgram()
				for i := range n {
					must(b, p.AddFact("fact", args[i], sups[i]))
				}
				runtime.GC()
				h1 := heapInUse()
				m := evalOK(b, p)
				runtime.GC()
				h2 := heapInUse()
				prog = (float64(h1) - float64(h0)) / float64(n)
				model = (float64(h2) - float64(h1)) / float64(n)
				runtime.KeepAlive(m)
				runtime.KeepAlive(p)
			}
			runtime.KeepAlive(args)
			runtime.KeepAlive(sups)
			b.ReportMetric(prog, "program-B/fact")
			b.ReportMetric(model, "model-B/fact")
		})
	}
}
