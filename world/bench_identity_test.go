// Benchmarks of identity at scale: N persons joined by N-1 same-as links
// in one chain, in one star, and in random components of 100, compiled and
// checked (Compile + Findings), and one more link staged into the world.
// Each prints the time and the heap it took, for the curve N = 100, 1k,
// 10k, 100k (issue 8, item 8).

package world

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// identityShapes are the link layouts: link(i) is the person person i
// (i ≥ 1) is declared the same as, given n persons.
var identityShapes = []struct {
	name  string
	links func(n int, r *rand.Rand) [][2]int
}{
	{"chain", func(n int, _ *rand.Rand) [][2]int {
		out := make([][2]int, 0, n-1)
		for i := 1; i < n; i++ {
			out = append(out, [2]int{i - 1, i})
		}
		return out
	}},
	{"star", func(n int, _ *rand.Rand) [][2]int {
		out := make([][2]int, 0, n-1)
		for i := 1; i < n; i++ {
			out = append(out, [2]int{0, i})
		}
		return out
	}},
	{"random", randomComponents},
}

// randomComponents splits n persons into components of (at most) 100,
// joins each by a random tree, and spends the links left over (n-1 in
// all) on random extra links inside components, closing cycles.
func randomComponents(n int, r *rand.Rand) [][2]int {
	const size = 100
	var out [][2]int
	for start := 0; start < n; start += size {
		end := min(start+size, n)
		for i := start + 1; i < end; i++ {
			out = append(out, [2]int{start + r.IntN(i-start), i})
		}
	}
	for len(out) < n-1 {
		c := r.IntN((n + size - 1) / size)
		start, end := c*size, min(c*size+size, n)
		if end-start < 2 {
			continue
		}
		a, b := start+r.IntN(end-start), start+r.IntN(end-start)
		if a != b {
			out = append(out, [2]int{a, b})
		}
	}
	return out
}

// identityWorld is n persons and the shape's same-as links, cited. With
// homes, each person has a home (one of seven) and home is declared
// functional, so the FD check reads every home under identity.
func identityWorld(n int, links [][2]int, homes bool) []objects.Object {
	objs := []objects.Object{decision("canon")}
	if homes {
		objs = append(objs, &objects.Functional{Pred: "home", Provenance: cited("canon")})
		for i := 0; i < 7; i++ {
			objs = append(objs, place(fmt.Sprintf("castle-%d", i)))
		}
	}
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("p%d", i)
		objs = append(objs, person(p, prop))
		if homes {
			objs = append(objs, fact(p, "home", fmt.Sprintf("castle-%d", i%7), cited("canon")))
		}
	}
	for _, l := range links {
		objs = append(objs, &objects.SameAs{Left: fmt.Sprintf("p%d", l[0]), Right: fmt.Sprintf("p%d", l[1]), Provenance: cited("canon")})
	}
	return objs
}

// identitySizes is the curve; -short stops at 10k.
func identitySizes() []int {
	if testing.Short() {
		return []int{100, 1000, 10_000}
	}
	return []int{100, 1000, 10_000, 100_000}
}

// BenchmarkIdentityCompile compiles and checks the world of each shape
// and size (persons and links; "+homes": each person with a home, home
// functional), reporting the milliseconds and the heap the compile added
// (heap-MB, sampled after it, before collection).
func BenchmarkIdentityCompile(b *testing.B) {
	for _, homes := range []bool{false, true} {
		for _, shape := range identityShapes {
			for _, n := range identitySizes() {
				name := shape.name
				if homes {
					name += "+homes"
				}
				benchCompile(b, fmt.Sprintf("%s/%d", name, n), identityWorld(n, shape.links(n, rand.New(rand.NewPCG(uint64(n), 8))), homes))
			}
		}
	}
}

// benchCompile times Compile + Findings of objs.
func benchCompile(b *testing.B, name string, objs []objects.Object) {
	b.Run(name, func(b *testing.B) {
		base := entriesOf(b, objs)
		var total time.Duration
		var peak uint64
		runs := 0
		for b.Loop() {
			runtime.GC()
			before := heapNow()
			t0 := time.Now()
			w, err := Compile(Input{Scope: "camelot", Base: base})
			if err != nil {
				b.Fatal(err)
			}
			_ = w.Findings()
			total += time.Since(t0)
			peak = max(peak, heapNow()-min(before, heapNow()))
			runs++
		}
		b.ReportMetric(float64(total.Microseconds())/1000/float64(runs), "ms/check")
		b.ReportMetric(float64(peak)/(1<<20), "heap-MB")
	})
}

// BenchmarkIdentityStage stages one more same-as link into the world of
// each shape at the largest size, with median and p95 latency; the
// "+homes" world gives each person a home and declares home functional,
// so every link staged runs the FD check over every home again (not
// incremental: DL-0041).
func BenchmarkIdentityStage(b *testing.B) {
	sizes := identitySizes()
	n := sizes[len(sizes)-1]
	for i, shape := range append(identityShapes[:len(identityShapes):len(identityShapes)], identityShapes[0]) {
		functional := i == len(identityShapes)
		name := shape.name
		if functional {
			name += "+homes"
		}
		b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
			w, err := Compile(Input{Scope: "camelot", Base: entriesOf(b, identityWorld(n, shape.links(n, rand.New(rand.NewPCG(uint64(n), 8))), functional))})
			if err != nil {
				b.Fatal(err)
			}
			benchStage(b, w, func(i int) objects.Object {
				return &objects.SameAs{Left: fmt.Sprintf("p%d", (i*7919)%n), Right: fmt.Sprintf("p%d", (i*104729+1)%n), Provenance: prop}
			})
		})
	}
}

// BenchmarkIdentityStageThenGrade stages one more link into the world of
// each shape at the largest size and then grades one atom: the first read
// of a staged world derives its identity closure from its parent's (a copy
// of a few arrays and the unions of the new link, DL-0100) and grades
// through the parent's class keys (DL-0101). The first iteration builds
// the parent's closure and key sets, once; the median is the derived read.
func BenchmarkIdentityStageThenGrade(b *testing.B) {
	sizes := identitySizes()
	n := sizes[len(sizes)-1]
	for _, shape := range identityShapes {
		b.Run(fmt.Sprintf("%s/%d", shape.name, n), func(b *testing.B) {
			w, err := Compile(Input{Scope: "camelot", Base: entriesOf(b, identityWorld(n, shape.links(n, rand.New(rand.NewPCG(uint64(n), 8))), false))})
			if err != nil {
				b.Fatal(err)
			}
			timeEach(b, func(i int, timed func(func() error)) {
				o := &objects.SameAs{Left: fmt.Sprintf("p%d", (i*7919)%n), Right: fmt.Sprintf("p%d", (i*104729+1)%n), Provenance: prop}
				timed(func() error {
					nw, err := w.Stage([]objects.Object{o}, nil)
					if err == nil && nw.Grade("person", "p1") != datalog.Possible {
						err = fmt.Errorf("person(p1) is %s, want possible", nw.Grade("person", "p1"))
					}
					return err
				})
			})
		})
	}
}
