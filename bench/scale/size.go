package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

// runSize builds one size's store and measures it.
func runSize(cfg *config, r *runner, sz size) (*sizeResult, error) {
	dir := filepath.Join(cfg.work, sz.label)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if !cfg.keep {
		defer os.RemoveAll(dir)
	}
	res := &sizeResult{label: sz.label, persons: persons(sz.n), adds: cfg.adds, load: loadavg(), cpus: fmt.Sprintf("%d CPUs", runtime.NumCPU())}
	files, err := writeFiles(dir, sz.n, res)
	if err != nil {
		return nil, err
	}
	proj := filepath.Join(dir, "project")
	if p := r.run(nil, cfg.bin, "init", "--project", proj, "--scope", scopeName); p.err != nil {
		return nil, fmt.Errorf("deloreis init: %v", p.err)
	}
	store := filepath.Join(proj, ".lore")
	fmt.Fprintf(os.Stderr, "bench-scale %s: building %d objects…\n", sz.label, res.decls)
	res.importFlags = strings.Join(cfg.importFlags, " ")
	buildBin := cfg.bin
	if cfg.buildBin != "" && cfg.buildBin != cfg.bin {
		buildBin, res.buildBin = cfg.buildBin, cfg.buildBin
	}
	res.build = build(r, buildBin, proj, files.world, cfg.importFlags)
	if res.build.ok() {
		res.build.err = commitCount(store, 3) // init, the scope's declaration and the build: a dry run is no build
	}
	if !res.build.ok() {
		return res, nil // nothing else to measure; the table says why
	}
	runs := cfg.runs
	if runs == 0 {
		runs = 5
		if sz.n >= 1_000_000 {
			runs = 3
		}
	}
	measureOpen(r, cfg.bin, proj, store, files.one, runs, res)
	fmt.Fprintf(os.Stderr, "bench-scale %s: serve…\n", sz.label)
	res.serve = serveBench(r, cfg.bin, proj, res.persons, cfg.adds)
	if res.serve.err == "" {
		res.serve.err = commitCount(store, 4) // the session's 10-fact commit
	}
	measureReads(r, cfg.bin, proj, store, runs, res)
	if cfg.repack {
		fmt.Fprintf(os.Stderr, "bench-scale %s: repack…\n", sz.label)
		res.disk = measureDisk(r, store, filepath.Join(dir, "repack.git"))
	} else {
		res.disk = diskResult{store: dirBytes(filepath.Join(store, "objects")), skipped: true}
	}
	return res, nil
}

// build makes the store's one big commit through the user path:
// `deloreis import` of the generated file with flags (today
// --materialize; a streaming bulk mode's flag once import has one, given
// by -import-flags). This is the one place the builder is chosen.
func build(r *runner, bin, proj, file string, flags []string) sample {
	args := append([]string{bin, "import", "--project", proj}, flags...)
	return r.once(nil, append(args, file)...)
}

// commitCount checks that main has want commits, as real git counts
// them; it returns the problem, or "".
func commitCount(store string, want int) string {
	out, err := exec.Command("git", "--git-dir", store, "rev-list", "--count", "main").Output()
	if err != nil {
		return "git rev-list: " + err.Error()
	}
	if got, _ := strconv.Atoi(strings.TrimSpace(string(out))); got != want {
		return fmt.Sprintf("main has %d commits after this step, want %d: nothing was committed", got, want)
	}
	return ""
}

// benchFiles are the generated .dli files of one size.
type benchFiles struct {
	world, one string
}

// writeFiles writes the world and the one-fact file check opens the
// store with.
func writeFiles(dir string, n int, res *sizeResult) (benchFiles, error) {
	f := benchFiles{world: filepath.Join(dir, "world.dli"), one: filepath.Join(dir, "one.dli")}
	w, err := os.Create(f.world)
	if err != nil {
		return f, err
	}
	res.decls, err = writeWorld(w, n)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return f, err
	}
	if st, err := os.Stat(f.world); err == nil {
		res.fileBytes = st.Size()
	}
	one := fmt.Sprintf("scope %s\n\np-1.epithet = bold proposed %s\n", scopeName, origin)
	return f, os.WriteFile(f.one, []byte(one), 0o644)
}

