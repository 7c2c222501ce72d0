package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/deloreis/deloreis/datalog"
)

// workload is one edge relation whose transitive closure is measured.
type workload struct {
	shape string // "grid" (size×size nodes, edges right and down) or "chain" (size nodes in a line)
	size  int
}

func (wl workload) String() string {
	if wl.shape == "chain" {
		return fmt.Sprintf("chain %d", wl.size)
	}
	return fmt.Sprintf("grid %d×%d", wl.size, wl.size)
}

// dir is the workload's folder under the work dir, named without spaces.
func (wl workload) dir(workdir string) string {
	return filepath.Join(workdir, fmt.Sprintf("%s-%d", wl.shape, wl.size))
}

func (wl workload) edges() ([][2]int, error) {
	switch wl.shape {
	case "grid":
		return gridEdges(wl.size), nil
	case "chain":
		return chainEdges(wl.size), nil
	}
	return nil, fmt.Errorf("unknown workload shape %q (grid or chain)", wl.shape)
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

func chainEdges(n int) [][2]int {
	var es [][2]int
	for i := 0; i+1 < n; i++ {
		es = append(es, [2]int{i, i + 1})
	}
	return es
}

// writeLines writes one line per edge, formatted by line, to file.
func writeLines(file string, es [][2]int, line func(*bufio.Writer, [2]int), tail string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	for _, e := range es {
		line(bw, e)
	}
	bw.WriteString(tail)
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// childResult is what a child prints on its last line.
type childResult struct {
	Tuples   int     `json:"tuples"`
	EvalSec  float64 `json:"eval_s"`
	LiveHeap uint64  `json:"live_heap"` // heap in use after evaluation, model alive
}

// tcProgram is TC over the workload's edges: path(X,Y) :- edge(X,Y) and
// path(X,Z) :- path(X,Y), edge(Y,Z), with a variable per edge under prov.
func tcProgram(wl workload, prov bool) (*datalog.Program, error) {
	es, err := wl.edges()
	if err != nil {
		return nil, err
	}
	p := datalog.NewProgram()
	for i, e := range es {
		sup := datalog.One()
		if prov {
			sup = datalog.VarPoly("e" + strconv.Itoa(i))
		}
		if err := p.AddFact("edge", []string{strconv.Itoa(e[0]), strconv.Itoa(e[1])}, sup); err != nil {
			return nil, err
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
			return nil, err
		}
	}
	return p, nil
}

// runChild evaluates TC once and prints a childResult as JSON.
func runChild(wl workload, prov bool, memprof, cpuprof string) {
	p, err := tcProgram(wl, prov)
	if err != nil {
		fail(err)
	}
	if cpuprof != "" {
		f, err := os.Create(cpuprof)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer f.Close()
	}
	t0 := time.Now()
	m, err := p.Eval()
	if cpuprof != "" {
		pprof.StopCPUProfile()
	}
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
