// BenchmarkDurability: what flushing costs (DL-0413), beside git on the
// same disk, in one run (bench/durability.sh prints it):
//
//   - one-object commits on a 1,000-object store, p50 and p99, durable
//     (the default) and with NoFsync, beside `git commit` of one staged
//     file under git's default core.fsync (the commit process alone),
//     and the start of a git process (git rev-parse HEAD) to read it by;
//   - one bulk commit of 100,000 facts (1,000 under -short; the import
//     path, Store.NewBulk),
//     durable and with NoFsync, beside git fast-import of the same blobs
//     at the same paths under git's default core.fsync.

package lorestore

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/deloreis/deloreis/objects"
)

// commitsPerRound is how many one-object commits each round times, so
// that even -benchtime 1x yields a p99 (a hundredth under -short).
func commitsPerRound() int {
	if testing.Short() {
		return 10
	}
	return 300
}

func BenchmarkDurability(b *testing.B) {
	for _, durable := range []bool{true, false} {
		b.Run(fmt.Sprintf("commit-one/%s", fsyncName(durable)), func(b *testing.B) { benchCommitOne(b, durable) })
	}
	b.Run("commit-one/git-commit", benchGitCommitOne)
	b.Run("commit-one/git-start", benchGitStart)
	n := benchN(100_000)
	facts := make([]objects.Object, n)
	for i := range facts {
		facts[i] = fact(i)
	}
	for _, durable := range []bool{true, false} {
		b.Run(fmt.Sprintf("bulk-100k/%s", fsyncName(durable)), func(b *testing.B) { benchBulkCommit(b, facts, durable) })
	}
	b.Run("bulk-100k/git-fast-import", func(b *testing.B) {
		var took time.Duration
		for b.Loop() {
			took += time.Duration(float64(n) / gitFastImportRate(b, facts) * float64(time.Second))
		}
		b.ReportMetric(took.Seconds()*1000/float64(b.N), "ms/commit")
	})
}

// benchCommitOne times one-object commits on a 1,000-object store,
// durable or with NoFsync.
func benchCommitOne(b *testing.B, durable bool) {
	s := smallStore(b, Options{NoFsync: !durable})
	var ds []time.Duration
	i := 1_000
	for b.Loop() {
		for range commitsPerRound() {
			ds = append(ds, timeCommitOne(b, s, i))
			i++
		}
	}
	reportLatency(b, ds)
}

// benchGitCommitOne times `git commit` of one staged file under git's
// default core.fsync (the commit process alone, not the add).
func benchGitCommitOne(b *testing.B) {
	work := filepath.Join(b.TempDir(), "work")
	gitDefault(b, "", "init", "-q", work)
	var ds []time.Duration
	i := 0
	for b.Loop() {
		for range commitsPerRound() {
			name := fmt.Sprintf("f%d.json", i)
			if err := os.WriteFile(filepath.Join(work, name), fmt.Appendf(nil, "{\"n\":%d}\n", i), 0o644); err != nil {
				b.Fatal(err)
			}
			gitDefault(b, work, "add", name)
			start := time.Now()
			gitDefault(b, work, "commit", "-q", "-m", "one")
			ds = append(ds, time.Since(start))
			i++
		}
	}
	reportLatency(b, ds)
}

// benchGitStart times what of git's figure is starting a process: git
// rev-parse HEAD in a repository of the same size.
func benchGitStart(b *testing.B) {
	work := filepath.Join(b.TempDir(), "work")
	gitDefault(b, "", "init", "-q", work)
	gitDefault(b, work, "commit", "-q", "--allow-empty", "-m", "root")
	var ds []time.Duration
	for b.Loop() {
		for range commitsPerRound() {
			start := time.Now()
			gitDefault(b, work, "rev-parse", "HEAD")
			ds = append(ds, time.Since(start))
		}
	}
	reportLatency(b, ds)
}

// benchBulkCommit times one bulk commit of facts into a new store (its
// making untimed), durable or with NoFsync.
func benchBulkCommit(b *testing.B, facts []objects.Object, durable bool) {
	took := timeBulkCommits(b, facts, Options{NoFsync: !durable})
	b.ReportMetric(took.Seconds()*1000/float64(b.N), "ms/commit")
}

func fsyncName(durable bool) string {
	if durable {
		return "fsync"
	}
	return "no-fsync"
}

// smallStore is a store of 1,000 facts in one commit.
func smallStore(b *testing.B, opts Options) *Store {
	b.Helper()
	s, err := Init(filepath.Join(b.TempDir(), "small.git"), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	batch := NewBatch()
	for i := range 1_000 {
		if _, err := batch.Put("camelot", fact(i)); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.Commit(batch, NewMessage("bulk", "materialize", "camelot"), CommitOptions{}); err != nil {
		b.Fatal(err)
	}
	return s
}

func reportLatency(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(0, "ns/op") // the figures are the latencies; rounds hold many commits
}

// gitDefault runs git in dir (or anywhere, when "") with its built-in
// defaults: no system or global configuration, so core.fsync is git's own.
func gitDefault(b *testing.B, dir string, args ...string) {
	b.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
