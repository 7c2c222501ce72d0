package worker

import (
	"testing"

	"github.com/deloreis/deloreis/author"
)

// TestRecordDecisionFieldOnTheWire holds, over the worker envelope, that
// an invalid decision id is reported under the param that holds it
// (issue 33 item 6), not the object field "id" it becomes.
func TestRecordDecisionFieldOnTheWire(t *testing.T) {
	cases := []struct {
		op     string
		params map[string]any
		field  string
	}{
		{"author.record_decision", map[string]any{"decision": "Not An Id"}, "decision"},
		{"author.record_decisions", map[string]any{"records": []any{map[string]any{"decision": "d-1"}, map[string]any{"decision": "Not An Id"}}}, "records[1].decision"},
	}
	for _, c := range cases {
		t.Run(c.op, func(t *testing.T) {
			h := newDLIHarness(t, "camelot")
			c.params["workspace"] = h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"]
			if e := h.refused(author.CodeInvalidObject, c.op, c.params); e["field"] != c.field || e["class"] != "schema" {
				t.Fatalf("error %v, want field %q", e, c.field)
			}
		})
	}
}
