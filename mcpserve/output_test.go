package mcpserve_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/deloreis/deloreis/worker"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStructuredContentMatchesOutputSchema: what a call puts in
// structuredContent validates against the tool's advertised output schema,
// for a success and for a refusal (isError) alike — and a success shape
// does not pass as an error, nor the reverse.
func TestStructuredContentMatchesOutputSchema(t *testing.T) {
	reg := newRegistry(t)
	cs := connect(t, reg, worker.ProfileExtended)
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range listTools(t, cs) {
		b, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: output schema does not resolve: %v", tool.Name, err)
		}
		schemas[tool.Name] = rs
	}
	ctx := context.Background()
	for _, tc := range []struct {
		tool    string
		args    map[string]any
		isError bool
	}{
		{"dli_hello", map[string]any{}, false},
		{"author_open", map[string]any{"scope": "camelot"}, false},
		{"author_open", map[string]any{"scope": "no-such-scope"}, true},
		{"author_status", map[string]any{"workspace": "ws-404"}, true},
		{"dli_fmt", map[string]any{"text": "scope camelot\n"}, false},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		if res.IsError != tc.isError {
			t.Fatalf("%s %v: isError %v", tc.tool, tc.args, res.IsError)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var inst any
		if err := json.Unmarshal(b, &inst); err != nil {
			t.Fatal(err)
		}
		if err := schemas[tc.tool].Validate(inst); err != nil {
			t.Errorf("%s %v: structuredContent %s does not match the output schema: %v", tc.tool, tc.args, b, err)
		}
	}
	// The schema tells the two shapes apart.
	if err := schemas["dli_hello"].Validate(map[string]any{"error": map[string]any{"code": "x", "class": "refused", "message": "m"}, "contract": "2.0.0"}); err == nil {
		t.Error("a result with an error field beside it validated")
	}
}
