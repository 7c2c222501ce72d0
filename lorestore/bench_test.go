// Benchmarks of the store, each printing its figure and, where real git
// does the same job, git's figure from the same run:
//
//   - one commit of 100,000 fact objects, beside git fast-import;
//   - latency of a one-object commit on stores of 1,000 and 100,000 objects;
//   - push of 100,000 objects to a bare repository, beside git push;
//   - a one-commit push onto a 10,000-commit remote, beside git push;
//   - cold load of a 100,000-object world.

package lorestore

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/deloreis/deloreis/objects"
)

// bigStore builds a store holding n facts in one commit.
func bigStore(b *testing.B, n int) (*Store, string) {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "big.git")
	s, err := Init(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	batch := NewBatch()
	for i := 0; i < n; i++ {
		if _, err := batch.Put("camelot", fact(i)); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.Commit(batch, NewMessage("bulk", "materialize", "camelot"), CommitOptions{}); err != nil {
		b.Fatal(err)
	}
	return s, dir
}

func BenchmarkCommit100k(b *testing.B) {
	n := benchN(100_000)
	facts := make([]objects.Object, n)
	for i := range facts {
		facts[i] = fact(i)
	}
	var ours time.Duration
	for b.Loop() {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "c.git")
		s, err := Init(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		batch := NewBatch()
		for _, f := range facts {
			if _, err := batch.Put("camelot", f); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := s.Commit(batch, NewMessage("bulk", "materialize", "camelot"), CommitOptions{}); err != nil {
			b.Fatal(err)
		}
		ours += time.Since(start)
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(n)*float64(b.N)/ours.Seconds(), "objects/s")
	b.ReportMetric(gitFastImportRate(b, facts), "git-fast-import-objects/s")
}

// gitFastImportRate feeds git fast-import the same blobs at the same paths
// in one commit and returns its objects per second.
func gitFastImportRate(b *testing.B, facts []objects.Object) float64 {
	b.Helper()
	var in bytes.Buffer
	var paths []string
	for i, f := range facts {
		data, err := objects.Canonical(f)
		if err != nil {
			b.Fatal(err)
		}
		id, _ := f.ID()
		fmt.Fprintf(&in, "blob\nmark :%d\ndata %d\n%s\n", i+1, len(data), data)
		paths = append(paths, fmt.Sprintf("M 100644 :%d scopes/camelot/claims/%s/%s.json\n", i+1, id.String()[:2], id))
	}
	fmt.Fprintf(&in, "commit refs/heads/main\ncommitter t <t@t> 1700000000 +0000\ndata 4\nbulk\n")
	for _, p := range paths {
		in.WriteString(p)
	}
	dir := filepath.Join(b.TempDir(), "fi.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", dir).CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	cmd := exec.Command("git", "--git-dir", dir, "fast-import", "--quiet")
	cmd.Stdin = &in
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git fast-import: %v %s", err, out)
	}
	return float64(len(facts)) / time.Since(start).Seconds()
}

func BenchmarkCommitLatency(b *testing.B) {
	for _, size := range benchSizes(1_000, 100_000) {
		b.Run(fmt.Sprintf("objects=%d", size), func(b *testing.B) {
			s, _ := bigStore(b, size)
			defer s.Close()
			var ds []time.Duration
			i := size
			for b.Loop() {
				ds = append(ds, timeCommitOne(b, s, i))
				i++
			}
			slices.Sort(ds)
			b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "median-µs")
			b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds()), "p99-µs")
		})
	}
}

func BenchmarkPush100k(b *testing.B) {
	s, dir := bigStore(b, benchN(100_000))
	defer s.Close()
	var ours, theirs time.Duration
	for b.Loop() {
		b.StopTimer()
		remotes := b.TempDir()
		for _, r := range []string{"ours.git", "git.git"} {
			if out, err := exec.Command("git", "init", "-q", "--bare", filepath.Join(remotes, r)).CombinedOutput(); err != nil {
				b.Fatalf("%v %s", err, out)
			}
		}
		b.StartTimer()
		start := time.Now()
		if _, err := s.Push(context.Background(), "file://"+filepath.Join(remotes, "ours.git"), PushOptions{}); err != nil {
			b.Fatal(err)
		}
		ours += time.Since(start)
		b.StopTimer()
		start = time.Now()
		if out, err := exec.Command("git", "--git-dir", dir, "push", "-q", "file://"+filepath.Join(remotes, "git.git"), "main").CombinedOutput(); err != nil {
			b.Fatalf("git push: %v %s", err, out)
		}
		theirs += time.Since(start)
		b.StartTimer()
	}
	b.ReportMetric(ours.Seconds()/float64(b.N), "s/push")
	b.ReportMetric(theirs.Seconds()/float64(b.N), "git-push-s")
}

func BenchmarkPushIncremental(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "long.git")
	// The history is set-up, not what is measured: built without flushes.
	s, err := Init(dir, Options{NoFsync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	commits := benchN(10_000)
	for i := 0; i < commits; i++ {
		batch := NewBatch()
		batch.Put("camelot", fact(i))
		if _, err := s.Commit(batch, NewMessage("one", "materialize", "camelot"), CommitOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	remotes := b.TempDir()
	for _, r := range []string{"ours.git", "git.git"} {
		url := filepath.Join(remotes, r)
		if out, err := exec.Command("git", "init", "-q", "--bare", url).CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
		if _, err := s.Push(context.Background(), "file://"+url, PushOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	var ours, theirs time.Duration
	n := commits
	for b.Loop() {
		b.StopTimer()
		batch := NewBatch()
		batch.Put("camelot", fact(n))
		n++
		if _, err := s.Commit(batch, NewMessage("one more", "materialize", "camelot"), CommitOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		if _, err := s.Push(context.Background(), "file://"+filepath.Join(remotes, "ours.git"), PushOptions{}); err != nil {
			b.Fatal(err)
		}
		ours += time.Since(start)
		b.StopTimer()
		start = time.Now()
		if out, err := exec.Command("git", "--git-dir", dir, "push", "-q", "file://"+filepath.Join(remotes, "git.git"), "main").CombinedOutput(); err != nil {
			b.Fatalf("git push: %v %s", err, out)
		}
		theirs += time.Since(start)
		b.StartTimer()
	}
	b.ReportMetric(float64(ours.Microseconds())/1000/float64(b.N), "ms/push")
	b.ReportMetric(float64(theirs.Microseconds())/1000/float64(b.N), "git-push-ms")
}

func BenchmarkColdLoad100k(b *testing.B) {
	size := benchN(100_000)
	s, dir := bigStore(b, size)
	s.Close()
	for b.Loop() {
		c, err := Open(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		sn, err := c.Snapshot("main")
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, k := range Kinds {
			es, err := sn.Objects("camelot", k)
			if err != nil {
				b.Fatal(err)
			}
			n += len(es)
		}
		if n != size {
			b.Fatalf("loaded %d objects", n)
		}
		c.Close()
	}
	b.ReportMetric(float64(size)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
}

// timeCommitOne commits fact i to s as a one-object materialize and
// returns how long the commit took, batch included.
func timeCommitOne(b *testing.B, s *Store, i int) time.Duration {
	start := time.Now()
	batch := NewBatch()
	batch.Put("camelot", fact(i))
	if _, err := s.Commit(batch, NewMessage("one", "materialize", "camelot"), CommitOptions{}); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}
