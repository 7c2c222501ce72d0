package mcpserve

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type benchParams struct {
	Workspace  string `json:"workspace"`
	Entity     string `json:"entity"`
	Key        string `json:"key"`
	Value      string `json:"value"`
	Provenance struct {
		Kind   string `json:"kind"`
		Origin string `json:"origin"`
	} `json:"provenance"`
}

type benchResult struct {
	WorkspaceDigest string   `json:"workspace_digest"`
	Rendered        []string `json:"rendered"`
}

// BenchmarkHandler: the garbage this package and the worker add to one
// tool call, go-sdk and the op's own work left out: a call shaped like a
// staged add (params, a reserved key, result) through the tool handler,
// the arguments' check and lifting, the strict decoding and the result.
func BenchmarkHandler(b *testing.B) {
	reg := worker.NewRegistry()
	worker.Register(reg, worker.Spec{Name: "t.echo", Mutating: true}, func(_ context.Context, _ *worker.Call, p *benchParams) (benchResult, error) {
		return benchResult{WorkspaceDigest: "d-" + p.Workspace, Rendered: []string{p.Value}}, nil
	})
	op, _ := reg.Lookup("t.echo")
	var n atomic.Int64
	h := handler(reg, op, &n, Options{})
	args := json.RawMessage(`{"workspace":"ws-0123456789abcdef","entity":"p-1234","key":"staged","value":"w1234","provenance":{"kind":"proposed","origin":"bench"},"idempotency_key":"k-1"}`)
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t_echo", Arguments: args}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := h(ctx, req)
		if err != nil || res.IsError {
			b.Fatalf("%v %+v", err, res)
		}
	}
}
