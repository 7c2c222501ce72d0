// This file holds the benchmarks of incremental evaluation on a lore-shaped
// program mirroring the world package's bigWorld: 2,000 people, 100,000
// facts over ten keys, and 20 rules with a transitive closure, three
// negations and joins. Each adds (or removes) one fact to a clone of the
// evaluated program and evaluates it from the base model, reporting the
// median and 95th percentile latency of Clone + change + EvalFrom, the
// strata it re-evaluated, and the heap; the from-scratch evaluation is
// there for comparison.

package datalog

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"
)

// bigProgram builds the program. A third of the facts are cited (one
// decision variable d:canon-k), the rest proposed; every rule is cited by
// canon-0.
func bigProgram(tb testing.TB) *Program {
	p := NewProgram()
	const people = 2000
	for i := range people {
		must(tb, p.AddFact("person", []string{fmt.Sprintf("p%d", i)}, VarPoly("proposed")))
	}
	keys := []string{"home", "title", "liege", "sword", "steed", "oath", "kin", "rival", "mentor", "fame"}
	for i := 5 + people; i < 5+100_000; i++ {
		key := keys[i%len(keys)]
		value := fmt.Sprintf("v%d", i%97)
		if key == "mentor" || key == "liege" || key == "kin" {
			value = fmt.Sprintf("p%d", (i*7)%people)
		}
		sup := VarPoly("proposed")
		if i%3 == 0 {
			sup = VarPoly(fmt.Sprintf("d:canon-%d", i%5))
		}
		must(tb, p.AddFact(key, []string{fmt.Sprintf("p%d", i%people), value}, sup))
	}
	for _, r := range bigRules {
		must(tb, p.AddRule(parseRule(r[0], r[1], VarPoly("d:canon-0"))))
	}
	return p
}

var bigRules = [][2]string{
	{"lineage-base", "lineage(X, Y) :- mentor(X, Y)"},
	{"lineage-step", "lineage(X, Z) :- lineage(X, Y), mentor(Y, Z)"},
	{"vassal", "vassal(X, Y) :- liege(X, Y)"},
	{"knight", "knight(X) :- title(X, v1)"},
	{"armed", "armed(X) :- sword(X, Y)"},
	{"mounted", "mounted(X) :- steed(X, Y)"},
	{"errant", "errant(X) :- armed(X), mounted(X), not vassal(X, p0)"},
	{"sworn", "sworn(X) :- oath(X, Y)"},
	{"forsworn", "forsworn(X) :- person(X), not sworn(X)"},
	{"kin-sym", "kinship(X, Y) :- kin(X, Y)"},
	{"kin-back", "kinship(Y, X) :- kin(X, Y)"},
	{"feud", "feud(X, Y) :- rival(X, Y)"},
	{"famous", "famous(X) :- fame(X, v3)"},
	{"housed", "housed(X) :- home(X, Y)"},
	{"homeless", "homeless(X) :- person(X), not housed(X)"},
	{"court", "court(X, Z) :- vassal(X, Y), home(Y, Z)"},
	{"peer", "peer(X, Y) :- liege(X, Z), liege(Y, Z)"},
	{"hero", "hero(X) :- famous(X), knight(X)"},
	{"legend", "legend(X) :- hero(X), not forsworn(X)"},
	{"student", "student(Y) :- mentor(X, Y)"},
}

func heapInUse() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// benchChange times Clone + change + EvalFrom over the evaluated big
// program; change gets the iteration number.
func benchChange(b *testing.B, change func(p *Program, i int)) {
	base := bigProgram(b)
	m0, err := base.Eval()
	must(b, err)
	runtime.GC()
	var ds []time.Duration
	var peak uint64
	recomputed := 0
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		q := base.Clone()
		change(q, i)
		m, err := q.EvalFrom(m0)
		ds = append(ds, time.Since(t0))
		must(b, err)
		s := m.Stats()
		recomputed = max(recomputed, s.Strata-s.Reused-s.Maintained)
		if i%64 == 0 {
			peak = max(peak, heapInUse())
		}
		i++
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds())/1e3, "median-µs")
	b.ReportMetric(float64(ds[len(ds)*95/100].Nanoseconds())/1e3, "p95-µs")
	b.ReportMetric(float64(recomputed), "recomputed-strata")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
}

// BenchmarkIncrementalAddOne adds one fact: a title (read by knight, with
// a constant that does not match), a mentor edge (the transitive closure
// and student), an oath (sworn, then the negation in forsworn and legend)
// and a home (housed, the negation in homeless, the court join).
func BenchmarkIncrementalAddOne(b *testing.B) {
	cases := []struct {
		name string
		fact func(i int) (string, []string)
	}{
		{"title", func(i int) (string, []string) { return "title", []string{"p1", fmt.Sprintf("new-%d", i)} }},
		{"mentor", func(i int) (string, []string) { return "mentor", []string{"p5", fmt.Sprintf("p%d", 7+10*(i%100))} }},
		{"oath", func(i int) (string, []string) { return "oath", []string{fmt.Sprintf("p%d", 1+10*(i%200)), "v1"} }},
		{"home", func(i int) (string, []string) { return "home", []string{fmt.Sprintf("p%d", 7+10*(i%200)), "v2"} }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			benchChange(b, func(p *Program, i int) {
				pred, args := c.fact(i)
				must(b, p.AddFact(pred, args, VarPoly("proposed")))
			})
		})
	}
}

// BenchmarkIncrementalRemoveOne removes one fact: a mentor edge (the
// recursive stratum is re-evaluated), a home (court, housed, homeless), a
// liege (vassal, court, peer and the negation in errant) and an oath.
func BenchmarkIncrementalRemoveOne(b *testing.B) {
	base := bigProgram(b)
	m0 := evalOK(b, base)
	cases := []string{"mentor", "home", "liege", "oath"}
	for _, pred := range cases {
		facts := m0.Facts(pred)
		b.Run(pred, func(b *testing.B) {
			benchChange(b, func(p *Program, i int) {
				f := facts[(i*37)%len(facts)]
				if !p.RemoveFact(pred, f.Args) {
					b.Fatalf("%s%v is not a fact", pred, f.Args)
				}
			})
		})
	}
}

// BenchmarkIncrementalFromScratch evaluates the big program from scratch.
func BenchmarkIncrementalFromScratch(b *testing.B) {
	var ds []time.Duration
	var m *Model
	for b.Loop() {
		b.StopTimer()
		p := bigProgram(b)
		runtime.GC()
		b.StartTimer()
		t0 := time.Now()
		var err error
		m, err = p.Eval()
		ds = append(ds, time.Since(t0))
		must(b, err)
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds())/1e6, "median-ms")
	b.ReportMetric(float64(m.Stats().Atoms), "atoms")
	b.ReportMetric(float64(heapInUse())/(1<<20), "heap-MB")
}
