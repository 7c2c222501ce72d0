package author

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

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
