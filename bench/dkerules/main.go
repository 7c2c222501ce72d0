// Command dkerules measures DKE's standing rules as whole processes (issue
// 34, goal 4), through the service a server runs, over a lorestore in a
// temporary folder:
//
//   - repeat: a rule over N claims (Item.i<k>.qty, default 100,000) and a
//     query of its conclusions run again and again: the first run builds the
//     rule model, the next ones start from the model carried at the commit
//     (per run: median and 90th percentile; goal < 50 ms); then runs that
//     each write one claim the rule reads and query it (a commit each);
//   - compare: a rule comparing two variables (x < y, each item binding
//     both) over 1k, 10k and 100k distinct values, one query run building
//     the model from scratch (goal: 10k in well under a second, memory
//     linear in the claims).
//
// Each measurement is two child processes (this binary re-executed with
// -child): one seeds the store and exits, and a fresh one opens it, loads
// its claims with a run that reads no rule, and measures. A line gives
// the measured runs' wall time, their CPU (user and system, the
// collector's included: on a shared machine the wall time says less),
// the bytes they allocated, the resident memory before them and its peak
// during them (VmHWM, restarted before them), and the measuring process's
// peak RSS (ru_maxrss).
//
//	go run ./bench/dkerules                 # both, default sizes
//	go run ./bench/dkerules -what compare -values 1000,10000,100000
//	go run ./bench/dkerules -what repeat -claims 100000 -runs 50
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/deloreis/deloreis/dke/service"
)

// cpuProfile is where a child writes the CPU profile of its measured runs.
var cpuProfile string

// Rules of the two measurements.
const (
	bigRule = "@rule\ndef big(i, q):\n    if Item[i].qty == q and q > 97:\n        Item[i].big = True\n"
	cmpRule = "@rule\ndef ordered(i, x, y):\n    if Item[i].a == x and Item[i].b == y and x < y:\n        Item[i].ordered = True\n"
)

