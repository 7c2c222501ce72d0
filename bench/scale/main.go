// Command scale is `make bench-scale` (issue 13): for each size it builds
// a lorestore of N lore objects in one commit through the user path
// (`deloreis import --materialize` of a generated .dli file), with a world
// of 18 rules with a recursion and negations, and prints a table: build
// time and peak RSS, a cold open with and without a compiled world
// (`deloreis check`, and `author.open` through `deloreis serve` over
// stdio), staged add p50/p99 with the GC's share of the CPU, `log -n 2`
// and `show` beside git's on the same store, and bytes per object on disk
// beside `git repack -adf` of a copy.
//
//	go run ./bench/scale -scale 1M,3M       (make bench-scale)
//	go run ./bench/scale -scale 100k        (a quick run)
//	go run ./bench/scale -scale 10M -first 3 (the first compile alone, 3 times, over a kept store)
//
// Every figure is a whole process's, the kernel's own accounting of it
// (wall time, ru_maxrss), as /usr/bin/time -v reports them; a process
// whose resident memory passes -maxrss is killed and its row says so.
// Stores are written under -work, inside the checkout (DL-0017).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// config is the command line.
type config struct {
	sizes   []size
	work    string
	bin     string
	adds    int
	runs    int
	maxRSS  int64
	maxTime time.Duration
	keep    bool
	// importFlags are the build's flags for `deloreis import`.
	importFlags []string
	repack      bool   // measure bytes per object against git repack -adf
	buildBin    string // the binary of the build step alone (default: bin)
	first       int    // -first: the first compile alone, this many times, over a kept store
}

// size is one store size: its label and object count.
type size struct {
	label string
	n     int
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale:", err)
		os.Exit(2)
	}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (*config, error) {
	fs := flag.NewFlagSet("bench-scale", flag.ContinueOnError)
	scale := fs.String("scale", "1M,3M", "sizes in lore objects, comma or space separated: 100k, 1M, 3M, 10M or a number")
	cfg := &config{}
	fs.StringVar(&cfg.work, "work", ".benchtmp/scale", "folder for the stores (inside the checkout: DL-0017)")
	fs.StringVar(&cfg.bin, "bin", "", "deloreis binary to measure (default: go build ./cmd/deloreis into -work)")
	fs.StringVar(&cfg.buildBin, "build-bin", "", "deloreis binary of the build step alone (default: -bin)")
	fs.IntVar(&cfg.adds, "adds", 5000, "staged adds timed through deloreis serve")
	fs.IntVar(&cfg.runs, "runs", 0, "runs of each cold-process figure (default 5 below 1M objects, else 3)")
	maxRSS := fs.String("maxrss", "6G", "kill a measured process whose resident memory passes this (K, M, G)")
	fs.DurationVar(&cfg.maxTime, "maxtime", 45*time.Minute, "kill a measured process that runs longer than this")
	fs.BoolVar(&cfg.keep, "keep", false, "keep each size's store and .dli file")
	importFlags := fs.String("import-flags", "--bulk --materialize", "flags of the build's `deloreis import` (space separated)")
	fs.BoolVar(&cfg.repack, "repack", true, "measure bytes per object against `git repack -adf` of a copy (slow at 10M)")
	fs.IntVar(&cfg.first, "first", 0, "measure only the first compile (check with no world file), this many times, over the store an earlier -keep run left (built and kept when there is none)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	cfg.importFlags = strings.Fields(*importFlags)
	var err error
	if cfg.sizes, err = parseSizes(*scale); err != nil {
		return nil, err
	}
	if cfg.maxRSS, err = parseBytes(*maxRSS); err != nil {
		return nil, err
	}
	if cfg.adds < 1 || cfg.runs < 0 || cfg.first < 0 {
		return nil, errors.New("-adds must be positive, -runs and -first not negative")
	}
	return cfg, nil
}

// parseSizes reads "100k,1M 3M".
func parseSizes(s string) ([]size, error) {
	var out []size
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		n, err := parseCount(f)
		if err != nil {
			return nil, fmt.Errorf("size %q: %v", f, err)
		}
		if n < 100 {
			return nil, fmt.Errorf("size %q: under 100 objects", f)
		}
		out = append(out, size{label: f, n: n})
	}
	if len(out) == 0 {
		return nil, errors.New("no size given")
	}
	return out, nil
}

// parseCount reads 100k, 1M, 2.5M or 12345.
func parseCount(s string) (int, error) {
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mult, s = 1e3, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1e6, s[:len(s)-1]
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 {
		return 0, errors.New("not a positive count")
	}
	return int(v * mult), nil
}

// parseBytes reads 6G, 512M, 800K or a plain byte count (binary units).
func parseBytes(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("memory cap %q: not a positive size", s)
	}
	return v * mult, nil
}

func run(cfg *config) error {
	if err := os.MkdirAll(cfg.work, 0o755); err != nil {
		return err
	}
	work, err := filepath.Abs(cfg.work)
	if err != nil {
		return err
	}
	cfg.work = work
	if cfg.bin == "" {
		cfg.bin = filepath.Join(cfg.work, "deloreis")
		if err := buildDeloreis(cfg.bin); err != nil {
			return err
		}
	}
	r := &runner{env: benchEnv(), maxRSS: cfg.maxRSS, maxTime: cfg.maxTime}
	fmt.Printf("bench-scale: %s, %s, %d CPUs; whole processes (wall, peak RSS); medians where runs > 1\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), runtime.Version(), runtime.NumCPU())
	for _, sz := range cfg.sizes {
		if cfg.first > 0 {
			if _, err := firstOnly(cfg, r, sz, os.Stdout); err != nil {
				return fmt.Errorf("%s: %w", sz.label, err)
			}
			continue
		}
		res, err := runSize(cfg, r, sz)
		if err != nil {
			return fmt.Errorf("%s: %w", sz.label, err)
		}
		printSize(os.Stdout, res)
	}
	return nil
}

// benchEnv is the measured processes' environment: a fixed author and
// commit time, and no GODEBUG of the caller's.
func benchEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GODEBUG=") && !strings.HasPrefix(kv, "DELOREIS_") {
			env = append(env, kv)
		}
	}
	return append(env, "DELOREIS_AUTHOR=Bench Scale <bench@deloreis.invalid>", "DELOREIS_COMMIT_DATE=2026-12-01T12:00:00Z")
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// buildDeloreis builds the deloreis program at bin.
func buildDeloreis(bin string) error {
	for _, b := range []struct{ out, pkg string }{
		{bin, "github.com/deloreis/deloreis/cmd/deloreis"},
	} {
		cmd := exec.Command("go", "build", "-o", b.out, b.pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as README installs them (DL-0333)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
		}
	}
	return nil
}
