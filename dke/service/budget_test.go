package service

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deloreis/deloreis/internal/testenv"

	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/keys"
	"github.com/deloreis/deloreis/lorestore"
)

// seedClaims writes claims into store id in one lorestore commit, making
// the store.
func seedClaims(t testing.TB, f *fixture, id string, cs []claims.Claim) {
	t.Helper()
	batch := lorestore.NewBatch()
	for i, c := range cs {
		c.At, c.Source = int64(i+1), "seed"
		_, data, err := claimID(c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := batch.PutDKEClaim(id, c.Cell.Kind, data); err != nil {
			t.Fatal(err)
		}
	}
	hdr, _ := json.Marshal(header{Store: id, Created: "2026-01-01T00:00:00Z", Clock: int64(len(cs))})
	if err := batch.PutDKEHeader(id, hdr); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ls.Commit(batch, lorestore.NewMessage("seed", "test", ""), lorestore.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
}

func cell(kind, subj, attr string) claims.Cell {
	return claims.Cell{Kind: kind, Subject: subj, Attr: attr}
}

// readings are the over_limit shape of issue 32 (and 34): n readings of ten
// sensors with distinct values, and each sensor's limit.
func readings(n int) []claims.Claim {
	var cs []claims.Claim
	for k := range n {
		r := fmt.Sprintf("r%d", k)
		cs = append(cs,
			claims.Claim{Cell: cell("Reading", r, "sensor"), Value: claims.Str(fmt.Sprintf("s%d", k%10))},
			claims.Claim{Cell: cell("Reading", r, "value"), Value: claims.Int(int64(k))})
	}
	for j := range 10 {
		cs = append(cs, claims.Claim{Cell: cell("Limit", fmt.Sprintf("s%d", j), "max"), Value: claims.Int(int64(n/2 + j))})
	}
	return cs
}

const overLimit = `@rule
def over_limit(r, s, v, m):
    if Reading[r].sensor == s and Reading[r].value == v and Limit[s].max == m and v > m:
        Reading[r].over = True
`

// call is one timed tool call.
type timedCall struct {
	resp answer
	text string
	took time.Duration
}

func (f *fixture) timed(ctx context.Context, tool string, args map[string]any) timedCall {
	t0 := time.Now()
	resp, txt := f.call(ctx, tool, args)
	return timedCall{resp, txt, time.Since(t0)}
}

// peakHeap is testenv.PeakHeap at this file's sampling interval.
func peakHeap(fn func()) uint64 { return testenv.PeakHeap(20*time.Millisecond, fn) }

// wantBudget fails unless the call was refused with budget-exceeded
// naming the budget.
func wantBudget(t *testing.T, c timedCall, budget string) {
	t.Helper()
	if c.resp.OK() {
		t.Fatalf("the call answered (%s) after %v; want budget-exceeded", firstLine(c.text), c.took)
	}
	if c.resp.Err.Code != CodeBudget || c.resp.Err.Data["budget"] != budget {
		t.Fatalf("refused with %s (%v): %s; want %s naming the %s budget", c.resp.Err.Code, c.resp.Err.Data, c.resp.Err.Message, CodeBudget, budget)
	}
	if budget != "canceled" && !strings.Contains(c.resp.Err.Message, "--budget-"+budget) {
		t.Fatalf("the message names no way to raise the budget: %s", c.resp.Err.Message)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// items are n items with distinct quantities 0…n-1.
func items(n int) []claims.Claim {
	var cs []claims.Claim
	for k := range n {
		cs = append(cs, claims.Claim{Cell: cell("Item", fmt.Sprintf("i%d", k), "qty"), Value: claims.Int(int64(k))})
	}
	return cs
}

// below compares the quantities of every pair of items: a genuine cross
// product, n² matches of which half satisfy the comparison.
const below = "@rule\ndef below(a, b, x, y):\n    if Item[a].qty == x and Item[b].qty == y and x < y:\n        Item[a].below = True\n"

// TestBudgetStopsCrossProduct: a rule over every pair of 8,000 items (32
// million derivations), then one run reading it, is refused with
// budget-exceeded within seconds and little memory, writes nothing, and a
// call on another store made meanwhile is answered. (Issue 32's over_limit
// was this test's program until comparisons became the engine's: it now
// answers, TestOverLimitAnswers.)
func TestBudgetStopsCrossProduct(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	seedClaims(t, f, "default", items(8000))
	f.mustOK(ctx, "compile", map[string]any{"name": "rules", "source": below})
	f.mustOK(ctx, "run", map[string]any{"store_id": "other", "source": "remember(A.a.x, 1, \"s\")\n"})
	head := f.head()

	var first, second timedCall
	grown := peakHeap(func() {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			first = f.timed(ctx, "run", map[string]any{"source": "print(current(Item.i0.below).found)\n"})
		}()
		time.Sleep(50 * time.Millisecond) // the first call holds the service
		second = f.timed(ctx, "run", map[string]any{"store_id": "other", "source": "print(current(A.a.x).value)\n"})
		wg.Wait()
	})
	wantBudget(t, first, "memory")
	if first.took > testenv.Bound(10*time.Second) {
		t.Errorf("the cross product's run was stopped after %v; want seconds", first.took)
	}
	if grown > 1<<30 {
		t.Errorf("the heap grew by %d MiB during the cross product's run; want well under 1 GiB", grown>>20)
	}
	if !second.resp.OK() || !strings.Contains(second.text, "print: 1") {
		t.Fatalf("the other store's call: %v %s", second.resp.Err, second.text)
	}
	if second.took > testenv.Bound(10*time.Second) {
		t.Errorf("the other store's call waited %v", second.took)
	}
	if got := f.head(); got != head {
		t.Errorf("the refused run moved the branch: %s → %s", head, got)
	}
	t.Logf("x < y over every pair of 8,000 items: refused after %v, heap +%d MiB; the other store's run answered after %v: %s",
		first.took, grown>>20, second.took, first.resp.Err.Message)
}

// TestOverLimitAnswers is issue 32's over_limit: a rule comparing two
// variables over 8,000 readings, then one run reading it. When the
// comparison was lowered to facts over every pair of values the run grew
// to 24 GB, then was refused by the budget; now the engine compares the
// values the cell tests bind, and the run answers, under the default
// budget, in well under a second and a few MiB.
func TestOverLimitAnswers(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	seedClaims(t, f, "default", readings(8000))
	f.mustOK(ctx, "compile", map[string]any{"name": "limits", "source": overLimit})
	// Limit[s_j].max is 4000+j: reading k (of sensor s_{k%10}) is over
	// when k > 4000 + k%10.
	probe := []int{7999, 4000, 4009, 4010, 4011, 3999, 0}
	var src strings.Builder
	var want []string
	for _, k := range probe {
		fmt.Fprintf(&src, "print(current(Reading.r%d.over).found)\n", k)
		want = append(want, fmt.Sprintf("print: %v", map[bool]string{true: "True", false: "False"}[k > 4000+k%10]))
	}
	var c timedCall
	grown := peakHeap(func() { c = f.timed(ctx, "run", map[string]any{"source": src.String()}) })
	if !c.resp.OK() {
		t.Fatalf("over_limit at 8,000 readings: %v %s", c.resp.Err, c.text)
	}
	for _, w := range want {
		if !strings.Contains(c.text, w) {
			t.Fatalf("over_limit at 8,000 readings printed\n%s\nwant, in order, %v", c.text, want)
		}
	}
	if got := strings.Count(c.text, "print: "); got != len(want) || !strings.Contains(c.text, strings.Join(want, "\n")) {
		t.Fatalf("over_limit at 8,000 readings printed\n%s\nwant\n%s", c.text, strings.Join(want, "\n"))
	}
	if c.took > testenv.Bound(5*time.Second) || grown > 256<<20 {
		t.Errorf("over_limit at 8,000 readings took %v, heap +%d MiB; want well under a second and linear memory", c.took, grown>>20)
	}
	t.Logf("over_limit at 8,000 readings: answered after %v, heap +%d MiB", c.took, grown>>20)
}

// TestBudgetStopsCheckupByReadKey: checkup by a read key over a store
// whose rule compares two variables over every pair of 2,000 items is
// refused with budget-exceeded in bounded time and memory. Before the
// budget it took 41 s and 4.2 GB, its comparison lowered to the pairs of
// values; the engine now compares, but the rule still makes 2 million
// derivations, twice what the default budget admits.
func TestBudgetStopsCheckupByReadKey(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	seedClaims(t, f, "default", items(2000))
	f.mustOK(ctx, "compile", map[string]any{"name": "rules", "source": below})
	read := WithGrant(ctx, keys.Grant{Store: "default", Mode: keys.Read})
	var c timedCall
	grown := peakHeap(func() { c = f.timed(read, "checkup", map[string]any{}) })
	wantBudget(t, c, "memory")
	if c.took > testenv.Bound(10*time.Second) || grown > 1<<30 {
		t.Errorf("checkup stopped after %v, heap +%d MiB; want seconds and well under 1 GiB", c.took, grown>>20)
	}
	t.Logf("checkup by a read key, x < y over every pair of 2,000 items: refused after %v, heap +%d MiB", c.took, grown>>20)
}

// TestCheckupComparesTwoVariables: checkup by a read key, and a run, over
// a store whose rule compares two variables over 2,000 distinct values
// (each item's quantity with its successor's) answer under the default
// budget. When the comparison was lowered to the pairs of values (4
// million of them) both were refused for their memory budget.
func TestCheckupComparesTwoVariables(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	cs := items(2000)
	for k := range 2000 {
		// i_k's successor is i_{k*7 mod 2000}: smaller or greater.
		cs = append(cs, claims.Claim{Cell: cell("Item", fmt.Sprintf("i%d", k), "next"), Value: claims.Str(fmt.Sprintf("i%d", k*7%2000))})
	}
	seedClaims(t, f, "default", cs)
	f.mustOK(ctx, "compile", map[string]any{"name": "rules", "source": "@rule\ndef rising(a, b, x, y):\n    if Item[a].next == b and Item[a].qty == x and Item[b].qty == y and x < y:\n        Item[a].rising = True\n"})
	read := WithGrant(ctx, keys.Grant{Store: "default", Mode: keys.Read})
	var c timedCall
	grown := peakHeap(func() { c = f.timed(read, "checkup", map[string]any{}) })
	if !c.resp.OK() || !strings.Contains(c.text, "4000 claims") || !strings.Contains(c.text, "1 rule") {
		t.Fatalf("checkup: %v %s", c.resp.Err, c.text)
	}
	if c.took > testenv.Bound(5*time.Second) || grown > 256<<20 {
		t.Errorf("checkup answered after %v, heap +%d MiB; want well under a second and linear memory", c.took, grown>>20)
	}
	var src strings.Builder
	var want []string
	for k := 0; k < 2000; k += 97 {
		fmt.Fprintf(&src, "print(current(Item.i%d.rising).found)\n", k)
		want = append(want, "print: "+map[bool]string{true: "True", false: "False"}[k < k*7%2000])
	}
	r := f.timed(ctx, "run", map[string]any{"source": src.String()})
	if !r.resp.OK() || !strings.Contains(r.text, strings.Join(want, "\n")) {
		t.Fatalf("reading the rule: %v\n%s\nwant\n%s", r.resp.Err, r.text, strings.Join(want, "\n"))
	}
	t.Logf("x < y over 2,000 values: checkup by a read key answered after %v (heap +%d MiB), a run reading it after %v", c.took, grown>>20, r.took)
}

// doubling returns a program that doubles an 8-byte string n times, then
// runs tail prints times.
func doubling(n, prints int, tail string) string {
	var b strings.Builder
	b.WriteString("s = \"abcdefgh\"\n")
	for range n {
		b.WriteString("s = s + s\n")
	}
	for range prints {
		b.WriteString(tail + "\n")
	}
	return b.String()
}

// TestBudgetCountsBytes: the memory budget counts the bytes a run builds,
// prints and writes. Before it, a program doubling a string to 8 MiB and
// printing it 1,000 times built an 8 GiB transcript (the server died of a
// 2.4 GB allocation), and a 44 KB program wrote a 367 MB commit.
func TestBudgetCountsBytes(t *testing.T) {
	cases := []struct {
		name, source string
	}{
		{"print a doubled string 1,000 times", doubling(20, 1000, "print(s)")},
		{"write a doubled string 100 times", func() string {
			var b strings.Builder
			b.WriteString(doubling(20, 0, ""))
			for i := range 100 {
				fmt.Fprintf(&b, "remember(Blob.b%d.data, s, \"s\")\n", i)
			}
			return b.String()
		}()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			ctx := context.Background()
			head := f.head()
			var r timedCall
			grown := peakHeap(func() { r = f.timed(ctx, "run", map[string]any{"source": c.source}) })
			wantBudget(t, r, "memory")
			if r.took > testenv.Bound(10*time.Second) || grown > 512<<20 {
				t.Errorf("stopped after %v, heap +%d MiB", r.took, grown>>20)
			}
			if got := f.head(); got != head {
				t.Errorf("the refused run wrote a commit")
			}
			t.Logf("%d-byte program: refused after %v, heap +%d MiB", len(c.source), r.took, grown>>20)
		})
	}
}

// TestBudgetTimeAndCancel: a run stops when its time budget passes, or
// when its caller cancels it (notifications/cancelled, a closed HTTP
// request), however much memory budget it has left.
func TestBudgetTimeAndCancel(t *testing.T) {
	for _, c := range []struct {
		name   string
		budget Budget
		ctx    func() (context.Context, context.CancelFunc)
		want   string
	}{
		{"time", Budget{Time: 300 * time.Millisecond, Memory: 1 << 40},
			func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, "time"},
		{"canceled", Budget{Memory: 1 << 40}, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(300*time.Millisecond, cancel)
			return ctx, cancel
		}, "canceled"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			// Every pair of 8,000 items: minutes of rule evaluation,
			// which only the clock stops here.
			seedClaims(t, f, "default", items(8000))
			f.mustOK(context.Background(), "compile", map[string]any{"name": "rules", "source": below})
			f.svc.cfg.Budget = c.budget.withDefaults()
			ctx, cancel := c.ctx()
			defer cancel()
			r := f.timed(ctx, "run", map[string]any{"source": "print(current(Item.i0.below).found)\n"})
			wantBudget(t, r, c.want)
			if r.took > testenv.Bound(3*time.Second) {
				t.Errorf("stopped %v after the call began; want soon after 300ms", r.took)
			}
			t.Logf("stopped after %v: %s", r.took, r.resp.Err.Message)
		})
	}
}