// measureOpen times `deloreis check` as a cold process over the store:
// once when nothing but the commit exists, then again, noting what the
// first open left in the store (a compiled world, when one is kept).
func measureOpen(r *runner, bin, proj, store, one string, runs int, res *sizeResult) {
	before := listFiles(store)
	check := []string{bin, "check", "--project", proj, one}
	res.openFirst, res.phases, res.phasesErr = firstCompile(r, filepath.Join(filepath.Dir(one), "phases.jsonl"), check...)
	res.cache = describeCache(before, listFiles(store))
	res.again = r.measure(max(runs-1, 1), check...)
	res.importDry = r.measure(max(runs-1, 1), bin, "import", "--project", proj, one)
}

// measureReads times log and show beside git's on the same store.
func measureReads(r *runner, bin, proj, store string, runs int, res *sizeResult) {
	runs = max(runs, 5) // cheap next to the rest
	gitArgs := func(args ...string) []string { return append([]string{"git", "--git-dir", store}, args...) }
	ourArgs := func(args ...string) []string { return append([]string{bin, "--project", proj}, args...) }
	// A process of a few milliseconds is at the mercy of the machine:
	// log is measured in many alternating pairs after a warm-up of each.
	res.log, res.gitLog = r.pair(max(runs, 21), 1, ourArgs("log", "-n", "2"), gitArgs("log", "-n", "2"))
	big := "main~1"
	if commitCount(store, 4) != "" { // the session made no 10-fact commit: main is the big one
		big = "main"
		res.show = sample{err: "no 10-fact commit to show (the serve session did not make it)"}
		res.gitShow = res.show
	} else {
		res.show, res.gitShow = r.pair(runs, 1, ourArgs("show", "main"), gitArgs("show", "--name-status", "main"))
	}
	res.bigRev = big
	res.showBig, res.gitShowBig = r.pair(runs, 0, ourArgs("show", "--name-only", big), gitArgs("show", "--name-status", big))
}

// measureDisk sizes the store's objects beside git's own full repack of
// a copy of it.
func measureDisk(r *runner, store, cp string) diskResult {
	var d diskResult
	d.store = dirBytes(filepath.Join(store, "objects"))
	os.RemoveAll(cp)
	defer os.RemoveAll(cp)
	if p := r.run(nil, "cp", "-a", store, cp); p.err != nil {
		d.err = "copy: " + p.err.Error()
		return d
	}
	d.repack = r.once(nil, "git", "--git-dir", cp, "repack", "-adf", "-q")
	if !d.repack.ok() {
		d.err = "git repack -adf: " + d.repack.err
		return d
	}
	d.repacked = dirBytes(filepath.Join(cp, "objects"))
	return d
}

// dirBytes is the size of the regular files under dir.
func dirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			if info, err := e.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// listFiles maps each regular file under dir (relative path) to its size.
func listFiles(dir string) map[string]int64 {
	out := map[string]int64{}
	filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			if info, err := e.Info(); err == nil {
				rel, _ := filepath.Rel(dir, path)
				out[rel] = info.Size()
			}
		}
		return nil
	})
	return out
}

// describeCache says what an open added to the store: the files of a
// persisted compiled world, or that there are none and so every open
// compiles the world again.
func describeCache(before, after map[string]int64) string {
	var added []string
	var n int64
	for p, sz := range after {
		if _, ok := before[p]; !ok {
			added = append(added, p)
			n += sz
		}
	}
	if len(added) == 0 {
		return "none persisted (the first open left no file in the store), so this open compiles again"
	}
	sort.Strings(added)
	dirs := map[string]bool{}
	for _, p := range added {
		dirs[filepath.Dir(p)] = true
	}
	var ds []string
	for d := range dirs {
		ds = append(ds, d)
	}
	sort.Strings(ds)
	return fmt.Sprintf("the first open left %d files, %s, under .lore/{%s}", len(added), bytesSI(n), strings.Join(ds, ","))
}
