// Benchmarks of acceptance 6: a trivial run (median), the compile of a
// 1,000-line module, a rule over 100,000 claims (a repeated query, and a
// write then a query: issue 34), checkup on 100,000 claims, and loading
// the index of 100,000 claims.

package service

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/lorestore"
)

// seed writes n claims Item.i<k>.qty = k in one lorestore commit.
func seed(b *testing.B, f *fixture, n int) {
	b.Helper()
	batch := lorestore.NewBatch()
	for k := range n {
		c := claims.Claim{Cell: claims.Cell{Kind: "Item", Subject: fmt.Sprintf("i%d", k), Attr: "qty"}, Value: claims.Int(int64(k % 100)), Source: "seed", At: int64(k + 1)}
		_, data, err := claimID(c)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := batch.PutDKEClaim("default", "Item", data); err != nil {
			b.Fatal(err)
		}
	}
	hdr, _ := json.Marshal(header{Store: "default", Created: "2026-01-01T00:00:00Z", Clock: int64(n)})
	if err := batch.PutDKEHeader("default", hdr); err != nil {
		b.Fatal(err)
	}
	if _, err := f.ls.Commit(batch, lorestore.NewMessage("seed", "test", ""), lorestore.CommitOptions{}); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkTrivialRun(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	args := map[string]any{"source": "print(\"hi\")\n"}
	var ds []time.Duration
	for b.Loop() {
		t0 := time.Now()
		f.mustOK(ctx, "run", args)
		ds = append(ds, time.Since(t0))
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "median-µs")
}

func BenchmarkRememberRun(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		f.mustOK(ctx, "run", map[string]any{"source": fmt.Sprintf("remember(A.a%d.x, 1, \"s\")\n", i)})
	}
}

// module1000 is a module of 1,000 lines: 250 scripts of four lines.
func module1000() string {
	var s strings.Builder
	for i := range 250 {
		fmt.Fprintf(&s, "def s%d(id: string) -> int:\n    c = current(Widget[id].stock)\n    return %d\n\n", i, i)
	}
	return s.String()
}

func BenchmarkCompile1000Lines(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	src := module1000()
	if n := strings.Count(src, "\n"); n != 1000 {
		b.Fatalf("%d lines", n)
	}
	i := 0
	for b.Loop() {
		i++
		// A new name each time, so every iteration stores a module.
		f.mustOK(ctx, "compile", map[string]any{"name": fmt.Sprintf("big%d", i), "source": src})
	}
}

func BenchmarkLoad100k(b *testing.B) {
	f := newFixture(b)
	seed(b, f, 100_000)
	for b.Loop() {
		cs := &claimStore{svc: f.svc, id: "default"}
		if _, err := cs.Snapshot(); err != nil {
			b.Fatal(err)
		}
	}
}

// ruleClaims is the size of the rule benchmarks: 100,000 claims, or
// 2,000 under -short (CI runs each benchmark once).
func ruleClaims() int {
	if testing.Short() {
		return 2_000
	}
	return 100_000
}

// bigRule is a rule over every Item's qty, concluding Item.*.big.
const bigRule = "@rule\ndef big(i, q):\n    if Item[i].qty == q and q > 97:\n        Item[i].big = True\n"

// ruleFixture seeds n claims and compiles bigRule.
func ruleFixture(b *testing.B, n int) *fixture {
	f := newFixture(b)
	seed(b, f, n)
	f.mustOK(context.Background(), "compile", map[string]any{"name": "rules", "source": bigRule})
	return f
}

// reportPerRun reports the median and the 90th percentile ms per run.
func reportPerRun(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "median-ms/run")
	b.ReportMetric(float64(ds[len(ds)*9/10].Microseconds())/1000, "p90-ms/run")
}

// BenchmarkRuleOver100k repeats a run that queries the rule's result over
// the same commit.
func BenchmarkRuleOver100k(b *testing.B) {
	f := ruleFixture(b, ruleClaims())
	ctx := context.Background()
	args := map[string]any{"source": "print(current(Item.i98.big).found, current(Item.i5.big).found)\n"}
	if got := f.mustOK(ctx, "run", args); !strings.Contains(got, "print: True False") {
		b.Fatalf("rule: %s", got)
	}
	var ds []time.Duration
	for b.Loop() {
		t0 := time.Now()
		f.mustOK(ctx, "run", args)
		ds = append(ds, time.Since(t0))
	}
	reportPerRun(b, ds)
}

// BenchmarkRuleWriteOver100k repeats a run that writes one claim the rule
// reads, then queries the rule's result at it: each run makes a commit.
func BenchmarkRuleWriteOver100k(b *testing.B) {
	n := ruleClaims()
	f := ruleFixture(b, n)
	ctx := context.Background()
	f.mustOK(ctx, "run", map[string]any{"source": "print(current(Item.i98.big).found)\n"})
	var ds []time.Duration
	i := 0
	for b.Loop() {
		i++
		q, want := 98+i%2, "True"
		if i%4 >= 2 {
			q, want = i%90, "False"
		}
		src := fmt.Sprintf("remember(Item.i%d.qty, %d, \"s\")\nprint(current(Item.i%d.big).found)\n", i%n, q, i%n)
		t0 := time.Now()
		got := f.mustOK(ctx, "run", map[string]any{"source": src})
		ds = append(ds, time.Since(t0))
		if !strings.Contains(got, "print: "+want) {
			b.Fatalf("run %d: %s", i, got)
		}
	}
	reportPerRun(b, ds)
}

func BenchmarkCheckup100k(b *testing.B) {
	f := newFixture(b)
	seed(b, f, 100_000)
	ctx := context.Background()
	f.mustOK(ctx, "compile", map[string]any{"name": "rules", "source": "@rule\ndef big(i, q):\n    if Itme[i].qty == q and q > 97:\n        Item[i].big = True\n"})
	args := map[string]any{}
	if got := f.mustOK(ctx, "checkup", args); !strings.Contains(got, "near Item.*.qty ~ Itme.*.qty") {
		b.Fatalf("checkup: %s", got)
	}
	for b.Loop() {
		f.mustOK(ctx, "checkup", args)
	}
}

// BenchmarkRememberAt100k is one write into a store of 100,000 claims: the
// index is advanced, not re-read.
func BenchmarkRememberAt100k(b *testing.B) {
	f := newFixture(b)
	seed(b, f, 100_000)
	ctx := context.Background()
	f.mustOK(ctx, "checkup", map[string]any{}) // load the index once
	i := 0
	for b.Loop() {
		i++
		f.mustOK(ctx, "run", map[string]any{"source": fmt.Sprintf("remember(Item.n%d.qty, 1, \"s\")\n", i)})
	}
}
