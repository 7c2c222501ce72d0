package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/deloreis/deloreis/base/phases"
)

// sizeResult is everything measured for one size.
type sizeResult struct {
	label     string
	decls     int // lore objects in the big commit
	persons   int
	fileBytes int64
	load      string // /proc/loadavg when the size started
	// importFlags are the build's `deloreis import` flags.
	importFlags string
	buildBin    string // the build step's binary, when not the measured one

	build            sample
	openFirst, again sample
	phases           []phases.Span // the first open's, as its process recorded them
	phasesErr        string        // why there are none
	cpus             string        // the cores the processes ran on
	importDry        sample        // `import` of the one-fact file, dry run: open, stage, consequence diff
	cache            string        // what a second open finds: a persisted compiled world, or none
	serve            serveResult
	adds             int

	log, gitLog, show, gitShow, showBig, gitShowBig sample
	bigRev                                          string // the big commit: main~1, or main without the session's commit

	disk diskResult
}

// diskResult is the store on disk beside git's own repack of a copy.
type diskResult struct {
	store, repacked int64 // bytes under objects/
	repack          sample
	err             string
	skipped         bool // -repack=false: the store alone is sized
}

// printSize writes one size's table.
func printSize(out io.Writer, r *sizeResult) {
	facts := r.decls - r.persons - len(rules)
	fmt.Fprintf(out, "\n== %s: %s objects in one commit (%s persons, %s facts, %d rules: a recursion, 4 negations)\n",
		r.label, thousands(r.decls), thousands(r.persons), thousands(facts), len(rules))
	fmt.Fprintf(out, "   .dli file %s; load average at start %s\n", bytesSI(r.fileBytes), r.load)
	if r.buildBin != "" {
		fmt.Fprintf(out, "   built by %s; every other step by the measured binary\n", r.buildBin)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "step\ttime\tpeak RSS\tnote")
	row := func(step string, s sample, note string) {
		if !s.ok() {
			fmt.Fprintf(tw, "%s\t-\t-\tfailed: %s\n", step, s.err)
			return
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", step, dur(s.wall), bytesIEC(s.rss), note)
	}
	perObj := ""
	if r.build.ok() && r.decls > 0 {
		perObj = fmt.Sprintf("%.1f µs/object", float64(r.build.wall.Nanoseconds())/float64(r.decls)/1e3)
	}
	row("build: import "+r.importFlags+" (one commit)", r.build, perObj)
	if !r.build.ok() {
		fmt.Fprintln(tw, "(nothing else measured: there is no store)")
		tw.Flush()
		return
	}
	row("open: check, first (no compiled world)", r.openFirst, "one-fact file over the scope's head")
	row(fmt.Sprintf("open: check, again (median of %d)", r.again.runs), r.again, "compiled world: "+r.cache)
	row(fmt.Sprintf("open: import, dry run (median of %d)", r.importDry.runs), r.importDry, "the same file: open, stage and its consequence diff")
	printServe(tw, r)
	row("log -n 2", r.log, versus("git log -n 2", r.log, r.gitLog))
	row("show main (the 10-fact commit)", r.show, versus("git show --name-status", r.show, r.gitShow))
	row("show --name-only "+r.bigRev+" (the big commit)", r.showBig, versus("git show --name-status", r.showBig, r.gitShowBig))
	printDisk(tw, r)
	tw.Flush()
	printPhases(out, r)
}

// printServe writes the rows of the `deloreis serve` session.
func printServe(tw io.Writer, r *sizeResult) {
	s := r.serve
	if s.err != "" {
		fmt.Fprintf(tw, "serve: author.open, author.add_fact\t-\t-\tfailed: %s\n", s.err)
		return
	}
	fmt.Fprintf(tw, "open: serve, author.open (cold process)\t%s\t%s\tprocess start to the answer; RSS once open\n", dur(s.openCold), bytesIEC(s.rssOpen))
	fmt.Fprintf(tw, "resident: serve, right after the open\t\t%s\tVmRSS, the open's pages given back\n", bytesIEC(s.rssOpenNow))
	fmt.Fprintf(tw, "resident: serve, after a page of lineage(X, Y)\t%s\t%s\tits first page reads every lineage atom\n", dur(s.touch), bytesIEC(s.rssTouched))
	fmt.Fprintf(tw, "open: serve, author.open again\t%s\t\tsame process, its workspace cache\n", dur(s.openWarm))
	gc := fmt.Sprintf("GC %.0f%% of CPU over them (%d collections)", 100*s.gcShare, s.gcs)
	if s.gcShare < 0 {
		gc = fmt.Sprintf("GC share not measured: under %v of CPU", minGCWindow)
	}
	fmt.Fprintf(tw, "staged add: author.add_fact round trip\tp50 %s, p99 %s\t%s\t%s adds; %s\n",
		dur(percentile(s.adds, 50)), dur(percentile(s.adds, 99)), bytesIEC(s.rssAdds), thousands(len(s.adds)), gc)
	fmt.Fprintf(tw, "second commit: author.materialize, 10 facts\t%s\t\tanother workspace of the same session\n", dur(s.materialize))
	fmt.Fprintf(tw, "open: serve, author.open of the new head\t%s\t%s\tsame process, right after the materialize\n", dur(s.openNew), bytesIEC(s.rssEnd))
}

// printDisk writes the bytes-per-object row.
func printDisk(tw io.Writer, r *sizeResult) {
	d := r.disk
	if d.err != "" {
		fmt.Fprintf(tw, "disk: bytes per object\t\t\tfailed: %s\n", d.err)
		return
	}
	per := func(b int64) string { return fmt.Sprintf("%.0f B/object", float64(b)/float64(max(r.decls, 1))) }
	fmt.Fprintf(tw, "disk: the store's objects/\t\t\t%s, %s\n", bytesSI(d.store), per(d.store))
	if d.skipped {
		fmt.Fprintf(tw, "disk: git repack -adf of a copy\t\t\tnot run (-repack=false)\n")
		return
	}
	ratio := ""
	if d.repacked > 0 {
		ratio = fmt.Sprintf(" (store/git %.2fx)", float64(d.store)/float64(d.repacked))
	}
	fmt.Fprintf(tw, "disk: git repack -adf of a copy\t%s\t%s\t%s, %s%s\n", dur(d.repack.wall), bytesIEC(d.repack.rss), bytesSI(d.repacked), per(d.repacked), ratio)
}

// versus is the note comparing a deloreis figure with git's.
func versus(name string, ours, git sample) string {
	if !git.ok() {
		return name + ": failed: " + git.err
	}
	note := fmt.Sprintf("%s: %s, %s", name, dur(git.wall), bytesIEC(git.rss))
	if ours.ok() && git.wall > 0 {
		note += fmt.Sprintf(" (time %.1fx, RSS %.1fx git)", float64(ours.wall)/float64(git.wall), float64(ours.rss)/float64(max(git.rss, 1)))
	}
	return fmt.Sprintf("%s; medians of %d runs in turn", note, git.runs)
}

// dur prints a duration with three significant figures in s or ms.
func dur(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.0f ms", float64(d)/1e6)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.3f ms", float64(d)/1e6)
}

// bytesIEC prints a memory size in MiB or GiB.
func bytesIEC(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

// bytesSI prints a file size in MB or GB, as du --si would.
func bytesSI(b int64) string {
	if b >= 1e9 {
		return fmt.Sprintf("%.2f GB", float64(b)/1e9)
	}
	return fmt.Sprintf("%.1f MB", float64(b)/1e6)
}

// thousands writes n with comma separators.
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
