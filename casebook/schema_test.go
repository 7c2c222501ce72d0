package casebook_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/deloreis/deloreis"
	"github.com/deloreis/deloreis/casebook"
	"github.com/deloreis/deloreis/internal/testenv"
	"github.com/deloreis/deloreis/mcpserve"
)

// TestCasebookKeepsTheSchemas replays the Holmes casebook over MCP and
// validates every call's structured result against its op's committed
// response schema (contracts/dli-worker/schemas, the line without its id
// and ok): a result outside its schema fails the test (DL-0429).
func TestCasebookKeepsTheSchemas(t *testing.T) {
	schemas := testenv.DLISchemas(t, "..")
	ops := map[string]string{} // tool name -> op
	for _, op := range schemas.Ops() {
		ops[mcpserve.ToolName(op)] = op
	}
	project, script := deloreis.Casebook()
	story, err := casebook.Replay(context.Background(), project, script)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for i, st := range story.Steps {
		if !st.IsCall() {
			continue
		}
		calls++
		op, ok := ops[st.Tool]
		if !ok {
			t.Errorf("step %d: tool %s has no committed schema", i, st.Tool)
			continue
		}
		raw, err := json.Marshal(st.Result)
		if err != nil {
			t.Fatal(err)
		}
		if err := schemas.Structured(op, raw, st.Outcome != "ok"); err != nil {
			t.Errorf("step %d: %v", i, err)
		}
	}
	if calls < 20 {
		t.Fatalf("the casebook made %d calls", calls)
	}
}