func main() {
	what := flag.String("what", "repeat,compare", "measurements: repeat, compare, or both")
	claims := flag.Int("claims", 100_000, "claims of the repeated query")
	runs := flag.Int("runs", 20, "runs of the repeated query (and of the write then query)")
	values := flag.String("values", "1000,10000,100000", "distinct values of the comparison, comma-separated")
	child := flag.String("child", "", "internal: run one measurement (repeat:N or compare:N) and print it")
	dir := flag.String("dir", "", "internal: the folder of a child's lorestore")
	flag.StringVar(&cpuProfile, "cpuprofile", "", "with -child: write a CPU profile of the measured runs to this file")
	flag.Parse()
	if *child != "" {
		if err := measure(*dir, *child, *runs); err != nil {
			fmt.Fprintln(os.Stderr, "dkerules:", err)
			os.Exit(1)
		}
		return
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("bench dkerules: %s, %d CPUs, GOMAXPROCS %d, load %s\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		runtime.NumCPU(), runtime.GOMAXPROCS(0), strings.Join(strings.Fields(string(load))[:3], " "))
	failed := false
	if strings.Contains(*what, "repeat") {
		failed = !parent(fmt.Sprintf("repeat:%d", *claims), *runs) || failed
	}
	if strings.Contains(*what, "compare") {
		for _, v := range strings.Split(*values, ",") {
			failed = !parent("compare:"+strings.TrimSpace(v), *runs) || failed
		}
	}
	if failed {
		os.Exit(1)
	}
}

// parent runs one measurement: a child seeds a store in a temporary
// folder and exits, and a second child, a fresh process, opens it and
// measures; it prints the second's lines with its peak RSS.
func parent(child string, runs int) bool {
	self, err := os.Executable()
	if err == nil {
		var dir string
		if dir, err = os.MkdirTemp("", "dkerules-"); err == nil {
			defer os.RemoveAll(dir)
			var out bytes.Buffer
			var rss int64
			if _, err = start(self, &out, "-dir", dir, "-child", "seed:"+child); err == nil {
				out.Reset()
				rss, err = start(self, &out, "-dir", dir, "-child", child, "-runs", strconv.Itoa(runs))
			}
			if err == nil {
				sc := bufio.NewScanner(&out)
				for sc.Scan() {
					fmt.Printf("%s  process peak RSS %4d MiB\n", sc.Text(), rss>>20)
				}
				return true
			}
		}
	}
	fmt.Fprintf(os.Stderr, "dkerules: %s: %v\n", child, err)
	return false
}

// start runs self with args, its output to out, and returns its peak RSS
// as the kernel accounted it.
func start(self string, out *bytes.Buffer, args ...string) (int64, error) {
	cmd := exec.Command(self, args...)
	cmd.Stdout, cmd.Stderr = out, os.Stderr
	if err := cmd.Run(); err != nil {
		return 0, err
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024, nil // KiB on Linux
	}
	return 0, nil
}

// measure is a child's work, over the lorestore at dir: "seed:repeat:N"
// and "seed:compare:N" make it, "repeat:N" and "compare:N" print one line
// of figures.
func measure(dir, child string, runs int) error {
	child, seed := strings.CutPrefix(child, "seed:")
	kind, arg, _ := strings.Cut(child, ":")
	n, err := strconv.Atoi(arg)
	if err != nil {
		return err
	}
	o := service.OpenOptions{StoreDir: dir + "/lore", Authority: "bench", Budget: service.Budget{Time: -1, Memory: 1 << 30}}
	open := service.Open
	if seed {
		open = service.Init
	}
	svc, err := open(o)
	if err != nil {
		return err
	}
	defer svc.Close()
	b := &bench{svc: svc, ctx: context.Background()}
	switch {
	case kind == "repeat" && seed:
		return b.seedRepeat(n)
	case kind == "repeat":
		return b.repeat(n, runs)
	case kind == "compare" && seed:
		return b.seedCompare(n)
	case kind == "compare":
		return b.compare(n)
	}
	return fmt.Errorf("no measurement %q", kind)
}

type bench struct {
	svc *service.Service
	ctx context.Context
}

// run runs a program and fails unless it succeeded and printed want
// ("" for no check).
func (b *bench) run(src, want string) error {
	r, err := b.svc.Run(b.ctx, &service.RunParams{Source: src})
	if err != nil {
		return err
	}
	if !strings.HasPrefix(r.Text, "OK") || want != "" && !strings.Contains(r.Text, "print: "+want) {
		return fmt.Errorf("run answered %.300s, want print: %s", r.Text, want)
	}
	return nil
}

// seed writes the claims line(k) for k < n, 5,000 a run.
func (b *bench) seed(n int, line func(k int) string) error {
	var src strings.Builder
	for k := range n {
		src.WriteString(line(k))
		if (k+1)%5000 == 0 || k == n-1 {
			if err := b.run(src.String(), ""); err != nil {
				return err
			}
			src.Reset()
		}
	}
	return nil
}

func (b *bench) compile(src string) error {
	_, err := b.svc.Compile(b.ctx, &service.CompileParams{Name: "rules", Source: &src})
	return err
}

// timed runs a program n times and returns each run's wall time.
func (b *bench) timed(n int, src func(i int) (string, string)) ([]time.Duration, error) {
	ds := make([]time.Duration, 0, n)
	for i := range n {
		s, want := src(i)
		t0 := time.Now()
		if err := b.run(s, want); err != nil {
			return nil, err
		}
		ds = append(ds, time.Since(t0))
	}
	return ds, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// pct is the p-th percentile of ds (sorted in place).
func pct(ds []time.Duration, p int) time.Duration {
	slices.Sort(ds)
	return ds[min(len(ds)-1, len(ds)*p/100)]
}

// seedRepeat writes n claims Item.i<k>.qty = k mod 100 and the rule
// concluding Item.*.big.
func (b *bench) seedRepeat(n int) error {
	if err := b.seed(n, func(k int) string { return fmt.Sprintf("remember(Item.i%d.qty, %d, \"seed\")\n", k, k%100) }); err != nil {
		return err
	}
	return b.compile(bigRule)
}

// repeat is the repeated query over the claims seedRepeat wrote: the
// first run builds the rule model, the next ones start from it; then
// runs that each write a claim the rule reads and query it.
func (b *bench) repeat(n, runs int) error {
	if err := b.warm(); err != nil {
		return err
	}
	query := "print(current(Item.i98.big).found, current(Item.i5.big).found)\n"
	var first, again, writes []time.Duration
	m := b.measured(func() (err error) {
		if first, err = b.timed(1, func(int) (string, string) { return query, "True False" }); err != nil {
			return err
		}
		if again, err = b.timed(runs, func(int) (string, string) { return query, "True False" }); err != nil {
			return err
		}
		writes, err = b.timed(runs, func(i int) (string, string) {
			k, q, want := (i*7919)%n, 98+i%2, "True"
			if i%4 >= 2 {
				q, want = i%90, "False"
			}
			return fmt.Sprintf("update(Item.i%d.qty, %d, \"w\")\nprint(current(Item.i%d.big).found)\n", k, q, k), want
		})
		return err
	})
	if m.err != nil {
		return m.err
	}
	fmt.Printf("repeat  %7d claims  first run (builds the model) %7.1f ms  repeated query: median %6.2f ms, p90 %6.2f ms (%d runs)  write+query: median %6.2f ms, p90 %6.2f ms  %s\n",
		n, ms(first[0]), ms(pct(again, 50)), ms(pct(again, 90)), runs, ms(pct(writes, 50)), ms(pct(writes, 90)), m)
	return nil
}

// compareValue is item i's a and b: n/2 items, every value distinct,
// about half the items ordered (a < b).
func compareValue(items, i int) (int, float64) { return 2 * i, float64((i*7919)%items)*2 + 0.5 }

// seedCompare writes n distinct values, a and b of n/2 items, and the
// rule comparing them.
func (b *bench) seedCompare(n int) error {
	items := max(n/2, 1)
	err := b.seed(items, func(i int) string {
		a, bb := compareValue(items, i)
		return fmt.Sprintf("remember(Item.i%d.a, %d, \"seed\")\nremember(Item.i%d.b, %g, \"seed\")\n", i, a, i, bb)
	})
	if err != nil {
		return err
	}
	return b.compile(cmpRule)
}

// compare is one query of the comparison rule over the values
// seedCompare wrote, the rule model built from scratch.
func (b *bench) compare(n int) error {
	items := max(n/2, 1)
	want := func(i int) string {
		a, bb := compareValue(items, i)
		return map[bool]string{true: "True", false: "False"}[float64(a) < bb]
	}
	if err := b.warm(); err != nil {
		return err
	}
	last := items - 1
	query := fmt.Sprintf("print(current(Item.i1.ordered).found, current(Item.i%d.ordered).found)\n", last)
	var wall time.Duration
	m := b.measured(func() error {
		t0 := time.Now()
		err := b.run(query, want(1)+" "+want(last))
		wall = time.Since(t0)
		return err
	})
	if m.err != nil {
		return m.err
	}
	fmt.Printf("compare %7d values (%6d items, x < y)  query run (builds the model) %7.1f ms  %s\n", n, items, ms(wall), m)
	return nil
}

// warm loads the store's claims into the service's index with a run
// that reads a claim and no rule, so that a measured run pays for the
// rules alone.
func (b *bench) warm() error { return b.run("print(current(Item.i0.nothing).found)\n", "False") }

// figures are the memory of measured runs: the bytes they allocated and
// how far the resident memory rose above where it was before them.
type figures struct {
	cpu                     time.Duration // user and system, the process's, collector included
	alloc, rssFrom, rssPeak int64
	err                     error
}

func (f figures) String() string {
	return fmt.Sprintf("CPU %7.1f ms  allocated %7.1f MiB  RSS %4d -> peak %4d MiB", ms(f.cpu), float64(f.alloc)/(1<<20), f.rssFrom>>20, f.rssPeak>>20)
}

// cpuTime is the process's user and system CPU so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measured runs fn after a collection that hands the free heap back to
// the system, with the kernel's peak (VmHWM) restarted, and returns the
// CPU it took (on a machine shared with other work, its wall time says
// less), what it allocated and the peak.
func (b *bench) measured(fn func() error) figures {
	debug.FreeOSMemory()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f := figures{rssFrom: procStatus("VmRSS")}
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	stop := profile()
	cpu := cpuTime()
	f.err = fn()
	f.cpu = cpuTime() - cpu
	stop()
	runtime.ReadMemStats(&after)
	f.alloc, f.rssPeak = int64(after.TotalAlloc-before.TotalAlloc), procStatus("VmHWM")
	return f
}

// profile starts the CPU profile, when asked for, and returns its stop.
func profile() func() {
	if cpuProfile == "" {
		return func() {}
	}
	f, err := os.Create(cpuProfile)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "dkerules:", err)
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// procStatus reads a memory figure of /proc/self/status, in bytes.
func procStatus(field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}
