package service

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/deloreis/deloreis/dke/eval"
	"github.com/deloreis/deloreis/lorestore"
)

// Rule modules the property test compiles, forgets and reloads.
const (
	bigRule50 = "@rule\ndef big(i, q):\n    if Item[i].qty == q and q > 50:\n        Item[i].big = True\n"
	moreRules = "@rule\ndef free(i, q):\n    if Item[i].qty == q and not Item[i].hold == True:\n        Item[i].free = q\n\n" +
		"@rule\ndef below(a, b, x, y):\n    if Item[a].qty == x and Item[b].qty == y and x < y:\n        Item[a].below = True\n"
)

// ruleProbe prints every subject's conclusions with their proofs: the
// claims and rules the model holds.
func ruleProbe(subjects int) string {
	var b strings.Builder
	for k := range subjects {
		fmt.Fprintf(&b, "print(why(Item.i%d.big))\nprint(why(Item.i%d.free))\nprint(current(Item.i%d.below))\n", k, k, k)
	}
	return b.String()
}

// cachedAt reports whether the service holds a rule model of the store at
// its head.
func cachedAt(f *fixture, store string) (*eval.Rules, lorestore.Hash) {
	f.svc.mu.Lock()
	defer f.svc.mu.Unlock()
	head, err := f.ls.Head(lorestore.DefaultBranch)
	if err != nil {
		f.t.Fatal(err)
	}
	return f.svc.rules.get(store, head), head
}

// randomOp is one step of the property test: a run that writes (and may
// query), fails or rolls back, or a change of the rule set.
func randomOp(r *rand.Rand, step, subjects int) (string, map[string]any) {
	write := func() string {
		k := r.IntN(subjects)
		vals := []string{"1", "50", "51", "98", "99", "120", fmt.Sprint(200 + step)}
		switch r.IntN(5) {
		case 0:
			return fmt.Sprintf("update(Item.i%d.qty, %s, \"u\")\n", k, vals[r.IntN(len(vals))])
		case 1:
			return fmt.Sprintf("remember(Item.i%d.hold, True, \"h\")\n", k)
		case 2:
			return fmt.Sprintf("forget(Item.i%d.%s)\n", k, []string{"qty", "hold"}[r.IntN(2)])
		}
		return fmt.Sprintf("remember(Item.i%d.qty, %s, \"s\")\n", k, vals[r.IntN(len(vals))])
	}
	run := func(src string) (string, map[string]any) { return "run", map[string]any{"source": src} }
	switch n := r.IntN(20); {
	case n < 9:
		src := write()
		for range r.IntN(3) {
			if r.IntN(2) == 0 {
				src += fmt.Sprintf("print(current(Item.i%d.big), current(Item.i%d.free))\n", r.IntN(subjects), r.IntN(subjects))
			}
			src += write()
		}
		return run(src)
	case n < 11:
		return run(write() + "print(current(Item.i0.big))\nprint(1/0)\n")
	case n < 12:
		return run("branch:\n    " + write() + "    print(current(Item.i1.big))\n    rollback\n")
	case n < 13:
		return "compile", map[string]any{"name": "rules", "source": []string{bigRule, bigRule50}[r.IntN(2)]}
	case n < 14:
		return "compile", map[string]any{"name": "more", "source": moreRules}
	case n < 15:
		return "compile", map[string]any{"name": "rules"}
	case n < 16:
		return "forget_rule", map[string]any{"name": []string{"rules.big", "more.free", "more.below"}[r.IntN(3)]}
	case n < 17:
		return "forget_module", map[string]any{"name": []string{"rules", "more"}[r.IntN(2)], "confirm": true}
	}
	return run(fmt.Sprintf("print(current(Item.i%d.big))\n", r.IntN(subjects)))
}

