// BenchmarkReadScope: a whole section of a big store read in listing
// order and in pack order, with the pack mappings' peak resident size.

package lorestore

import (
	"bufio"
	"cmp"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deloreis/deloreis/lorestore/odb"
)

// BenchmarkReadScope reads every claim of a scope of the store named by
// DELOREIS_READ_STORE (a .lore directory, such as bench/scale builds:
// DELOREIS_READ_SCOPE names the scope, "big" unless set) both ways. The
// reads share the page cache, so run each way with -count and compare
// medians; pack-rss-MB is the peak of the packs' resident pages while it
// read, sampled from /proc/self/smaps.
func BenchmarkReadScope(b *testing.B) {
	dir := os.Getenv("DELOREIS_READ_STORE")
	if dir == "" {
		b.Skip("DELOREIS_READ_STORE names no store")
	}
	scope := cmpOr(os.Getenv("DELOREIS_READ_SCOPE"), "big")
	s, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	sn, err := s.Snapshot("main")
	if err != nil {
		b.Fatal(err)
	}
	l, err := sn.List(scope, Claims)
	if err != nil {
		b.Fatal(err)
	}
	ways := []struct {
		name string
		read func(func(int, Entry)) error
	}{
		{"listing-order", l.readInListingOrder},
		{"swept", l.readSwept},
	}
	for _, w := range ways {
		b.Run(w.name, func(b *testing.B) {
			var peak int64
			var walk time.Duration
			for b.Loop() {
				s.db.ReleasePages()
				stop := packRSSPeak(100 * time.Millisecond)
				out := make([]Entry, l.Len())
				if err := w.read(func(i int, e Entry) { out[i] = e }); err != nil {
					b.Fatal(err)
				}
				p, _ := stop()
				peak = max(peak, p)
				// What a compile does next: walk the objects in the
				// listing's order (their memory lies in the order read).
				start := time.Now()
				for _, e := range out {
					if err := e.Object.Validate(); err != nil {
						b.Fatal(err)
					}
				}
				walk += time.Since(start)
			}
			b.ReportMetric(float64(l.Len())*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
			b.ReportMetric(float64(peak)/(1<<20), "pack-rss-MB")
			b.ReportMetric(float64(walk.Nanoseconds())/float64(b.N*l.Len()), "walk-ns/object")
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// packRSSPeak samples the resident size of the process's .pack mappings
// every period until stop is called, which returns the highest sample and
// how many were taken.
func packRSSPeak(period time.Duration) (stop func() (peak int64, samples int)) {
	var peak int64
	samples := 0
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			peak = max(peak, packRSS())
			samples++
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() (int64, int) {
		close(done)
		wg.Wait()
		return peak, samples
	}
}

// packRSS is the resident size of the process's .pack mappings, from
// /proc/self/smaps; 0 when it cannot be read.
func packRSS() int64 {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0
	}
	defer f.Close()
	var sum int64
	inPack := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fs := strings.Fields(line)
		switch {
		case len(fs) > 0 && strings.Contains(fs[0], "-") && !strings.HasSuffix(fs[0], ":"):
			inPack = strings.HasSuffix(line, ".pack")
		case inPack && len(fs) > 1 && fs[0] == "Rss:":
			kb, _ := strconv.ParseInt(fs[1], 10, 64)
			sum += kb << 10
		}
	}
	return sum
}

// BenchmarkPackOrder sorts the locs of 1M files spread at random over a
// 190 MB pack (a 1M-object store's), by page with packOrder and, for
// comparison, exactly with slices.SortFunc on (loc, place) pairs.
func BenchmarkPackOrder(b *testing.B) {
	const n, size = 1 << 20, 190 << 20
	r := rand.New(rand.NewPCG(1, 2))
	locs := make([]odb.Loc, n)
	for i := range locs {
		locs[i] = odb.Loc(r.Int64N(size))
	}
	b.Run("by-page", func(b *testing.B) {
		for b.Loop() {
			packOrder([]int64{size}, locs)
		}
	})
	b.Run("sortfunc", func(b *testing.B) {
		type pair struct {
			loc odb.Loc
			at  int32
		}
		for b.Loop() {
			ps := make([]pair, n)
			for i, l := range locs {
				ps[i] = pair{l, int32(i)}
			}
			slices.SortFunc(ps, func(x, y pair) int { return cmp.Compare(x.loc, y.loc) })
		}
	})
}
