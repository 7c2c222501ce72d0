package main

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// Soufflé's published figure, printed only when no souffle binary is on
// PATH to measure it in the same run.
const (
	souffleMB     = 387
	souffleSource = "deloreis issue 13 (\"Soufflé's ≈16 B/tuple (387 MB)\" for TC on grid 100×100)"
)

// summary is one contestant's medians over its samples.
type summary struct {
	key, name string
	runs      int
	wallSec   float64
	cpuSec    float64
	peakKB    float64
	tuples    int // -1: not reported
	liveHeap  float64
	walls     []float64 // each run's wall time, in the order run (one a round)
	cpus      []float64 // and its CPU time
}

// run measures every workload in turn, each in one interleaved run, then
// ours with provenance.
func run(c config) error {
	if err := os.MkdirAll(c.workdir, 0o755); err != nil {
		return err
	}
	pe, err := findPeers(c)
	if err != nil {
		return err
	}
	var wls []workload
	if c.gridW > 0 {
		wls = append(wls, workload{shape: "grid", size: c.gridW})
	}
	if c.chainN > 0 {
		wls = append(wls, workload{shape: "chain", size: c.chainN})
	}
	for _, wl := range wls {
		if err := runWorkload(c, pe, wl); err != nil {
			return fmt.Errorf("%s: %w", wl, err)
		}
	}
	if c.provW > 0 {
		return runProvenance(c.provW)
	}
	return nil
}

// peers are the other programs on this machine that the run measures.
type peers struct {
	sf     *souffle // nil: not measured
	gringo string   // gringo's path; "": not measured
}

// findPeers looks the peers up on PATH, says which are missing, and
// compiles TC with Soufflé.
func findPeers(c config) (peers, error) {
	var pe peers
	if c.souffle {
		var err error
		if pe.sf, err = prepareSouffle(c.workdir); err != nil {
			return pe, err
		}
		if pe.sf == nil {
			fmt.Println("note: no souffle binary on PATH; Soufflé is not measured (DL-0495: how it is built here)")
		} else {
			fmt.Printf("Soufflé: %s; TC compiled by `souffle -o` in %.1f s (not counted)\n", pe.sf.exe, pe.sf.compile.Seconds())
		}
	}
	if c.gringo {
		exe, err := exec.LookPath("gringo")
		if err != nil {
			fmt.Println("note: gringo is not installed (Debian package gringo); not measured")
		}
		pe.gringo = exe
	}
	return pe, nil
}

// contestants writes the peers' input files for wl and lists who runs.
func contestants(c config, pe peers, wl workload) ([]contestant, error) {
	cs := []contestant{ours(wl, "plain", 1), ours(wl, "plain", 2), pairOfOurs(wl)}
	es, err := wl.edges()
	if err != nil {
		return nil, err
	}
	dir := wl.dir(c.workdir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if pe.sf != nil {
		if err := writeSouffleFacts(dir, es); err != nil {
			return nil, err
		}
		cs = append(cs, pe.sf.compiled(dir, 1), pe.sf.compiled(dir, 2))
		if c.interp {
			cs = append(cs, pe.sf.interpreter(dir))
		}
	}
	if pe.gringo != "" {
		if err := writeGringoProgram(dir, es); err != nil {
			return nil, err
		}
		cs = append(cs, gringo(pe.gringo, dir))
	}
	return cs, nil
}

// schedule is the order of measurements: every contestant in turn, reps
// times, those marked once only in the first round.
func schedule(cs []contestant, reps int) []int {
	var order []int
	for r := range reps {
		for i, ct := range cs {
			if r == 0 || !ct.once {
				order = append(order, i)
			}
		}
	}
	return order
}

func runWorkload(c config, pe peers, wl workload) error {
	cs, err := contestants(c, pe, wl)
	if err != nil {
		return err
	}
	samples := make([][]sample, len(cs))
	load0 := loadAvg()
	for _, i := range schedule(cs, c.reps) {
		s, err := cs[i].run()
		if err != nil {
			return fmt.Errorf("%s: %w", cs[i].name, err)
		}
		samples[i] = append(samples[i], s)
	}
	sums := make([]summary, len(cs))
	for i, ct := range cs {
		sums[i] = summarize(ct, samples[i])
	}
	if err := sameTuples(sums); err != nil {
		return err
	}
	fmt.Printf("\nTC %s: %d path tuples; medians of up to %d interleaved runs; whole processes, CPU (user+sys) and peak RSS from rusage\n",
		wl, sums[0].tuples, c.reps)
	fmt.Printf("load average (1, 5, 15 min) before: %s; after: %s\n", load0, loadAvg())
	printHeader()
	for _, s := range sums {
		printRow(s, sums[0].tuples)
	}
	printRatios(wl, sums, pe.sf == nil && c.souffle)
	return nil
}

// sameTuples fails when a contestant that reports its path count differs
// from ours: a faster wrong answer is no peer.
func sameTuples(sums []summary) error {
	for _, s := range sums[1:] {
		if s.tuples >= 0 && s.tuples != sums[0].tuples {
			return fmt.Errorf("%s derived %d path tuples, %s %d", s.name, s.tuples, sums[0].name, sums[0].tuples)
		}
	}
	return nil
}

func summarize(ct contestant, ss []sample) summary {
	s := summary{key: ct.key, name: ct.name, runs: len(ss), tuples: ss[0].tuples}
	var wall, cpu, peak, heap []float64
	for _, x := range ss {
		wall = append(wall, x.wall.Seconds())
		cpu = append(cpu, x.cpu.Seconds())
		peak = append(peak, float64(x.peakKB))
		heap = append(heap, float64(x.liveHeap))
	}
	s.wallSec, s.cpuSec, s.peakKB, s.liveHeap = median(wall), median(cpu), median(peak), median(heap)
	s.walls, s.cpus = wall, cpu
	return s
}

// loadAvg returns the machine's load averages over 1, 5 and 15 minutes
// (Linux), or "unknown".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	ys := slices.Clone(xs)
	slices.Sort(ys)
	if n := len(ys); n%2 == 0 {
		return (ys[n/2-1] + ys[n/2]) / 2
	}
	return ys[len(ys)/2]
}

// runProvenance measures ours with a variable per edge on the provW grid,
// beside the plain evaluation of the same grid, once each.
func runProvenance(provW int) error {
	wl := workload{shape: "grid", size: provW}
	fmt.Printf("\nwith provenance (a variable per edge), grid %d×%d, one run each:\n", provW, provW)
	printHeader()
	for _, ct := range []contestant{ours(wl, "prov", 0), ours(wl, "plain", 0)} {
		s, err := ct.run()
		if err != nil {
			return fmt.Errorf("%s: %w", ct.name, err)
		}
		sum := summarize(ct, []sample{s})
		printRow(sum, sum.tuples)
	}
	return nil
}
