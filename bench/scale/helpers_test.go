package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/base/phases"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func TestParseSizes(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		bad  bool
	}{
		{in: "1M,3M", want: []int{1_000_000, 3_000_000}},
		{in: "100k", want: []int{100_000}},
		{in: "10M", want: []int{10_000_000}},
		{in: "1M 3M  10M", want: []int{1_000_000, 3_000_000, 10_000_000}},
		{in: "2.5M,250K,12345", want: []int{2_500_000, 250_000, 12345}},
		{in: "", bad: true},
		{in: "1G", bad: true},
		{in: "-1M", bad: true},
		{in: "99", bad: true},
	}
	for _, tt := range tests {
		got, err := parseSizes(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("parseSizes(%q) = %v, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || len(got) != len(tt.want) {
			t.Fatalf("parseSizes(%q) = %v, %v", tt.in, got, err)
		}
		for i, s := range got {
			if s.n != tt.want[i] {
				t.Errorf("parseSizes(%q)[%d] = %d, want %d", tt.in, i, s.n, tt.want[i])
			}
		}
	}
}

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"6G", 6 << 30}, {"512M", 512 << 20}, {"800K", 800 << 10}, {"4096", 4096}, {"0", 0}, {"G", 0}, {"1.5G", 0},
	}
	for _, tt := range tests {
		got, err := parseBytes(tt.in)
		if (err != nil) != (tt.want == 0) || got != tt.want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestParseGCLine(t *testing.T) {
	tests := []struct {
		line string
		at   time.Duration
		cpu  time.Duration // the STW phases + assist + background, idle left out
		ok   bool
	}{
		{"gc 1 @0.070s 0%: 0.32+4.8+0.011 ms clock, 0.65+0/0.46/0.26+0.023 ms cpu, 4->4->2 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P",
			70 * time.Millisecond, 1133 * time.Microsecond, true},
		{"gc 12 @31.5s 9%: 2.3+2.0+0.005 ms clock, 4.6+1.5/1.7/9+0.010 ms cpu, 5->5->5 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P",
			31500 * time.Millisecond, 7810 * time.Microsecond, true},
		{"gc 1 @0.070s 0%: 0.32+4.8 ms clock, 0.65+0.46+0.023 ms cpu, 4->4->2 MB", 0, 0, false},
		{"deloreis: something went wrong", 0, 0, false},
		{"gc 3 @x 1%: 0.1+0.1+0.1 ms clock, 0.1+0/0/0+0.1 ms cpu, 1->1->1 MB, 2 MB goal, 2 P", 0, 0, false},
	}
	for _, tt := range tests {
		e, ok := parseGCLine(tt.line)
		if ok != tt.ok || e.at != tt.at || (e.cpu-tt.cpu).Abs() > time.Microsecond {
			t.Errorf("parseGCLine(%q) = %+v, %v; want at %v cpu %v, %v", tt.line, e, ok, tt.at, tt.cpu, tt.ok)
		}
	}
}

func TestGCLogBetween(t *testing.T) {
	g := &gcLog{}
	g.wg.Add(1)
	g.read(bytes.NewBufferString("gc 1 @0.5s 0%: 0+0+0 ms clock, 1+1/0/5+1 ms cpu, 1->1->1 MB, 2 MB goal, 2 P\n" +
		"deloreis: warming up\n" +
		"gc 2 @1.5s 0%: 0+0+0 ms clock, 2+2/2/5+2 ms cpu, 1->1->1 MB, 2 MB goal, 2 P\n" +
		"gc 3 @2.5s 0%: 0+0+0 ms clock, 4+0/0/0+0 ms cpu, 1->1->1 MB, 2 MB goal, 2 P\n"))
	cpu, n := g.between(time.Second, 2500*time.Millisecond)
	if cpu != 8*time.Millisecond || n != 1 {
		t.Errorf("between(1s, 2.5s) = %v, %d; want 8ms, 1", cpu, n)
	}
	if g.last() != "deloreis: warming up" {
		t.Errorf("last other line = %q", g.last())
	}
}

func TestStatParsers(t *testing.T) {
	stat := "21232 (a (weird) name) R 21218 21218 9040 0 -1 4194304 98 0 0 0 250 37 0 0 20 0 1 0 890267 3133440 410"
	if got := statCPU(stat); got != 2870*time.Millisecond {
		t.Errorf("statCPU = %v, want 2.87s", got)
	}
	if got := statCPU("garbage"); got != 0 {
		t.Errorf("statCPU(garbage) = %v", got)
	}
	status := []byte("Name:\tdeloreis\nVmPeak:\t 9000 kB\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n")
	for field, want := range map[string]int64{"VmHWM": 2 << 20, "VmRSS": 1 << 20, "VmSwap": 0} {
		if got := statusField(status, field); got != want {
			t.Errorf("statusField(%s) = %d, want %d", field, got, want)
		}
	}
}

func TestPercentileMedian(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // 100 … 1, unsorted on purpose
	}
	tests := []struct {
		xs   []time.Duration
		p    float64
		want time.Duration
	}{
		{ms(hundred...), 50, 50 * time.Millisecond},
		{ms(hundred...), 99, 99 * time.Millisecond},
		{ms(hundred...), 100, 100 * time.Millisecond},
		{ms(3, 1, 2), 50, 2 * time.Millisecond},
		{ms(7), 99, 7 * time.Millisecond},
		{nil, 50, 0},
	}
	for _, tt := range tests {
		if got := percentile(tt.xs, tt.p); got != tt.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", tt.xs, tt.p, got, tt.want)
		}
	}
	if got := median([]int64{5, 1, 9, 3}); got != 5 {
		t.Errorf("median = %d, want 5", got)
	}
}

