// Command logshow measures `deloreis log -n 2` and `deloreis show` of the
// head commit against `git log -n 2` and `git show --name-status` (and
// `show` with declarations against `git show` with the patch) on the same
// store (issue 13, goal 5: within 2x of git as whole processes).
//
//	go run ./bench/logshow -deloreis BIN [-n 1000000] [-store DIR] [-runs 9]
//
// Each figure is a fresh process (a cold process; the page cache stays
// warm, as for git), run in turn with its git counterpart after one
// warm-up of each; it prints the median wall and CPU time and the median
// peak RSS of each, and the median of the pairwise wall ratios. It also
// times one `log -n 2` after deleting the store's record of verified pack
// indexes, which pays the one full verification of the big index again.
// bench/logshow.sh builds the binary and runs this.
//
// With -demo the store is instead the bundled demo world (`deloreis demo
// --keep DIR`, built by the binary measured when DIR is absent) and only
// `log -n 2` is timed, against `git log -n 2` on that store: issue 31's
// figure (within 2x of git, medians of paired runs). Beside the pairwise
// wall ratio it prints the pairwise CPU (user+sys) ratio, the steadier of
// the two on a loaded machine.
//
// Peak RSS comes from the kernel's accounting of each child, which counts
// the parent's resident memory at the moment the child execs: hence
// -build-only, so that the store is built by another process than the
// one measuring, and the floor line (the same figure for a shell that
// only echoes).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

func main() {
	bin := flag.String("deloreis", "", "the deloreis binary to measure (required)")
	n := flag.Int("n", 1_000_000, "facts in the big commit")
	dir := flag.String("store", "", "the store (default $TMPDIR/deloreis-logshow-N; reused when built with the same N)")
	runs := flag.Int("runs", 9, "counted runs of each command")
	buildOnly := flag.Bool("build-only", false, "build (or check) the store and stop")
	demo := flag.Bool("demo", false, "time log -n 2 on the demo world's store (default $TMPDIR/deloreis-logshow-demo)")
	flag.Parse()
	if *bin == "" || *n < 1 || *runs < 1 {
		fmt.Fprintln(os.Stderr, "logshow: -deloreis is required; -n and -runs must be positive")
		os.Exit(2)
	}
	if *demo {
		if *dir == "" {
			*dir = filepath.Join(os.TempDir(), "deloreis-logshow-demo")
		}
		if err := buildDemo(*bin, *dir); err != nil {
			fail(err)
		}
		if *buildOnly {
			return
		}
		if err := measureLog(*bin, *dir, *runs); err != nil {
			fail(err)
		}
		return
	}
	if *dir == "" {
		*dir = filepath.Join(os.TempDir(), fmt.Sprintf("deloreis-logshow-%d", *n))
	}
	if err := build(*dir, *n); err != nil {
		fail(err)
	}
	if *buildOnly {
		return
	}
	if err := measure(*bin, *dir, *runs); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "logshow:", err)
	os.Exit(1)
}

// sample is one finished process.
type sample struct {
	wall, cpu time.Duration
	rssKB     int64
}

// run starts argv once, with its output read and dropped, and returns
// what the kernel accounted for it.
func run(argv []string) (sample, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%v: %v\n%s", argv, err, errOut.Bytes())
	}
	if out.Len() == 0 {
		return sample{}, fmt.Errorf("%v printed nothing", argv)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return sample{wall: wall, cpu: cpu, rssKB: ru.Maxrss}, nil
}

