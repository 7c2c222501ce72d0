// Command tcgrid measures transitive closure on a W×W grid (edges right
// and down) as whole processes: our evaluator without and with provenance,
// and gringo grounding the same program in the same run, each with wall
// time and peak RSS (the kernel's own accounting of the finished child).
// It prints them beside Soufflé's published figure for the same workload,
// and bytes per derived tuple (peak RSS, and live heap after evaluation).
//
//	go run ./bench/tcgrid -w 100 -prov-w 50
//
// The provenance run is on a smaller grid by default: with a variable per
// edge every path atom is truncated and grounded for exact grading, about
// 150 B a tuple, which on 100×100 would pass the memory a shared machine
// can give one process. Its bytes per tuple are what it reports.
//
// Each measurement runs in a child process (this binary re-executed with
// -child) so that one measurement's heap never inflates another's peak.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"syscall"
	"time"

	"github.com/deloreis/deloreis/datalog"
)

// Soufflé is not installable here; its figure is the published one.
const (
	souffleMB     = 387
	souffleSource = "deloreis issue 13 (\"Soufflé's ≈16 B/tuple (387 MB)\" for TC on grid 100×100)"
)

// childResult is what a child prints on its last line.
type childResult struct {
	Tuples   int     `json:"tuples"`
	EvalSec  float64 `json:"eval_s"`
	LiveHeap uint64  `json:"live_heap"` // heap in use after evaluation, model alive
}

func main() {
	w := flag.Int("w", 100, "grid width (W×W nodes)")
	provW := flag.Int("prov-w", 50, "grid width of the provenance run")
	child := flag.String("child", "", "internal: run one measurement (plain or prov)")
	noGringo := flag.Bool("no-gringo", false, "skip the gringo peer")
	noProv := flag.Bool("no-prov", false, "skip the provenance run")
	memprof := flag.String("memprofile", "", "with -child: write a heap profile after evaluation to this file")
	flag.Parse()
	if *child != "" {
		runChild(*w, *child == "prov", *memprof)
		return
	}
	if *noProv {
		*provW = 0
	}
	if err := run(*w, *provW, !*noGringo); err != nil {
		fmt.Fprintln(os.Stderr, "tcgrid:", err)
		os.Exit(1)
	}
}

func gridEdges(w int) [][2]int {
	var es [][2]int
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

// runChild evaluates TC once and prints a childResult as JSON.
func runChild(w int, prov bool, memprof string) {
	p := datalog.NewProgram()
	for i, e := range gridEdges(w) {
		sup := datalog.One()
		if prov {
			sup = datalog.VarPoly("e" + strconv.Itoa(i))
		}
		if err := p.AddFact("edge", []string{strconv.Itoa(e[0]), strconv.Itoa(e[1])}, sup); err != nil {
			fail(err)
		}
	}
	x, y, z := datalog.V("X"), datalog.V("Y"), datalog.V("Z")
	lit := func(pred string, a, b datalog.Term) datalog.Literal {
		return datalog.Literal{Atom: datalog.Atom{Pred: pred, Args: []datalog.Term{a, b}}}
	}
	rules := []datalog.Rule{
		{Name: "base", Head: lit("path", x, y).Atom, Body: []datalog.Literal{lit("edge", x, y)}, Support: datalog.One()},
		{Name: "step", Head: lit("path", x, z).Atom, Body: []datalog.Literal{lit("path", x, y), lit("edge", y, z)}, Support: datalog.One()},
	}
	for _, r := range rules {
		if err := p.AddRule(r); err != nil {
			fail(err)
		}
	}
	t0 := time.Now()
	m, err := p.Eval()
	if err != nil {
		fail(err)
	}
	res := childResult{Tuples: m.Len("path"), EvalSec: time.Since(t0).Seconds()}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res.LiveHeap = ms.HeapAlloc
	if memprof != "" {
		f, err := os.Create(memprof)
		if err != nil {
			fail(err)
		}
		if err := pprof.WriteHeapProfile(f); err != nil {
			fail(err)
		}
		f.Close()
	}
	runtime.KeepAlive(m)
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "tcgrid:", err)
	os.Exit(1)
}

// proc is one finished child process.
type proc struct {
	wall   time.Duration
	peakKB int64
	out    []byte
}

// measure runs cmd to completion and reads its peak RSS from rusage.
func measure(cmd *exec.Cmd) (proc, error) {
	t0 := time.Now()
	out, err := cmd.Output()
	wall := time.Since(t0)
	if err != nil {
		return proc{}, fmt.Errorf("%s: %w", cmd.Path, err)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return proc{}, fmt.Errorf("%s: no rusage", cmd.Path)
	}
	return proc{wall: wall, peakKB: ru.Maxrss, out: out}, nil // Linux: Maxrss in KiB
}