func TestDescribeCache(t *testing.T) {
	before := map[string]int64{"objects/pack/a.pack": 10, "HEAD": 1}
	if got := describeCache(before, before); got != "none persisted (the first open left no file in the store), so this open compiles again" {
		t.Errorf("no new file: %q", got)
	}
	after := map[string]int64{"objects/pack/a.pack": 10, "HEAD": 1, "deloreis/worlds/ab/w1": 1_500_000, "deloreis/worlds/ab/w2": 500_000}
	if got, want := describeCache(before, after), "the first open left 2 files, 2.0 MB, under .lore/{deloreis/worlds/ab}"; got != want {
		t.Errorf("describeCache = %q, want %q", got, want)
	}
}

// TestPrintSizeGolden pins the table's layout on fixed figures.
func TestPrintSizeGolden(t *testing.T) {
	s := func(ms int, mib int64, runs int) sample {
		return sample{wall: time.Duration(ms) * time.Millisecond, rss: mib << 20, runs: runs}
	}
	adds := make([]time.Duration, 1000)
	for i := range adds {
		adds[i] = time.Duration(50+i) * time.Microsecond
	}
	r := &sizeResult{
		label: "100k", decls: 100_018, persons: 10_000, fileBytes: 4_213_793, load: "1.25 1.52 1.98", importFlags: "--materialize",
		build: s(2700, 362, 1), openFirst: s(1160, 195, 1), again: s(1150, 194, 4), importDry: s(1180, 201, 4),
		cache: "none persisted (the first open left no file in the store), so this open compiles again",
		serve: serveResult{openCold: 1210 * time.Millisecond, openWarm: 2500 * time.Microsecond, rssOpen: 206 << 20,
			rssOpenNow: 150 << 20, touch: 42 * time.Millisecond, rssTouched: 171 << 20,
			adds: adds, gcShare: 0.123, gcs: 7, rssAdds: 304 << 20, materialize: 850 * time.Millisecond,
			openNew: 1800 * time.Millisecond, rssEnd: 402 << 20},
		log: s(34, 17, 5), gitLog: s(2, 8, 5), show: s(28, 26, 5), gitShow: sample{err: "exit status 128: fatal: bad revision"},
		bigRev: "main~1", showBig: sample{err: "killed: resident memory passed the 6.00 GiB cap"}, gitShowBig: s(420, 60, 5),
		disk: diskResult{store: 21_900_000, repacked: 18_100_000, repack: s(3170, 53, 1)},
		cpus: "2 CPUs",
		phases: []phases.Span{ // as a process writes them: in the order they ended
			{Name: "read: list the scope's trees", Start: 20 * time.Millisecond, End: 130 * time.Millisecond},
			{Name: "read: pack sweep and decode", Start: 130 * time.Millisecond, End: 480 * time.Millisecond},
			{Name: "world: lower", Start: 510 * time.Millisecond, End: 800 * time.Millisecond},
			{Name: "world: entry checks", Start: 510 * time.Millisecond, End: 700 * time.Millisecond},
			{Name: "world: evaluate", Start: 800 * time.Millisecond, End: 1010 * time.Millisecond},
			{Name: "compile: read, index, lower, evaluate, check", Start: 20 * time.Millisecond, End: 1015 * time.Millisecond},
			{Name: "world file: write, in all", Start: 510 * time.Millisecond, End: 1100 * time.Millisecond},
		},
	}
	r.openFirst.cpu = 1900 * time.Millisecond
	var b bytes.Buffer
	printSize(&b, r)
	golden := filepath.Join("testdata", "table-100k.golden")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("table differs from %s:\n%s", golden, b.String())
	}
}

func TestFormatters(t *testing.T) {
	tests := []struct{ got, want string }{
		{dur(27 * time.Second), "27.0 s"}, {dur(8500 * time.Millisecond), "8.50 s"}, {dur(31 * time.Millisecond), "31 ms"},
		{dur(2500 * time.Microsecond), "2.5 ms"}, {dur(80 * time.Microsecond), "0.080 ms"},
		{bytesIEC(2200 << 20), "2.15 GiB"}, {bytesIEC(237 << 20), "237 MiB"},
		{bytesSI(21_656_312), "21.7 MB"}, {bytesSI(1_500_000_000), "1.50 GB"},
		{thousands(10_000_018), "10,000,018"}, {thousands(999), "999"}, {thousands(1000), "1,000"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// TestPrintServeGCUnknown: too short an add window prints no GC share.
func TestPrintServeGCUnknown(t *testing.T) {
	var b bytes.Buffer
	printServe(&b, &sizeResult{serve: serveResult{adds: []time.Duration{time.Millisecond}, gcShare: -1}})
	if !strings.Contains(b.String(), "GC share not measured: under 200ms of CPU") || strings.Contains(b.String(), "GC -100%") {
		t.Errorf("got %s", b.String())
	}
}

func TestSessionAnswered(t *testing.T) {
	tests := []struct {
		calls map[string]int
		want  string
	}{
		{map[string]int{}, "before any answer"},
		{map[string]int{"author.open": 2, "author.add_fact": 17}, "with 17 author.add_fact, 2 author.open answered,"},
	}
	for _, tt := range tests {
		if got := (&session{calls: tt.calls}).answered(); got != tt.want {
			t.Errorf("answered() = %q, want %q", got, tt.want)
		}
	}
}
