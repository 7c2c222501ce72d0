package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
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