// TestRuleModelFollowsRuns holds the carried rule model equal to one
// built from scratch: after every step of random sequences of writes,
// failed and rolled-back runs, compiles, reloads and forgets, a probe of
// every conclusion and its proof answers as a service with no cache
// answers over the same commit.
func TestRuleModelFollowsRuns(t *testing.T) {
	const subjects, steps = 5, 40
	hits := 0
	for seed := range uint64(6) {
		f := newFixture(t)
		ctx := context.Background()
		f.mustOK(ctx, "compile", map[string]any{"name": "rules", "source": bigRule})
		r := rand.New(rand.NewPCG(seed, 34))
		probe := map[string]any{"source": ruleProbe(subjects)}
		for step := range steps {
			tool, args := randomOp(r, step, subjects)
			f.call(ctx, tool, args) // refusals (a forgotten rule's name) are steps too
			if rules, _ := cachedAt(f, DefaultStore); rules != nil {
				hits++
			}
			got := f.mustOK(ctx, "run", probe)
			fresh, err := New(Config{Store: f.ls, Authority: "test"})
			if err != nil {
				t.Fatal(err)
			}
			want := (&fixture{t: t, ls: f.ls, svc: fresh}).mustOK(ctx, "run", probe)
			if got != want {
				t.Fatalf("seed %d, step %d, after %s %v:\ncarried model:\n%s\nfrom scratch:\n%s", seed, step, tool, args, got, want)
			}
		}
	}
	if hits < 6*steps/3 {
		t.Errorf("the carried model was there for %d of %d probes: the test does not exercise it", hits, 6*steps)
	}
}

// TestRefusedRunLeavesRuleCache: a run its budget stops while advancing
// the carried model writes nothing and leaves the cached model as it was,
// which the next run starts from.
func TestRefusedRunLeavesRuleCache(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.mustOK(ctx, "compile", map[string]any{"name": "more", "source": moreRules})
	f.mustOK(ctx, "run", map[string]any{"source": "remember(Item.i0.qty, 1, \"s\")\nremember(Item.i1.qty, 2, \"s\")\nprint(current(Item.i0.below))\n"})
	before, head := cachedAt(f, DefaultStore)
	if before == nil {
		t.Fatal("no rule model cached after a run that queried the rules")
	}
	// A hundred new values: the below tuples the carried model derives
	// over them (each pair with x < y) pass the budget.
	var src strings.Builder
	for k := range 100 {
		fmt.Fprintf(&src, "remember(Item.n%d.qty, %d, \"s\")\n", k, 1000+k)
	}
	src.WriteString("print(current(Item.n0.below))\n")
	f.svc.cfg.Budget.Memory = 8 << 10
	a, text := f.call(ctx, "run", map[string]any{"source": src.String()})
	f.svc.cfg.Budget.Memory = DefaultBudgetMemory
	if a.OK() || a.Err.Code != CodeBudget {
		t.Fatalf("the run was not refused by its budget: %s", text)
	}
	t.Logf("refused: %s", a.Err.Message)
	after, headAfter := cachedAt(f, DefaultStore)
	if after != before || headAfter != head {
		t.Fatalf("the refused run changed the cache: %p at %s, was %p at %s", after, headAfter, before, head)
	}
	// Were the refused run's facts left in the model, 500 would be below
	// the values it tried to write.
	src.Reset()
	src.WriteString("remember(Item.i1.qty, 500, \"s\")\nprint(current(Item.i0.below), current(Item.i1.below).found, current(Item.n0.qty).found)\n")
	if got := f.mustOK(ctx, "run", map[string]any{"source": src.String()}); !strings.Contains(got, "print: Item.i0.below = True False False") {
		t.Errorf("after the refused run: %s", got)
	}
}