func median[T int64 | time.Duration | float64](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// pair runs a and b in turn, runs times each after a warm-up of each.
func pair(a, b []string, runs int) (sa, sb []sample, err error) {
	for i := -1; i < runs; i++ {
		x, err := run(a)
		if err != nil {
			return nil, nil, err
		}
		y, err := run(b)
		if err != nil {
			return nil, nil, err
		}
		if i >= 0 {
			sa, sb = append(sa, x), append(sb, y)
		}
	}
	return sa, sb, nil
}

type figures struct {
	wall, cpu time.Duration
	rssKB     int64
}

func summarize(s []sample) figures {
	var wall, cpu []time.Duration
	var rss []int64
	for _, x := range s {
		wall, cpu, rss = append(wall, x.wall), append(cpu, x.cpu), append(rss, x.rssKB)
	}
	return figures{median(wall), median(cpu), median(rss)}
}

func (f figures) String() string {
	return fmt.Sprintf("wall %7.1f ms  cpu %7.1f ms  peak RSS %6.1f MiB",
		ms(f.wall), ms(f.cpu), float64(f.rssKB)/1024)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func measure(bin, dir string, runs int) error {
	floor, err := run([]string{"sh", "-c", "echo floor"})
	if err != nil {
		return err
	}
	fmt.Printf("peak RSS floor (a shell started by this process): %.1f MiB\n", float64(floor.rssKB)/1024)
	for _, c := range []struct {
		name     string
		dlr, git []string
	}{
		{"log -n 2", []string{bin, "--store", dir, "log", "-n", "2"}, []string{"git", "-C", dir, "log", "-n", "2"}},
		{"show (names)", []string{bin, "--store", dir, "show", "--name-only", "HEAD"},
			[]string{"git", "-C", dir, "show", "--name-status", "HEAD"}},
		{"show (declarations; git: the patch)", []string{bin, "--store", dir, "show", "HEAD"},
			[]string{"git", "-C", dir, "show", "HEAD"}},
	} {
		sa, sb, err := pair(c.dlr, c.git, runs)
		if err != nil {
			return err
		}
		var ratios []float64
		for i := range sa {
			ratios = append(ratios, float64(sa[i].wall)/float64(sb[i].wall))
		}
		fmt.Printf("%s, median of %d runs each\n", c.name, runs)
		fmt.Printf("  deloreis  %s\n", summarize(sa))
		fmt.Printf("  git       %s\n", summarize(sb))
		fmt.Printf("  wall ratio deloreis/git: median %.2f\n", median(ratios))
	}
	// The record is rewritten by this very run (the store is older than
	// the file clock's granularity), so the figures above are unaffected.
	if err := os.Remove(filepath.Join(dir, "objects", "deloreis-verified-idx")); err != nil && !os.IsNotExist(err) {
		return err
	}
	first, err := run([]string{bin, "--store", dir, "log", "-n", "2"})
	if err != nil {
		return err
	}
	fmt.Printf("log -n 2 once the record of verified indexes is removed (hashes them again)\n  deloreis  %s\n",
		figures(first))
	return nil
}

// buildDemo builds the demo world's store in dir with bin, unless dir
// holds one already.
func buildDemo(bin, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err == nil {
		fmt.Printf("store: reusing %s (the demo world)\n", dir)
		return nil
	}
	out, err := exec.Command(bin, "demo", "--keep", dir).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s demo --keep %s: %v\n%s", bin, dir, err, out)
	}
	return nil
}

// measureLog times log -n 2 against git's on dir, with the pairwise
// wall and CPU ratios.
func measureLog(bin, dir string, runs int) error {
	sa, sb, err := pair([]string{bin, "--store", dir, "log", "-n", "2"}, []string{"git", "-C", dir, "log", "-n", "2"}, runs)
	if err != nil {
		return err
	}
	var wall, cpu []float64
	for i := range sa {
		wall = append(wall, float64(sa[i].wall)/float64(sb[i].wall))
		if sb[i].cpu > 0 {
			cpu = append(cpu, float64(sa[i].cpu)/float64(sb[i].cpu))
		}
	}
	fmt.Printf("log -n 2 on the demo world's store, median of %d paired runs\n", runs)
	fmt.Printf("  deloreis  %s\n", summarize(sa))
	fmt.Printf("  git       %s\n", summarize(sb))
	fmt.Printf("  deloreis/git: wall %.2f, cpu %.2f (medians of the pairwise ratios; cpu over %d pairs where git's was measurable)\n",
		median(wall), median(cpu), len(cpu))
	return nil
}
