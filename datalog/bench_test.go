// This file holds the benchmarks: transitive closure over a 2,000-node
// chain (≈2 million path tuples), a random graph of 1,000 nodes and 3,000
// edges, and a 50×50 grid, each without provenance (every support One) and
// with one variable per edge; grading; and grounded labelling of a million
// arguments. Each reports its figures with b.ReportMetric, peak heap
// included (sampled from runtime.MemStats while the evaluation runs).

package datalog

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

type edgeList [][2]int

func chainEdges(n int) edgeList {
	var es edgeList
	for i := range n - 1 {
		es = append(es, [2]int{i, i + 1})
	}
	return es
}

func randomEdges(n, m int, seed uint64) edgeList {
	r := rand.New(rand.NewPCG(seed, seed))
	seen := map[[2]int]bool{}
	var es edgeList
	for len(es) < m {
		e := [2]int{r.IntN(n), r.IntN(n)}
		if e[0] != e[1] && !seen[e] {
			seen[e] = true
			es = append(es, e)
		}
	}
	return es
}

func gridEdges(w int) edgeList {
	var es edgeList
	for y := range w {
		for x := range w {
			if x+1 < w {
				es = append(es, [2]int{y*w + x, y*w + x + 1})
			}
			if y+1 < w {
				es = append(es, [2]int{y*w + x, (y+1)*w + x})
			}
		}
	}
	return es
}

func tcProgram(tb testing.TB, es edgeList, provenance bool) *Program {
	p := NewProgram()
	for i, e := range es {
		sup := One()
		if provenance {
			sup = VarPoly("e" + strconv.Itoa(i))
		}
		if err := p.AddFact("edge", []string{strconv.Itoa(e[0]), strconv.Itoa(e[1])}, sup); err != nil {
			tb.Fatal(err)
		}
	}
	for _, r := range tcRules {
		if err := p.AddRule(parseRule(r.name, r.text, One())); err != nil {
			tb.Fatal(err)
		}
	}
	return p
}

// peakSampler samples the heap in use until stopped.
type peakSampler struct {
	stop chan struct{}
	wg   sync.WaitGroup
	peak uint64
}

