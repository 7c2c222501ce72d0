// This file tests the Store across real processes: readers never see a ref
// missing while another process rewrites it, and compare-and-swap
// increments from several processes are never lost.

package refs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestReadersNeverSeeMissing: a child process rewrites refs/heads/main in a
// loop while we read it 10,000 times (and List it every 1,000); every read
// must succeed with one of the two values the writer writes.
func TestReadersNeverSeeMissing(t *testing.T) {
	dir, s := newRepo(t, Options{})
	a, b := fakeHash(1), fakeHash(2)
	if err := s.Update(main, a, plumbing.ZeroHash); err != nil {
		t.Fatal(err)
	}
	stop := filepath.Join(t.TempDir(), "stop")
	c := startChild(t, "writer", dir, "REFS_TEST_STOP="+stop)
	if l := c.line(t); l != "started" {
		t.Fatalf("child said %q", l)
	}
	seen := map[plumbing.Hash]int{}
	var failures []error
	// 10,000 reads, and more if the writer (starved on a loaded machine)
	// has not yet been seen changing the value.
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; i < 10000 || len(seen) < 2 && time.Now().Before(deadline); i++ {
		h, err := s.Read(main)
		switch {
		case err != nil:
			failures = append(failures, err)
		case h != a && h != b:
			failures = append(failures, fmt.Errorf("read %s", h))
		default:
			seen[h]++
		}
		if i%1000 == 0 { // List must also always see the ref
			refs, err := s.List("refs/heads/")
			if err != nil || len(refs) != 1 {
				failures = append(failures, fmt.Errorf("List = %v, %v", refs, err))
			}
		}
	}
	os.WriteFile(stop, nil, 0o666)
	c.wait(t)
	if len(failures) > 0 {
		t.Fatalf("%d bad reads, first: %v", len(failures), failures[0])
	}
	if len(seen) != 2 {
		t.Errorf("saw only %v: the writer did not run alongside", seen)
	}
	t.Logf("values seen: %v", seen)
	checkClean(t, dir)
}

// TestCrossProcessCAS: four processes each make 100 read-modify-CAS
// increments of one counter, retrying on *StaleError; none is lost.
func TestCrossProcessCAS(t *testing.T) {
	dir, s := newRepo(t, Options{})
	const procs, each = 4, 100
	if err := s.Update("refs/heads/counter", counterHash(0), plumbing.ZeroHash); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var children []*child
	for i := 0; i < procs; i++ {
		children = append(children, startChild(t, "counter", dir, fmt.Sprint("REFS_TEST_N=", each)))
	}
	total, stale := 0, 0
	for _, c := range children {
		var n, st int
		if _, err := fmt.Sscanf(c.line(t), "ok %d %d", &n, &st); err != nil {
			t.Fatal(err)
		}
		c.wait(t)
		total += n
		stale += st
	}
	h, err := s.Read("refs/heads/counter")
	if err != nil {
		t.Fatal(err)
	}
	v, ok := counterValue(h)
	if !ok || v != procs*each || total != procs*each {
		t.Fatalf("counter = %d (%v), successes %d; want %d", v, ok, total, procs*each)
	}
	t.Logf("%d increments, %d stale retries, %v", total, stale, time.Since(start))
	checkClean(t, dir)
}

// TestCounterDetectsLostUpdates shows that the counter check above can
// fail: blind writes (CAS against whatever is there now) lose increments.
func TestCounterDetectsLostUpdates(t *testing.T) {
	_, s := newRepo(t, Options{})
	const name = "refs/heads/counter"
	s.Update(name, counterHash(0), plumbing.ZeroHash)
	// Two writers read the same value, then both write value+1.
	cur, _ := s.Read(name)
	v, _ := counterValue(cur)
	if err := s.Update(name, counterHash(v+1), cur); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(name, counterHash(v+1), cur); !errors.Is(err, ErrStale) {
		t.Fatalf("second writer with a stale read: %v", err)
	}
}
