package main

import "fmt"

func mb(kb float64) float64 { return kb / 1024 }

func printHeader() {
	fmt.Printf("%-28s %5s %9s %9s %9s %13s %13s\n", "", "runs", "wall s", "CPU s", "peak MB", "B/tuple RSS", "B/tuple heap")
}

// printRow prints one contestant; the heap column only where it was
// measured (ours).
func printRow(s summary, tuples int) {
	heap := "-"
	if s.liveHeap > 0 {
		heap = fmt.Sprintf("%.1f", s.liveHeap/float64(tuples))
	}
	fmt.Printf("%-28s %5d %9.2f %9.2f %9.1f %13.1f %13s\n", s.name, s.runs, s.wallSec, s.cpuSec, mb(s.peakKB),
		s.peakKB*1024/float64(tuples), heap)
}

// goal is issue 34's goal for a ratio, printed on the grid only (the
// issue sets its goals for TC on the grid).
func goal(wl workload, text string) string {
	if wl.shape != "grid" {
		return ""
	}
	return " (goal " + text + ")"
}

// printRatios prints the ratios issue 34 names, from same-run medians;
// Soufflé's published figure stands in only when souffle is absent
// (published) and only for the grid it was given for.
func printRatios(wl workload, sums []summary, published bool) {
	by := map[string]summary{}
	for _, s := range sums {
		by[s.key] = s
	}
	o1, o2 := by["ours1"], by["ours2"]
	fmt.Printf("ours GOMAXPROCS=2 vs GOMAXPROCS=1: %.2f× faster%s\n", o1.wallSec/o2.wallSec, goal(wl, "≥ 1.7×"))
	printRounds(o1, o2)
	if p, ok := by["pair1"]; ok {
		printMachine(o1, p)
	}
	if s2, ok := by["souffle2"]; ok {
		fmt.Printf("ours GOMAXPROCS=2 vs Soufflé -j2: %.2f× faster%s\n", s2.wallSec/o2.wallSec, goal(wl, "≥ 2×"))
		fmt.Printf("peak RSS ours GOMAXPROCS=2 / Soufflé -j2: %.2f×%s\n", o2.peakKB/s2.peakKB, goal(wl, "≤ 1.25×"))
		s1 := by["souffle1"]
		fmt.Printf("ours GOMAXPROCS=1 vs Soufflé -j1: %.2f× faster; peak RSS %.2f×\n", s1.wallSec/o1.wallSec, o1.peakKB/s1.peakKB)
		fmt.Printf("Soufflé -j2 vs -j1: %.2f× faster\n", s1.wallSec/s2.wallSec)
	} else if published && wl.shape == "grid" && wl.size == 100 {
		fmt.Printf("%-28s %5s %9s %9s %9d %13.1f   source: %s\n", "Soufflé (published)", "-", "-", "-", souffleMB,
			float64(souffleMB)*(1<<20)/float64(o2.tuples), souffleSource)
		fmt.Printf("peak RSS ours GOMAXPROCS=2 / Soufflé (published): %.2f×%s\n", mb(o2.peakKB)/souffleMB, goal(wl, "≤ 1.25×"))
	}
	if g, ok := by["gringo"]; ok {
		fmt.Printf("ours GOMAXPROCS=2 vs gringo: %.2f× faster; peak RSS %.2f×\n", g.wallSec/o2.wallSec, o2.peakKB/g.peakKB)
	}
}

// printRounds prints, beside the ratio of the medians, the ratio of each
// round, whose two runs of ours ran one after the other, and the ratio of
// their CPU times: the two do the same work, so where the machine's speed
// drifts (a shared machine's does) the CPU ratio shows it, and the wall
// ratio should be read with it.
func printRounds(o1, o2 summary) {
	rs := roundRatios(o1.walls, o2.walls)
	if len(rs) < 2 {
		return
	}
	fmt.Printf("  by round (GOMAXPROCS=1, then 2, back to back):")
	for _, r := range rs {
		fmt.Printf(" %.2f×", r)
	}
	fmt.Printf(", median %.2f×; CPU at 2 / at 1: %.2f (the same work: below 1, the machine ran faster for the runs at 2)\n",
		median(rs), median(roundRatios(o2.cpus, o1.cpus)))
}

// printMachine prints what two single-core runs at once cost each
// against one alone (pair, the slower of each pair), round by round: the
// two cores' throughput is 2 / that of one, the most the 2-core ratio can
// reach on this machine in this run.
func printMachine(o1, pair summary) {
	rs := roundRatios(pair.walls, o1.walls)
	if len(rs) == 0 {
		return
	}
	fmt.Printf("  the machine: two runs at GOMAXPROCS=1 at once took each, by round,")
	for _, r := range rs {
		fmt.Printf(" %.2f×", r)
	}
	fmt.Printf(" the wall of one alone; two cores do at most %.2f× the work of one here (2 / the median)\n", 2/median(rs))
}

// roundRatios divides each round's a by its b, over the rounds both ran.
func roundRatios(a, b []float64) []float64 {
	var out []float64
	for i := range min(len(a), len(b)) {
		if b[i] > 0 {
			out = append(out, a[i]/b[i])
		}
	}
	return out
}
