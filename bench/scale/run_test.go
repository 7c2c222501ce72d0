package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRunSizeSmall runs the whole benchmark on a 300-object store with
// the real deloreis binary and git: every step must finish and every row
// of the table carry a figure.
func TestRunSizeSmall(t *testing.T) {
	work := t.TempDir()
	bin := deloreisBinary(t)
	cfg := &config{work: work, bin: bin, adds: 30, runs: 2, maxRSS: 2 << 30, importFlags: []string{"--bulk", "--materialize"}, repack: true}
	r := &runner{env: benchEnv(), maxRSS: cfg.maxRSS}
	res, err := runSize(cfg, r, size{label: "300", n: 300})
	if err != nil {
		t.Fatal(err)
	}
	if res.decls != 318 || res.persons != 30 {
		t.Errorf("%d objects over %d persons, want 318 over 30", res.decls, res.persons)
	}
	for name, s := range map[string]sample{"build": res.build, "open": res.openFirst, "again": res.again, "import": res.importDry,
		"log": res.log, "git log": res.gitLog, "show": res.show, "git show": res.gitShow,
		"show big": res.showBig, "git show big": res.gitShowBig, "repack": res.disk.repack} {
		if !s.ok() || s.wall <= 0 || s.rss <= 0 {
			t.Errorf("%s: %+v", name, s)
		}
	}
	if res.again.runs != 1 || res.bigRev != "main~1" {
		t.Errorf("check again ran %d times, want runs-1 = 1", res.again.runs)
	}
	sv := res.serve
	if sv.err != "" || len(sv.adds) != 30 || sv.openCold <= 0 || sv.openWarm <= 0 || sv.materialize <= 0 || sv.openNew <= 0 ||
		sv.rssOpen <= 0 || sv.rssAdds < sv.rssOpen || sv.rssEnd < sv.rssAdds || sv.rssOpenNow <= 0 || sv.touch <= 0 || sv.rssTouched <= 0 {
		t.Errorf("serve: %+v", sv)
	}
	if sv.gcShare != -1 && (sv.gcShare < 0 || sv.gcShare > 1) {
		t.Errorf("GC share %v is not a fraction", sv.gcShare)
	}
	if res.disk.err != "" || res.disk.store <= 0 || res.disk.repacked <= 0 {
		t.Errorf("disk: %+v", res.disk)
	}
	var b bytes.Buffer
	printSize(&b, res)
	table, byPhase, _ := strings.Cut(b.String(), "\nfirst compile by phase")
	if strings.Contains(b.String(), "failed") || strings.Count(table, "\n") != 20 {
		t.Errorf("table:\n%s", b.String())
	}
	// The first check's phases, as its process recorded them.
	for _, want := range []string{"read: pack sweep and decode", "world: lower", "world: evaluate", "world: entry checks",
		"world: valuation and checks", "world file: write, in all", "compile: read, index, lower, evaluate, check", "total: the check process"} {
		if !strings.Contains(byPhase, want) {
			t.Errorf("no phase %q in:\n%s", want, byPhase)
		}
	}
}

// TestRunSizeDryBuild: a build that commits nothing (import without
// --materialize) is a failed build, not a store to measure.
func TestRunSizeDryBuild(t *testing.T) {
	cfg := &config{work: t.TempDir(), bin: deloreisBinary(t), adds: 1, runs: 1, maxRSS: 2 << 30}
	res, err := runSize(cfg, &runner{env: benchEnv(), maxRSS: cfg.maxRSS}, size{label: "dry", n: 200})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.build.err, "main has 2 commits after this step, want 3") || res.openFirst.runs != 0 {
		t.Errorf("build %+v, open %+v", res.build, res.openFirst)
	}
}

// TestRunSizeBuildBin: the build step runs the -build-bin binary, and
// the table says so.
func TestRunSizeBuildBin(t *testing.T) {
	cfg := &config{work: t.TempDir(), bin: deloreisBinary(t), buildBin: "false", adds: 1, runs: 1, maxRSS: 2 << 30}
	res, err := runSize(cfg, &runner{env: benchEnv(), maxRSS: cfg.maxRSS}, size{label: "other", n: 200})
	if err != nil {
		t.Fatal(err)
	}
	if res.buildBin != "false" || !strings.Contains(res.build.err, "exit status 1") {
		t.Errorf("build by %q: %+v", res.buildBin, res.build)
	}
	var b bytes.Buffer
	printSize(&b, res)
	if !strings.Contains(b.String(), "built by false; every other step by the measured binary") ||
		!strings.HasSuffix(b.String(), "(nothing else measured: there is no store)\n") {
		t.Errorf("table:\n%s", b.String())
	}
}