func ours(w int, mode string) (proc, childResult, error) {
	self, err := os.Executable()
	if err != nil {
		return proc{}, childResult{}, err
	}
	cmd := exec.Command(self, "-w", strconv.Itoa(w), "-child", mode)
	cmd.Stderr = os.Stderr
	pr, err := measure(cmd)
	if err != nil {
		return pr, childResult{}, err
	}
	var res childResult
	if err := json.Unmarshal(pr.out, &res); err != nil {
		return pr, res, fmt.Errorf("child output %q: %w", pr.out, err)
	}
	return pr, res, nil
}

// gringo grounds the same program; its output goes to /dev/null.
func gringo(w int) (proc, bool, error) {
	path, err := exec.LookPath("gringo")
	if err != nil {
		return proc{}, false, nil
	}
	dir, err := os.MkdirTemp("", "tcgrid")
	if err != nil {
		return proc{}, true, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "tc.lp")
	f, err := os.Create(file)
	if err != nil {
		return proc{}, true, err
	}
	bw := bufio.NewWriter(f)
	for _, e := range gridEdges(w) {
		fmt.Fprintf(bw, "edge(%d,%d).\n", e[0], e[1])
	}
	bw.WriteString("path(X,Y) :- edge(X,Y).\npath(X,Z) :- path(X,Y), edge(Y,Z).\n")
	if err := bw.Flush(); err != nil {
		return proc{}, true, err
	}
	if err := f.Close(); err != nil {
		return proc{}, true, err
	}
	cmd := exec.Command(path, "--output=text", file)
	// Output discarded through a pipe would still be read; a file on
	// /dev/null costs nothing.
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return proc{}, true, err
	}
	defer null.Close()
	cmd.Stdout = null
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return proc{}, true, fmt.Errorf("gringo: %w", err)
	}
	pr := proc{wall: time.Since(t0)}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		pr.peakKB = ru.Maxrss
	}
	return pr, true, nil
}

func mb(kb int64) float64 { return float64(kb) / 1024 }

// run prints the table: ours and gringo on W×W, ours with provenance on
// provW×provW (none when 0), Soufflé's published figure for 100×100.
func run(w, provW int, withGringo bool) error {
	fmt.Printf("transitive closure, grid %d×%d (edges right and down); whole processes, peak RSS from rusage\n", w, w)
	pr, res, err := ours(w, "plain")
	if err != nil {
		return err
	}
	fmt.Printf("%-26s %10s %10s %12s %14s %14s\n", "", "wall s", "peak MB", "tuples", "B/tuple (RSS)", "B/tuple (heap)")
	row := func(name string, pr proc, res childResult) {
		fmt.Printf("%-26s %10.2f %10.1f %12d %14.1f %14.1f\n", name, pr.wall.Seconds(), mb(pr.peakKB), res.Tuples,
			float64(pr.peakKB)*1024/float64(res.Tuples), float64(res.LiveHeap)/float64(res.Tuples))
	}
	row("deloreis", pr, res)
	if withGringo {
		gp, ok, err := gringo(w)
		switch {
		case err != nil:
			return err
		case !ok:
			fmt.Println("gringo                 not installed (Debian package gringo)")
		default:
			fmt.Printf("%-26s %10.2f %10.1f %12d %14.1f\n", "gringo (same run)", gp.wall.Seconds(), mb(gp.peakKB), res.Tuples,
				float64(gp.peakKB)*1024/float64(res.Tuples))
			fmt.Printf("deloreis / gringo: wall %.2f×, peak %.2f×\n", pr.wall.Seconds()/gp.wall.Seconds(), float64(pr.peakKB)/float64(gp.peakKB))
		}
	}
	if w == 100 {
		fmt.Printf("%-26s %10s %10d %12d %14.1f   source: %s\n", "Soufflé (published)", "-", souffleMB, res.Tuples,
			float64(souffleMB)*(1<<20)/float64(res.Tuples), souffleSource)
		fmt.Printf("deloreis peak / Soufflé: %.2f× (target ≤ 1.5×)\n", mb(pr.peakKB)/souffleMB)
	} else {
		fmt.Printf("Soufflé's published figure (%d MB, %s) is for 100×100 only\n", souffleMB, souffleSource)
	}
	if provW > 0 {
		pp, rp, err := ours(provW, "prov")
		if err != nil {
			return err
		}
		fmt.Printf("\nwith provenance (a variable per edge), grid %d×%d:\n", provW, provW)
		row("deloreis provenance", pp, rp)
		if provW != w {
			pq, rq, err := ours(provW, "plain")
			if err != nil {
				return err
			}
			row("deloreis, same grid", pq, rq)
		}
	}
	return nil
}
