package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// sample is one finished child process.
type sample struct {
	wall     time.Duration
	cpu      time.Duration // user plus system time of the child (rusage)
	peakKB   int64         // Linux: rusage Maxrss is in KiB
	tuples   int           // path tuples the contestant reported; -1 when it does not say
	liveHeap uint64        // ours only: live heap after evaluation
}

// contestant is one program measured on one workload.
type contestant struct {
	key  string // ours1, ours2, pair1, souffle1, souffle2, interp, gringo
	name string
	once bool // slow peers: measured in the first repetition only
	run  func() (sample, error)
}

// measure runs cmd to completion, its standard output to out (nil:
// /dev/null, which costs the child nothing, unlike a pipe that is read),
// and reads its CPU time and peak RSS from rusage.
func measure(cmd *exec.Cmd, out io.Writer) (sample, error) {
	if out == nil {
		null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return sample{}, err
		}
		defer null.Close()
		out = null
	}
	cmd.Stdout = out
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %w: %s", strings.Join(cmd.Args, " "), err, lastLines(stderr.String(), 5))
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return sample{}, fmt.Errorf("%s: no rusage", cmd.Path)
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return sample{wall: wall, cpu: cpu, peakKB: ru.Maxrss, tuples: -1}, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ours is this binary re-executed as a child on wl; procs sets the
// child's GOMAXPROCS (0: left as the environment has it).
func ours(wl workload, mode string, procs int) contestant {
	name := "ours"
	if mode == "prov" {
		name += " provenance"
	}
	if procs > 0 {
		name += fmt.Sprintf(" GOMAXPROCS=%d", procs)
	}
	return contestant{key: "ours" + strconv.Itoa(procs), name: name, run: func() (sample, error) {
		self, err := os.Executable()
		if err != nil {
			return sample{}, err
		}
		cmd := exec.Command(self, "-child", mode, "-shape", wl.shape, "-n", strconv.Itoa(wl.size))
		if procs > 0 {
			// The last of duplicate keys wins (os/exec).
			cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs))
		}
		var out bytes.Buffer
		s, err := measure(cmd, &out)
		if err != nil {
			return s, err
		}
		var res childResult
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			return s, fmt.Errorf("child output %q: %w", out.Bytes(), err)
		}
		s.tuples, s.liveHeap = res.Tuples, res.LiveHeap
		return s, nil
	}}
}

// pairOfOurs is two runs of ours at GOMAXPROCS=1 at once, its sample the
// slower one's: a control of the machine, not a contestant. Where two
// single-core runs slow each other (virtual cores that share a physical
// core, its caches or its memory bandwidth), ours at GOMAXPROCS=2 slows
// down alike, and that bounds the 2-core ratio whatever the code does.
func pairOfOurs(wl workload) contestant {
	one := ours(wl, "plain", 1)
	return contestant{key: "pair1", name: "ours GOMAXPROCS=1, 2 at once", run: func() (sample, error) {
		var ss [2]sample
		var errs [2]error
		var wg sync.WaitGroup
		for i := range ss {
			wg.Go(func() { ss[i], errs[i] = one.run() })
		}
		wg.Wait()
		if err := errors.Join(errs[:]...); err != nil {
			return sample{}, err
		}
		if ss[1].wall > ss[0].wall {
			return ss[1], nil
		}
		return ss[0], nil
	}}
}

// souffleTC is TC in Soufflé's language: edge read from edge.facts in the
// -F folder, path's size printed rather than its tuples written, so that
// Soufflé, like ours, pays for evaluation and not for output.
const souffleTC = `.decl edge(x:number, y:number)
.input edge
.decl path(x:number, y:number)
.printsize path
path(x, y) :- edge(x, y).
path(x, z) :- path(x, y), edge(y, z).
`

// souffle is a souffle binary on PATH and TC compiled by it.
type souffle struct {
	exe, dl, bin string
	compile      time.Duration
}

// prepareSouffle writes tc.dl under workdir and compiles it with
// `souffle -o`; nil when no souffle binary is on PATH.
func prepareSouffle(workdir string) (*souffle, error) {
	exe, err := exec.LookPath("souffle")
	if err != nil {
		return nil, nil
	}
	dir := filepath.Join(workdir, "souffle")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	sf := &souffle{exe: exe, dl: filepath.Join(dir, "tc.dl"), bin: filepath.Join(dir, "tc")}
	if err := os.WriteFile(sf.dl, []byte(souffleTC), 0o644); err != nil {
		return nil, err
	}
	t0 := time.Now()
	if out, err := exec.Command(exe, "-o", sf.bin, sf.dl).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("souffle -o %s: %w: %s", sf.bin, err, lastLines(string(out), 10))
	}
	sf.compile = time.Since(t0)
	return sf, nil
}

// compiled runs the compiled program with -j jobs on the facts in dir.
func (sf *souffle) compiled(dir string, jobs int) contestant {
	name := fmt.Sprintf("Soufflé compiled -j%d", jobs)
	return contestant{key: "souffle" + strconv.Itoa(jobs), name: name, run: func() (sample, error) {
		return sf.measure(exec.Command(sf.bin, "-j"+strconv.Itoa(jobs), "-F", dir))
	}}
}

// interpreter runs tc.dl in Soufflé's interpreter, once: it is the slowest
// of Soufflé's ways and says nothing the compiled runs do not.
func (sf *souffle) interpreter(dir string) contestant {
	return contestant{key: "interp", name: "Soufflé interpreter -j1", once: true, run: func() (sample, error) {
		return sf.measure(exec.Command(sf.exe, "-j1", "-F", dir, sf.dl))
	}}
}

func (sf *souffle) measure(cmd *exec.Cmd) (sample, error) {
	var out bytes.Buffer
	s, err := measure(cmd, &out)
	if err != nil {
		return s, err
	}
	s.tuples, err = parsePrintSize(out.String(), "path")
	return s, err
}

// parsePrintSize reads the count `.printsize rel` prints: "rel\tN".
func parsePrintSize(out, rel string) (int, error) {
	for line := range strings.SplitSeq(out, "\n") {
		if n, ok := strings.CutPrefix(line, rel+"\t"); ok {
			return strconv.Atoi(strings.TrimSpace(n))
		}
	}
	return 0, fmt.Errorf("no %q size in Soufflé's output %q", rel, lastLines(out, 3))
}

// writeSouffleFacts writes edge.facts (tab-separated) into dir.
func writeSouffleFacts(dir string, es [][2]int) error {
	return writeLines(filepath.Join(dir, "edge.facts"), es, func(bw *bufio.Writer, e [2]int) {
		fmt.Fprintf(bw, "%d\t%d\n", e[0], e[1])
	}, "")
}

// gringo grounds the same program from tc.lp in dir, once (it is the
// slowest contestant by far); its output goes to /dev/null.
func gringo(exe, dir string) contestant {
	return contestant{key: "gringo", name: "gringo", once: true, run: func() (sample, error) {
		return measure(exec.Command(exe, "--output=text", filepath.Join(dir, "tc.lp")), nil)
	}}
}

func writeGringoProgram(dir string, es [][2]int) error {
	return writeLines(filepath.Join(dir, "tc.lp"), es, func(bw *bufio.Writer, e [2]int) {
		fmt.Fprintf(bw, "edge(%d,%d).\n", e[0], e[1])
	}, "path(X,Y) :- edge(X,Y).\npath(X,Z) :- path(X,Y), edge(Y,Z).\n")
}
