package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/project"
)

// factProject makes a project with one document "big" holding n facts
// over n/10 persons, committed in one commit.
func factProject(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	if err := project.Create(dir, []string{"big"}); err != nil {
		b.Fatal(err)
	}
	s, err := lorestore.Init(filepath.Join(dir, lorestore.DefaultDir), lorestore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	batch := lorestore.NewBatch()
	p := objects.Proposed("bench")
	persons := max(1, n/10)
	for i := 0; i < persons; i++ {
		if _, err := batch.Put("big", &objects.Entity{Kind: objects.KindPerson, Ident: fmt.Sprintf("p-%d", i), Name: "P", Provenance: p}); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < n; i++ {
		f := &objects.Fact{Entity: fmt.Sprintf("p-%d", i%persons), Key: fmt.Sprintf("k%d", i%7), Value: fmt.Sprintf("v%d", i), Provenance: p}
		if _, err := batch.Put("big", f); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.Commit(batch, lorestore.NewMessage(fmt.Sprintf("seed %d facts", n), "import", "big"), lorestore.CommitOptions{}); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkServeStaging100k drives 10,000 staging calls through `deloreis
// serve` as a subprocess (JSON in and out over pipes) on a 100,000-fact
// world, and reports the median and p99 latency of a call, and author.open
// with a cold and a warm cache (issue 9 acceptance 5; target median < 1 ms,
// p99 < 10 ms).
func BenchmarkServeStaging100k(b *testing.B) {
	n := benchN(100_000)
	dir := factProject(b, n)
	calls := 10_000
	if testing.Short() {
		calls = 200
	}
	for it := 0; it < b.N; it++ {
		s := startServer(b, "--project", dir)
		t0 := time.Now()
		ws := s.callJSON("o1", "author.open", map[string]any{"scope": "big"})["workspace"].(string)
		cold := time.Since(t0)
		t0 = time.Now()
		s.callJSON("o2", "author.open", map[string]any{"scope": "big"})
		warm := time.Since(t0)
		lat := make([]time.Duration, calls)
		for i := 0; i < calls; i++ {
			line := fmt.Sprintf(`{"dli":"2.0.0","id":"s%d","op":"author.add_fact","params":{"workspace":%q,"entity":"p-%d","key":"staged","value":"w%d","provenance":{"kind":"proposed","origin":"bench"}}}`, i, ws, i%(n/10), i)
			t := time.Now()
			resp := s.call(line)
			lat[i] = time.Since(t)
			if len(resp) < 20 || resp[len(resp)-1] != '}' || !strings.Contains(resp, `"ok":true`) {
				b.Fatalf("call %d: %s", i, resp)
			}
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[calls/2].Microseconds())/1000, "ms/call-median")
		b.ReportMetric(float64(lat[calls*99/100].Microseconds())/1000, "ms/call-p99")
		b.ReportMetric(float64(cold.Milliseconds()), "ms-open-cold")
		b.ReportMetric(float64(warm.Microseconds())/1000, "ms-open-warm")
	}
}

// BenchmarkImportOneFact1M imports a one-fact file into a 1,000,000-fact
// store with `deloreis import` as a whole process, and reports its wall
// time and peak RSS (issue 9 acceptance 5: before this issue 23 s and
// 3.5 GB, two full compiles; now one compile of the base).
func BenchmarkImportOneFact1M(b *testing.B) {
	dir := factProject(b, benchN(1_000_000))
	file := filepath.Join(dir, "one.dli")
	if err := os.WriteFile(file, []byte("scope big\np-1.added = yes  proposed  bench\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := binary(b)
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		cmd := exec.Command(bin, "import", "--project", dir, file)
		t0 := time.Now()
		out, err := cmd.CombinedOutput()
		wall := time.Since(t0)
		if err != nil {
			b.Fatalf("import: %v\n%s", err, out)
		}
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
		b.ReportMetric(wall.Seconds(), "s-wall")
		b.ReportMetric(float64(rss)/1024, "MB-peak-rss")
	}
}