// TestMeasureReadsWithoutSessionCommit: when the serve session made no
// commit, show compares the big commit at main and says why the small
// commit's row is empty.
func TestMeasureReadsWithoutSessionCommit(t *testing.T) {
	bin, dir := deloreisBinary(t), t.TempDir()
	r := &runner{env: benchEnv(), maxRSS: 2 << 30}
	proj, store := filepath.Join(dir, "p"), filepath.Join(dir, "p", ".lore")
	res := &sizeResult{}
	files, err := writeFiles(dir, 200, res)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{bin, "init", "--project", proj, "--scope", scopeName}, {bin, "import", "--project", proj, "--materialize", files.world}} {
		if p := r.run(nil, args...); p.err != nil {
			t.Fatal(p.err)
		}
	}
	measureReads(r, bin, proj, store, 1, res)
	if res.bigRev != "main" || !res.showBig.ok() || !res.gitShowBig.ok() || !res.log.ok() ||
		!strings.Contains(res.show.err, "no 10-fact commit") || res.gitShow.ok() {
		t.Errorf("%+v", res)
	}
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// TestMain removes the built binary after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// deloreisBinary builds cmd/deloreis once
// for the tests.
func deloreisBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "bench-scale-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "deloreis")
		binErr = buildDeloreis(binPath)
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// TestRunnerMemoryCap: a process past the memory cap or the time cap is
// killed and its result says so, well before it would have ended by
// itself.
func TestRunnerMemoryCap(t *testing.T) {
	r := &runner{maxRSS: 1 << 10}
	t0 := time.Now()
	p := r.run(nil, "sleep", "10")
	if p.err == nil || !strings.Contains(p.err.Error(), "killed: resident memory passed") {
		t.Fatalf("err = %v, want the cap's kill", p.err)
	}
	if time.Since(t0) > 5*time.Second {
		t.Errorf("the kill took %v", time.Since(t0))
	}
	slow := &runner{maxTime: 300 * time.Millisecond}
	t0 = time.Now()
	if p := slow.run(nil, "sleep", "10"); p.err == nil || !strings.Contains(p.err.Error(), "killed: it ran past the 300ms time cap") {
		t.Errorf("past the time cap: err = %v", p.err)
	}
	if time.Since(t0) > 5*time.Second {
		t.Errorf("the time cap's kill took %v", time.Since(t0))
	}
	free := &runner{maxRSS: 1 << 30}
	if p := free.run(nil, "sh", "-c", "exit 3"); p.err == nil || !strings.Contains(p.err.Error(), "exit status 3") {
		t.Errorf("a failing command: err = %v", p.err)
	}
	if p := free.run(nil, "true"); p.err != nil || p.rss <= 0 {
		t.Errorf("true: %+v", p)
	}
}

// TestFirstOnly: -first builds and keeps a store when there is none, then
// reuses it; each run is a first compile (no world file) with its phases.
func TestFirstOnly(t *testing.T) {
	cfg := &config{work: t.TempDir(), bin: deloreisBinary(t), first: 2, maxRSS: 2 << 30, importFlags: []string{"--bulk", "--materialize"}}
	r := &runner{env: benchEnv(), maxRSS: cfg.maxRSS}
	for _, wantBuilt := range []bool{true, false} {
		var b bytes.Buffer
		built, err := firstOnly(cfg, r, size{label: "200", n: 200}, &b)
		if err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if built != wantBuilt || strings.Count(out, "world: lower") != 2 || !strings.Contains(out, "-- run 2 of 2") ||
			!strings.Contains(out, "first compile, wall: median") || strings.Contains(out, "not measured") {
			t.Errorf("built %v, want %v; output:\n%s", built, wantBuilt, out)
		}
	}
}
