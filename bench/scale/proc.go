package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// sample is one whole-process figure: the median wall time and the
// median peak RSS of its runs, or why it has none.
type sample struct {
	wall time.Duration
	rss  int64         // bytes
	cpu  time.Duration // user and system CPU (of a single run; medians do not keep it)
	runs int
	err  string
}

func (s sample) ok() bool { return s.err == "" && s.runs > 0 }

// runner starts the measured processes: every one with the same
// environment, and killed when its resident memory passes maxRSS or it
// runs past maxTime, so that one runaway size cannot take the shared
// machine down nor hold the benchmark for hours (a world that does not
// fit its memory limit collects on every call).
type runner struct {
	env     []string
	maxRSS  int64
	maxTime time.Duration
}

// procResult is one finished process.
type procResult struct {
	wall time.Duration
	rss  int64         // bytes: the kernel's own peak (ru_maxrss) of the process
	cpu  time.Duration // user and system CPU, as the kernel accounted them
	err  error
}

// run runs args[0] with args[1:], its output to stdout (nil: /dev/null),
// and returns its wall time and peak RSS as the kernel accounted them.
func (r *runner) run(stdout io.Writer, args ...string) procResult {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = r.env
	var stderr tail
	cmd.Stderr = &stderr
	if stdout == nil {
		null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return procResult{err: err}
		}
		defer null.Close()
		stdout = null // an *os.File: the child writes to it directly, no copying pipe
	}
	cmd.Stdout = stdout
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return procResult{err: err}
	}
	stop := r.watch(cmd.Process)
	err := cmd.Wait()
	wall := time.Since(t0)
	killed := stop()
	res := procResult{wall: wall}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.rss = ru.Maxrss * 1024 // KiB on Linux
		res.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	switch {
	case killed != "":
		res.err = fmt.Errorf("killed: %s", killed)
	case err != nil:
		res.err = fmt.Errorf("%v: %s", err, stderr.last())
	}
	return res
}

// measure runs a command runs times and returns the medians.
func (r *runner) measure(runs int, args ...string) sample {
	var walls []time.Duration
	var rsss []int64
	for i := 0; i < runs; i++ {
		p := r.run(nil, args...)
		if p.err != nil {
			return sample{err: p.err.Error()}
		}
		walls = append(walls, p.wall)
		rsss = append(rsss, p.rss)
	}
	return sample{wall: median(walls), rss: median(rsss), runs: runs}
}

// pair runs a and b warmup times each uncounted, then runs times in
// turn (a, b, a, b …), and returns each one's medians: both see the same
// drift of the machine.
func (r *runner) pair(runs, warmup int, a, b []string) (sa, sb sample) {
	var walls [2][]time.Duration
	var rsss [2][]int64
	for i := 0; i < warmup+runs; i++ {
		for k, args := range [][]string{a, b} {
			p := r.run(nil, args...)
			if p.err != nil {
				s := sample{err: p.err.Error()}
				if k == 0 {
					return s, sample{err: "not run: " + s.err}
				}
				return sample{err: "not run: the peer failed"}, s
			}
			if i >= warmup {
				walls[k], rsss[k] = append(walls[k], p.wall), append(rsss[k], p.rss)
			}
		}
	}
	return sample{wall: median(walls[0]), rss: median(rsss[0]), runs: runs},
		sample{wall: median(walls[1]), rss: median(rsss[1]), runs: runs}
}

// once runs a command once as a sample.
func (r *runner) once(stdout io.Writer, args ...string) sample {
	p := r.run(stdout, args...)
	if p.err != nil {
		return sample{wall: p.wall, rss: p.rss, cpu: p.cpu, err: p.err.Error()}
	}
	return sample{wall: p.wall, rss: p.rss, cpu: p.cpu, runs: 1}
}

// watch polls the process's resident set every 100 ms and kills it past
// a cap; stop ends the watch and says why it killed ("" when it did not).
func (r *runner) watch(p *os.Process) (stop func() string) {
	done := make(chan struct{})
	killed := make(chan string, 1)
	start := time.Now()
	go func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				killed <- ""
				return
			case <-t.C:
				why := ""
				switch {
				case r.maxRSS > 0 && procStatus(p.Pid, "VmRSS") > r.maxRSS:
					why = fmt.Sprintf("resident memory passed the %s cap", bytesIEC(r.maxRSS))
				case r.maxTime > 0 && time.Since(start) > r.maxTime:
					why = fmt.Sprintf("it ran past the %s time cap", r.maxTime)
				}
				if why != "" {
					p.Kill()
					<-done
					killed <- why
					return
				}
			}
		}
	}()
	return func() string { close(done); return <-killed }
}

// procStatus reads one "kB" field of /proc/PID/status in bytes (0 when
// the process or the field is gone).
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	return statusField(b, field)
}

// statusField finds "FIELD:   123 kB" in a /proc status file.
func statusField(status []byte, field string) int64 {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0
		}
		kb, _ := strconv.ParseInt(f[0], 10, 64)
		return kb * 1024
	}
	return 0
}

// procCPU reads a process's user+system CPU time from /proc/PID/stat.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	return statCPU(string(b))
}

// statCPU parses utime and stime (clock ticks of 10 ms, the kernel's
// USER_HZ) out of a /proc/PID/stat line. The command name may hold
// spaces and parentheses, so the fields are counted after the last ')'.
func statCPU(stat string) time.Duration {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// median is the middle value (the upper middle of an even count).
func median[T int64 | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// percentile is the p-th percentile (0 < p <= 100) by the nearest rank.
func percentile(xs []time.Duration, p float64) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	k := int(float64(len(s))*p/100+0.999999) - 1
	return s[min(max(k, 0), len(s)-1)]
}

// tail keeps the last 4 KiB a process wrote, for an error message.
type tail struct{ b []byte }

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = t.b[len(t.b)-4096:]
	}
	return len(p), nil
}

// last is the last non-empty line written.
func (t *tail) last() string {
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
