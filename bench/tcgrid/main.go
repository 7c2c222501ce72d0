// Command tcgrid measures transitive closure as whole processes, ours and
// its peers in one interleaved run: on a W×W grid (edges right and down)
// and on a chain of N nodes, our evaluator at GOMAXPROCS=1 and at
// GOMAXPROCS=2, Soufflé compiled (`souffle -o`, run with -j1 and -j2) and
// its interpreter when a souffle binary is on PATH, and gringo grounding
// the same program. Each contestant's wall time, CPU time and peak RSS (the
// last two the kernel's own accounting of the finished child) are medians
// over the repetitions, which run A B C … A B C … so that load on a shared
// machine falls on all of them alike; the load average is printed before
// and after each run. It prints the ratios issue 34 sets goals for, and
// bytes per derived tuple (peak RSS, and for ours live heap after
// evaluation). Two runs of ours at GOMAXPROCS=1 at once are a control of
// the machine in the same rounds: what each takes against one alone is
// how much its two cores slow each other, which bounds the 2-core ratio.
//
//	go run ./bench/tcgrid -w 100 -chain 2000 -reps 3 -prov-w 50
//
// The provenance run is on a smaller grid by default: with a variable per
// edge every path atom is truncated and grounded for exact grading, about
// 150 B a tuple, which on 100×100 would pass the memory a shared machine
// can give one process. Its bytes per tuple are what it reports.
//
// Each measurement of ours runs in a child process (this binary
// re-executed with -child) so that one measurement's heap never inflates
// another's peak. The files Soufflé and gringo read, and Soufflé's
// compiled program, are kept under -workdir.
package main

import (
	"flag"
	"fmt"
	"os"
)

// config is what one run of the benchmark measures.
type config struct {
	gridW   int    // grid width; 0 skips the grid
	chainN  int    // chain length; 0 skips the chain
	provW   int    // provenance grid width; 0 skips the provenance run
	reps    int    // interleaved repetitions
	workdir string // peers' input files and Soufflé's compiled program
	gringo  bool
	souffle bool
	interp  bool // Soufflé's interpreter, once per workload
}

func main() {
	var c config
	flag.IntVar(&c.gridW, "w", 100, "grid width (W×W nodes); 0 skips the grid")
	flag.IntVar(&c.chainN, "chain", 2000, "chain length (nodes); 0 skips the chain")
	flag.IntVar(&c.provW, "prov-w", 50, "grid width of the provenance run")
	flag.IntVar(&c.reps, "reps", 3, "interleaved repetitions (medians are reported)")
	flag.StringVar(&c.workdir, "workdir", ".benchtmp/tcpeers", "folder for the peers' files")
	noGringo := flag.Bool("no-gringo", false, "skip the gringo peer")
	noSouffle := flag.Bool("no-souffle", false, "skip the Soufflé peers")
	noInterp := flag.Bool("no-interp", false, "skip Soufflé's interpreter")
	noProv := flag.Bool("no-prov", false, "skip the provenance run")
	child := flag.String("child", "", "internal: run one measurement (plain or prov)")
	shape := flag.String("shape", "grid", "internal, with -child: grid or chain")
	size := flag.Int("n", 0, "internal, with -child: grid width or chain length")
	memprof := flag.String("memprofile", "", "with -child: write a heap profile after evaluation to this file")
	cpuprof := flag.String("cpuprofile", "", "with -child: write a CPU profile of the evaluation to this file")
	flag.Parse()
	if *child != "" {
		runChild(workload{shape: *shape, size: *size}, *child == "prov", *memprof, *cpuprof)
		return
	}
	if *noProv {
		c.provW = 0
	}
	if c.reps < 1 {
		fail(fmt.Errorf("-reps %d: need at least 1", c.reps))
	}
	c.gringo, c.souffle, c.interp = !*noGringo, !*noSouffle, !*noInterp
	if err := run(c); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "tcgrid:", err)
	os.Exit(1)
}