func startPeak() *peakSampler {
	runtime.GC()
	s := &peakSampler{stop: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		var ms runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			s.peak = max(s.peak, ms.HeapAlloc)
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *peakSampler) done() uint64 {
	close(s.stop)
	s.wg.Wait()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return max(s.peak, ms.HeapAlloc)
}

func benchTC(b *testing.B, es edgeList, provenance bool) {
	var m *Model
	var peak uint64
	for b.Loop() {
		b.StopTimer()
		p := tcProgram(b, es, provenance)
		m = nil
		s := startPeak()
		b.StartTimer()
		var err error
		m, err = p.Eval()
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		peak = max(peak, s.done())
		b.StartTimer()
	}
	st := m.Stats()
	if secs, ok := gringoSeconds(b, es); ok {
		ours := b.Elapsed().Seconds() / float64(b.N)
		b.ReportMetric(secs, "gringo-s")
		b.ReportMetric(secs/ours, "gringo/ours")
	}
	b.ReportMetric(float64(m.Len("path")), "tuples")
	b.ReportMetric(float64(st.Truncated), "truncated")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
	if provenance {
		// Grade every path atom under one valuation: half the edges true,
		// a quarter unknown, a quarter false.
		v := ValuationFunc(func(s string) Truth {
			n, _ := strconv.Atoi(s[1:])
			return Truth([]Truth{True, True, Unknown, False}[n%4])
		})
		t0 := time.Now()
		g := m.Grader(v)
		rel := m.rel(mustPred(b, m, "path"))
		for row := range rel.n {
			g.gradeAtom(rel.pred, uint32(row))
		}
		b.ReportMetric(float64(time.Since(t0).Milliseconds()), "grade-all-ms")
	}
}

// gringoSeconds grounds the same program with gringo, the peer named by
// the issue (Debian package gringo; `make bench` installs it), and returns
// its wall time. Its output goes to /dev/null. ok is false when gringo is
// not installed: the benchmark then reports our figures alone.
func gringoSeconds(b *testing.B, es edgeList) (float64, bool) {
	path, err := exec.LookPath("gringo")
	if err != nil {
		return 0, false
	}
	var src strings.Builder
	for _, e := range es {
		fmt.Fprintf(&src, "edge(%d,%d).\n", e[0], e[1])
	}
	src.WriteString("path(X,Y) :- edge(X,Y).\npath(X,Z) :- path(X,Y), edge(Y,Z).\n")
	file := filepath.Join(b.TempDir(), "tc.lp")
	if err := os.WriteFile(file, []byte(src.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devnull.Close()
	cmd := exec.Command(path, file)
	cmd.Stdout = devnull
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("gringo: %v", err)
	}
	return time.Since(t0).Seconds(), true
}

func mustPred(b *testing.B, m *Model, name string) uint32 {
	id, ok := m.preds.lookup(name)
	if !ok {
		b.Fatalf("no predicate %s", name)
	}
	return id
}

func BenchmarkTCChain2000(b *testing.B)           { benchTC(b, chainEdges(2000), false) }
func BenchmarkTCChain2000Provenance(b *testing.B) { benchTC(b, chainEdges(2000), true) }
func BenchmarkTCRandom1000(b *testing.B)          { benchTC(b, randomEdges(1000, 3000, 1), false) }
func BenchmarkTCRandom1000Provenance(b *testing.B) {
	benchTC(b, randomEdges(1000, 3000, 1), true)
}
func BenchmarkTCGrid50(b *testing.B)           { benchTC(b, gridEdges(50), false) }
func BenchmarkTCGrid50Provenance(b *testing.B) { benchTC(b, gridEdges(50), true) }

// BenchmarkGrade grades facts with two-monomial supports (three literals)
// whose literal truths are already known, as after a defeat: the per-fact
// cost of re-grading.
func BenchmarkGrade(b *testing.B) {
	p := NewProgram()
	for i := range 1000 {
		s := strconv.Itoa(i)
		must(b, p.AddFact("f", []string{s}, NewPoly(M("d:"+s, "h:x"), M("o:"+s))))
	}
	m, err := p.Eval()
	must(b, err)
	v := MapValuation{"h:x": True}
	for i := range 1000 {
		v["d:"+strconv.Itoa(i)] = Truth(i % 3)
	}
	g := m.Grader(v)
	rel := m.rel(mustPred(b, m, "f"))
	for row := range rel.n {
		g.gradeAtom(rel.pred, uint32(row))
	}
	n := 0
	for b.Loop() {
		g.grades[rel.pred] = memo{}
		for row := range rel.n {
			g.gradeAtom(rel.pred, uint32(row))
		}
		n += rel.n
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/fact")
}

func groundedInput(n int) ([]string, [][2]string, [][2]int32) {
	r := rand.New(rand.NewPCG(7, 7))
	args := make([]string, n)
	for i := range args {
		args[i] = fmt.Sprintf("d:%07d", i)
	}
	attacks := make([][2]string, n)
	ids := make([][2]int32, n)
	for i := range attacks {
		a, t := r.IntN(n), r.IntN(n)
		attacks[i] = [2]string{args[a], args[t]}
		ids[i] = [2]int32{int32(a), int32(t)}
	}
	return args, attacks, ids
}

func BenchmarkGrounded1M(b *testing.B) {
	args, attacks, _ := groundedInput(1_000_000)
	var labels map[string]Label
	for b.Loop() {
		labels = Grounded(args, attacks)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
	in := 0
	for _, l := range labels {
		if l == In {
			in++
		}
	}
	b.ReportMetric(float64(in), "in")
}

func BenchmarkGroundedIDs1M(b *testing.B) {
	_, _, ids := groundedInput(1_000_000)
	for b.Loop() {
		GroundedIDs(1_000_000, ids)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}

// worldProgram is a lore-shaped program: 10,000 entities with kinds, 20,000
// relations and 10,000 placements, each fact under its own decision, and a
// handful of non-recursive rules with their own supports and a negation.
func worldProgram(tb testing.TB) *Program {
	r := rand.New(rand.NewPCG(11, 11))
	p := NewProgram()
	const n = 10000
	ent := func(i int) string { return "e" + strconv.Itoa(i) }
	for i := range n {
		kind := []string{"person", "place", "faction"}[i%3]
		must(tb, p.AddFact(kind, []string{ent(i)}, VarPoly("d:k"+strconv.Itoa(i))))
	}
	for i := range 2 * n {
		pred := []string{"allied", "hostile"}[i%2]
		must(tb, p.AddFact(pred, []string{ent(r.IntN(n)), ent(r.IntN(n))}, VarPoly("d:r"+strconv.Itoa(i%5000))))
	}
	for i := range n {
		must(tb, p.AddFact("at", []string{ent(r.IntN(n)), ent(r.IntN(n/3)*3 + 1)}, VarPoly("d:a"+strconv.Itoa(i))))
	}
	rules := []trule{
		{"ally", "ally(X, Y) :- allied(X, Y), person(X), person(Y)", VarPoly("h:ally")},
		{"ally-sym", "ally(X, Y) :- ally(Y, X)", One()},
		{"enemy", "enemy(X, Y) :- hostile(X, Y), not ally(X, Y)", VarPoly("h:enemy")},
		{"located", "located(X, P) :- at(X, P), place(P)", One()},
		{"member", "member(X, F) :- allied(X, F), faction(F)", VarPoly("h:member")},
		{"rival", "rival(F, G) :- member(X, F), enemy(X, Y), member(Y, G)", One()},
	}
	for _, ru := range rules {
		must(tb, p.AddRule(parseRule(ru.name, ru.text, ru.sup)))
	}
	return p
}

// BenchmarkWorldEval evaluates the lore-shaped program from scratch.
func BenchmarkWorldEval(b *testing.B) {
	var m *Model
	for b.Loop() {
		b.StopTimer()
		p := worldProgram(b)
		b.StartTimer()
		var err error
		if m, err = p.Eval(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(m.Stats().Atoms), "atoms")
}

// BenchmarkWorldIncremental adds one placement to an evaluated world and
// re-evaluates: only the at and located strata are recomputed.
func BenchmarkWorldIncremental(b *testing.B) {
	p := worldProgram(b)
	if _, err := p.Eval(); err != nil {
		b.Fatal(err)
	}
	i := 0
	var m *Model
	for b.Loop() {
		i++
		must(b, p.AddFact("at", []string{"e1", "e" + strconv.Itoa(3*(i%3000)+1)}, VarPoly("d:new")))
		var err error
		if m, err = p.Eval(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(m.Stats().Reused), "reused-strata")
	b.ReportMetric(float64(m.Stats().Strata), "strata")
}