// TestRacedRunDropsRuleModel: a run whose commit another writer raced
// committed more than it wrote over a head it did not read; its model is
// not kept, and the next run sees the other writer's claim.
func TestRacedRunDropsRuleModel(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.mustOK(ctx, "compile", map[string]any{"name": "rules", "source": bigRule})
	f.mustOK(ctx, "run", map[string]any{"source": "remember(Item.i0.qty, 99, \"s\")\nprint(current(Item.i0.big))\n"})
	other, err := New(Config{Store: f.ls, Authority: "other"})
	if err != nil {
		t.Fatal(err)
	}
	f.svc.beforeRunCommit = func(attempt int) {
		if attempt == 0 {
			if _, err := other.Run(ctx, &RunParams{Source: "remember(Item.i2.qty, 99, \"o\")\n"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	f.mustOK(ctx, "run", map[string]any{"source": "remember(Item.i1.qty, 99, \"s\")\nprint(current(Item.i1.big))\n"})
	f.svc.beforeRunCommit = nil
	if rules, _ := cachedAt(f, DefaultStore); rules != nil {
		t.Error("a raced run's model is cached at the head it did not read")
	}
	if got := f.mustOK(ctx, "run", map[string]any{"source": "print(current(Item.i0.big).found, current(Item.i1.big).found, current(Item.i2.big).found)\n"}); !strings.Contains(got, "print: True True True") {
		t.Errorf("after the race: %s", got)
	}
}

// TestRuleCacheBounds: the cache keeps one model per store, at most
// maxModels and maxCells between them, evicting the least recently used.
func TestRuleCacheBounds(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.svc.rules.maxModels, f.svc.rules.maxCells = 3, 10
	stores := []string{"s0", "s1", "s2", "s3"}
	n := 0
	query := func(store string, writes int) {
		var src strings.Builder
		for range writes {
			n++
			fmt.Fprintf(&src, "remember(Item.c%d.qty, 99, \"s\")\n", n)
		}
		src.WriteString("print(current(Item.i0.big))\n")
		f.mustOK(ctx, "run", map[string]any{"source": src.String(), "store_id": store})
	}
	held := func() string {
		var out []string
		for _, e := range f.svc.rules.entries {
			out = append(out, fmt.Sprintf("%s:%d", e.store, e.rules.Cells()))
		}
		return strings.Join(out, " ")
	}
	for _, s := range stores {
		f.mustOK(ctx, "compile", map[string]any{"name": "rules", "source": bigRule, "store_id": s})
	}
	// Each step runs a query over a store after writing as many new
	// cells; the cache is listed least recently used first.
	steps := []struct {
		store  string
		writes int
		want   string
	}{
		{"s0", 2, "s0:2"},
		{"s1", 2, "s0:2 s1:2"},
		{"s2", 2, "s0:2 s1:2 s2:2"},
		{"s3", 2, "s1:2 s2:2 s3:2"}, // past three models: s0 goes
		{"s1", 0, "s2:2 s3:2 s1:2"}, // a hit makes s1 the most recent
		{"s2", 3, "s3:2 s1:2 s2:5"}, // one model per store, advanced
		{"s0", 1, "s1:2 s2:5 s0:3"}, // s0 rebuilt; s3 goes
		{"s3", 9, "s1:2 s2:5 s0:3"}, // a model past the cells alone is not kept
		{"s1", 2, "s0:3 s1:4"},      // past ten cells: s2 goes
		{"s0", 0, "s1:4 s0:3"},
	}
	for i, st := range steps {
		query(st.store, st.writes)
		if got := held(); got != st.want {
			t.Fatalf("step %d (%s, %d writes): cache holds %q, want %q", i, st.store, st.writes, got, st.want)
		}
	}
}

// TestRuleModelsOfConcurrentServices: two services over one lorestore
// (two processes), each with its own cache, run writes and queries from
// four goroutines; every run's query sees its own write, and at the end
// both answer the probe as a service with no cache does.
func TestRuleModelsOfConcurrentServices(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.mustOK(ctx, "compile", map[string]any{"name": "more", "source": moreRules})
	second, err := New(Config{Store: f.ls, Authority: "second"})
	if err != nil {
		t.Fatal(err)
	}
	svcs := []*Service{f.svc, second}
	const subjects, runs = 6, 12
	var wg sync.WaitGroup
	errs := make(chan error, 4*runs)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range runs {
				k, q := (w+i)%subjects, 10*w+i
				src := fmt.Sprintf("update(Item.i%d.qty, %d, \"w%d\")\nprint(current(Item.i%d.free).value)\n", k, q, w, k)
				r, err := svcs[(w+i)%2].Run(ctx, &RunParams{Source: src})
				if err == nil && !strings.Contains(r.Text, fmt.Sprintf("print: %d\n", q)) {
					err = fmt.Errorf("run %q: %s", src, r.Text)
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	probe := map[string]any{"source": ruleProbe(subjects)}
	fresh, err := New(Config{Store: f.ls, Authority: "test"})
	if err != nil {
		t.Fatal(err)
	}
	want := (&fixture{t: t, ls: f.ls, svc: fresh}).mustOK(ctx, "run", probe)
	for i, svc := range svcs {
		if got := (&fixture{t: t, ls: f.ls, svc: svc}).mustOK(ctx, "run", probe); got != want {
			t.Errorf("service %d:\n%s\nfrom scratch:\n%s", i, got, want)
		}
	}
}
