package author

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deloreis/deloreis/internal/testenv"

	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/objects"
)

// TestStagingBudget: a staging op or an import whose evaluation passes the
// time budget, or whose request is canceled, is refused with
// budget-exceeded naming the budget, and stages and commits nothing; with
// the budget lifted the same calls succeed. Fails with the world's
// evaluation not under the request's context (the calls then succeed).
func TestStagingBudget(t *testing.T) {
	h := newHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	fact := map[string]any{"workspace": ws, "entity": "mireth", "key": "tongue", "value": "low", "provenance": prop()}
	before := h.ok("author.status", map[string]any{"workspace": ws})

	h.svc.SetBudget(Budget{Time: time.Nanosecond}) // passed before the evaluation starts
	e := h.refused(CodeBudget, "author.add_fact", fact)
	if data := e["budget"]; data != "time" {
		t.Fatalf("refusal %v does not name the time budget", e)
	}
	h.refused(CodeBudget, "author.open_question", map[string]any{"workspace": ws, "id": "q", "prompt": "Which?"})
	if st := h.ok("author.status", map[string]any{"workspace": ws}); st["workspace_digest"] != before["workspace_digest"] || len(st["staged"].([]any)) != 0 {
		t.Fatalf("a refused staging staged something: %v", st)
	}
	src, err := os.ReadFile(filepath.Join("..", "testdata", "dli", "grail-base.dli"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := dli.Parse("grail-base.dli", src)
	if err != nil {
		t.Fatal(err)
	}
	head := func() string {
		hh, _ := h.store.Head("main")
		return hh.String()
	}
	h0 := head()
	if _, err := h.svc.Import(context.Background(), ImportRequest{Doc: doc, Materialize: true}); !isBudget(err, "time") {
		t.Fatalf("import past its budget: %v", err)
	}
	if head() != h0 {
		t.Fatal("a refused import committed")
	}

	// Canceled, however much time is left.
	h.svc.SetBudget(Budget{Time: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = AddClaim(h.svc, ctx, Guard{Op: "author.add_fact"}, &ClaimParams[*objects.Fact]{Workspace: ws,
		Object: &objects.Fact{Entity: "mireth", Key: "tongue", Value: "low", Provenance: objects.Proposed("session-7c9")}})
	if !isBudget(err, "canceled") {
		t.Fatalf("a canceled add_fact: %v", err)
	}

	h.svc.SetBudget(Budget{})
	h.ok("author.add_fact", fact)
	if _, err := h.svc.Import(context.Background(), ImportRequest{Doc: doc, Materialize: true}); err != nil {
		t.Fatalf("import: %v", err)
	}
}

func isBudget(err error, budget string) bool {
	var fe *fault.Error
	return errors.As(err, &fe) && fe.Code == CodeBudget && fe.Data["budget"] == budget
}

// chainDoc is a document of n links in a chain and the rules closing it:
// n²/2 derived atoms, each with its provenance.
func chainDoc(t *testing.T, n int) *dli.Document {
	t.Helper()
	var b strings.Builder
	b.WriteString("scope camelot\n")
	for i := range n {
		fmt.Fprintf(&b, "link(n%d, n%d) proposed s\n", i, i+1)
	}
	b.WriteString("rule reach-base: reach(X, Y) :- link(X, Y) proposed s\n")
	b.WriteString("rule reach-step: reach(X, Z) :- reach(X, Y), link(Y, Z) proposed s\n")
	doc, err := dli.Parse("chain.dli", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestImportBudgetStopsAClosure: an import whose rules close a chain of
// 2,000 links (two million derived atoms with their supports) is stopped
// by a 300 ms budget within seconds and little memory, and commits
// nothing; a check of a workspace on another document meanwhile answers.
func TestImportBudgetStopsAClosure(t *testing.T) {
	h := newHarness(t, "camelot", "logres")
	ws := h.ok("author.open", map[string]any{"scope": "logres"})["workspace"].(string)
	h.svc.SetBudget(Budget{Time: 300 * time.Millisecond})
	doc := chainDoc(t, 2000)
	h0, _ := h.store.Head("main")
	var took, other time.Duration
	var err error
	done := make(chan struct{})
	grown := heapGrowth(func() {
		go func() {
			defer close(done)
			t0 := time.Now()
			_, err = h.svc.Import(context.Background(), ImportRequest{Doc: doc, Materialize: true})
			took = time.Since(t0)
		}()
		time.Sleep(50 * time.Millisecond)
		t0 := time.Now()
		h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()})
		other = time.Since(t0)
		<-done
	})
	if !isBudget(err, "time") {
		t.Fatalf("the closure's import: %v after %v", err, took)
	}
	if took > testenv.Bound(5*time.Second) || grown > 1<<30 {
		t.Errorf("stopped after %v with the heap grown by %d MiB", took, grown>>20)
	}
	if h1, _ := h.store.Head("main"); h1 != h0 {
		t.Error("the stopped import committed")
	}
	t.Logf("import of a 2,000-link closure: refused after %v, heap +%d MiB; another workspace's add answered in %v", took, grown>>20, other)
}

// heapGrowth samples the heap in use while fn runs and returns its peak
// over the heap before.
func heapGrowth(fn func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	return peak - base
}
