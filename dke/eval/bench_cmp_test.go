package eval

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/deloreis/deloreis/internal/testenv"

	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/keywords"
)

// pairsWorld is a store of n items, each with two numbers a and b, all 2n
// of them distinct, and a rule comparing the two variables they bind:
// before the engine compared, the rule was lowered to a table of the
// (2n)² pairs of values.
func pairsWorld(tb testing.TB, n int) *world {
	w := newWorld()
	snap, _ := w.store.Snapshot()
	tx := claims.NewTx(snap)
	for i := range n {
		s := "i" + strconv.Itoa(i)
		tx.Remember(claims.Cell{Kind: "Item", Subject: s, Attr: "a"}, claims.Int(int64(2*i)), "seed")
		tx.Remember(claims.Cell{Kind: "Item", Subject: s, Attr: "b"}, claims.Float(float64((i*7919)%n)*2+0.5), "seed")
	}
	if _, err := w.store.Commit(tx.Changes()); err != nil {
		tb.Fatal(err)
	}
	mod := "@rule\ndef ordered(i, x, y):\n    if Item[i].a == x and Item[i].b == y and x < y:\n        Item[i].ordered = True\n"
	w.do(tb, step{compile: "pairs", lang: keywords.Eng, src: mod})
	return w
}

// pairsWant is what the pairs world's probe prints: whether items 1 and
// n-1 are ordered.
func pairsWant(n int) string {
	ordered := func(i int) string {
		if float64(2*i) < float64((i*7919)%n)*2+0.5 {
			return "True"
		}
		return "False"
	}
	return ordered(1) + " " + ordered(n-1)
}

// peakHeap is testenv.PeakHeap at this file's sampling interval.
func peakHeap(fn func()) uint64 { return testenv.PeakHeap(5*time.Millisecond, fn) }

// BenchmarkCompareVars is a run reading a rule that compares two variables
// over 1k, 10k and 100k distinct values (500, 5,000 and 50,000 items of
// two values each); the rule model is built from scratch each run. It
// reports the peak heap of a run and its bytes allocated beside its time,
// so that the growth with the size shows.
func BenchmarkCompareVars(b *testing.B) {
	for _, values := range []int{1_000, 10_000, 100_000} {
		b.Run(strconv.Itoa(values/1000)+"k-values", func(b *testing.B) {
			b.ReportAllocs()
			n := values / 2
			w := pairsWorld(b, n)
			f := benchProgram(b, w, fmt.Sprintf("print(current(Item.i1.ordered).found, current(Item.i%d.ordered).found)", n-1))
			want := pairsWant(n)
			var peak uint64
			for b.Loop() {
				grown := peakHeap(func() {
					r := Run(f, Options{Store: w.store, Modules: w.mods, Memory: 1 << 30})
					if got := r.Prints(); len(got) != 1 || got[0] != want {
						b.Fatalf("%v, want %s: %s", got, want, r.Transcript())
					}
				})
				peak = max(peak, grown)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
		})
	}
}

// overLimitWorld is issue 34's over_limit: n readings of ten sensors with
// distinct values, each sensor's limit, and a rule comparing a reading's
// value with its sensor's limit.
func overLimitWorld(tb testing.TB, n int) *world {
	w := newWorld()
	snap, _ := w.store.Snapshot()
	tx := claims.NewTx(snap)
	for k := range n {
		r := "r" + strconv.Itoa(k)
		tx.Remember(claims.Cell{Kind: "Reading", Subject: r, Attr: "sensor"}, claims.Str("s"+strconv.Itoa(k%10)), "seed")
		tx.Remember(claims.Cell{Kind: "Reading", Subject: r, Attr: "value"}, claims.Int(int64(k)), "seed")
	}
	for j := range 10 {
		tx.Remember(claims.Cell{Kind: "Limit", Subject: "s" + strconv.Itoa(j), Attr: "max"}, claims.Int(int64(n/2+j)), "seed")
	}
	if _, err := w.store.Commit(tx.Changes()); err != nil {
		tb.Fatal(err)
	}
	mod := "@rule\ndef over_limit(r, s, v, m):\n    if Reading[r].sensor == s and Reading[r].value == v and Limit[s].max == m and v > m:\n        Reading[r].over = True\n"
	w.do(tb, step{compile: "limits", lang: keywords.Eng, src: mod})
	return w
}

// BenchmarkOverLimit8000 is a run reading over_limit over 8,000 readings
// (before the engine compared: killed at 24 GB after 430 s), under the
// default memory budget.
func BenchmarkOverLimit8000(b *testing.B) {
	w := overLimitWorld(b, 8000)
	f := benchProgram(b, w, "print(current(Reading.r7999.over).found, current(Reading.r4000.over).found, current(Reading.r4011.over).found)")
	var peak uint64
	for b.Loop() {
		grown := peakHeap(func() {
			r := Run(f, Options{Store: w.store, Modules: w.mods})
			if got := r.Prints(); len(got) != 1 || got[0] != "True False True" {
				b.Fatal(r.Transcript())
			}
		})
		peak = max(peak, grown)
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
}
