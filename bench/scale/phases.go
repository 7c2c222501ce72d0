package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/deloreis/deloreis/base/phases"
)

// phasesEnv names the file a measured process writes its phases to
// (base/phases, read by the command line: DL-0503).
const phasesEnv = "DELOREIS_PHASES"

// withEnv is r with more environment for the processes it starts.
func (r *runner) withEnv(kv ...string) *runner {
	c := *r
	c.env = append(append([]string(nil), r.env...), kv...)
	return &c
}

// firstCompile runs the first `deloreis check` of a store with its
// phases recorded into file, and returns the run and the phases.
func firstCompile(r *runner, file string, args ...string) (sample, []phases.Span, string) {
	os.Remove(file)
	s := r.withEnv(phasesEnv+"="+file).once(nil, args...)
	if !s.ok() {
		return s, nil, ""
	}
	f, err := os.Open(file)
	if err != nil {
		return s, nil, "no phases written: " + err.Error()
	}
	defer f.Close()
	spans, err := phases.ReadJSON(f)
	if err != nil {
		return s, nil, "phases: " + err.Error()
	}
	if len(spans) == 0 {
		return s, nil, "the process recorded no phase"
	}
	return s, spans, ""
}

// printPhases writes the first compile's phases: each as the process
// recorded it, by when it began, with its own wall time. Phases overlap:
// the entry checks and the world file's entries run beside lowering and
// evaluation.
func printPhases(out io.Writer, r *sizeResult) {
	if r.phasesErr != "" {
		fmt.Fprintf(out, "\nfirst compile by phase: not measured: %s\n", r.phasesErr)
		return
	}
	if len(r.phases) == 0 {
		return
	}
	fmt.Fprintf(out, "\nfirst compile by phase (the first check above; from the process's start, phases overlap on %s)\n", r.cpus)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "phase\t    from\t      to\t    took")
	spans := slices.Clone(r.phases)
	slices.SortStableFunc(spans, func(a, b phases.Span) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(b.End, a.End)) // the enclosing phase first
	})
	for _, s := range spans {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, secs(s.Start), secs(s.End), secs(s.Took()))
	}
	fmt.Fprintf(tw, "total: the check process, wall\t%s\t%s\t%s\n", secs(0), secs(r.openFirst.wall), secs(r.openFirst.wall))
	tw.Flush()
	fmt.Fprintf(out, "the process used %.2f s of CPU (user and system) over %.2f s of wall time, %.2f cores on average; peak RSS %s; load average at the size's start %s\n",
		r.openFirst.cpu.Seconds(), r.openFirst.wall.Seconds(), r.openFirst.cpu.Seconds()/max(r.openFirst.wall.Seconds(), 1e-9), bytesIEC(r.openFirst.rss), r.load)
}

// secs prints a duration in seconds to the millisecond.
func secs(d time.Duration) string { return fmt.Sprintf("%6.3f s", d.Seconds()) }

// firstOnly is -first: the first compile alone, runs times, over the
// size's store kept by an earlier -keep run when there is one (built and
// kept otherwise): a 10M store takes minutes to build, its first compile
// under a minute. Each run starts with no world file in the store.
func firstOnly(cfg *config, r *runner, sz size, out io.Writer) (built bool, err error) {
	dir := filepath.Join(cfg.work, sz.label)
	proj := filepath.Join(dir, "project")
	store := filepath.Join(proj, ".lore")
	res := &sizeResult{label: sz.label, persons: persons(sz.n), load: loadavg(), cpus: fmt.Sprintf("%d CPUs", runtime.NumCPU())}
	files := benchFiles{world: filepath.Join(dir, "world.dli"), one: filepath.Join(dir, "one.dli")}
	if _, err := os.Stat(files.one); err != nil || commitCount(store, 3) != "" && commitCount(store, 4) != "" {
		fmt.Fprintf(os.Stderr, "bench-scale %s: no kept store under %s: building one…\n", sz.label, dir)
		if err := os.RemoveAll(dir); err != nil {
			return false, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, err
		}
		if files, err = writeFiles(dir, sz.n, res); err != nil {
			return false, err
		}
		if p := r.run(nil, cfg.bin, "init", "--project", proj, "--scope", scopeName); p.err != nil {
			return false, fmt.Errorf("deloreis init: %v", p.err)
		}
		if b := build(r, cfg.bin, proj, files.world, cfg.importFlags); !b.ok() {
			return false, fmt.Errorf("build: %s", b.err)
		}
		built = true
	}
	fmt.Fprintf(out, "\n== %s: the first compile alone, %d runs over the kept store %s\n", sz.label, cfg.first, store)
	var walls []time.Duration
	for i := range cfg.first {
		if err := os.RemoveAll(filepath.Join(store, "deloreis", "worlds")); err != nil {
			return built, err
		}
		res.load = loadavg()
		res.openFirst, res.phases, res.phasesErr = firstCompile(r, filepath.Join(dir, "phases.jsonl"),
			cfg.bin, "check", "--project", proj, files.one)
		if !res.openFirst.ok() {
			return built, fmt.Errorf("check: %s", res.openFirst.err)
		}
		walls = append(walls, res.openFirst.wall)
		fmt.Fprintf(out, "\n-- run %d of %d", i+1, cfg.first)
		printPhases(out, res)
	}
	fmt.Fprintf(out, "\nfirst compile, wall: median %s of %d runs\n", dur(median(walls)), len(walls))
	return built, nil
}
