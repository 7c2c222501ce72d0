package mcpserve_test

import (
	"context"
	"testing"

	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type ctxKey struct{}

// TestOptions: the server's name, the context hook (an op sees what it
// adds), _meta and the text content all come from the options.
func TestOptions(t *testing.T) {
	reg := worker.NewRegistry()
	type params struct{}
	type result struct {
		Seen string `json:"seen"`
	}
	worker.Register(reg, worker.Spec{Name: "probe", Summary: "what the context carries", Fiction: true},
		func(ctx context.Context, _ *worker.Call, _ *params) (result, error) {
			s, _ := ctx.Value(ctxKey{}).(string)
			return result{Seen: s}, nil
		})
	srv := mcpserve.NewWithOptions(reg, worker.ProfileFiction, mcpserve.Options{
		Name: "probe-server", Version: "9",
		Context: func(ctx context.Context, req *mcp.CallToolRequest) context.Context {
			return context.WithValue(ctx, ctxKey{}, "granted:"+req.Params.Name)
		},
		Meta: func(op *worker.Op, resp worker.Response) mcp.Meta {
			return mcp.Meta{"status": map[bool]string{true: "success", false: "error"}[resp.OK()], "op": op.Name}
		},
		Text: func(op *worker.Op, resp worker.Response) string { return "OK " + op.Name },
	})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ServerInfo; got.Name != "probe-server" || got.Version != "9" {
		t.Errorf("server info %+v", got)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "probe", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("probe: %v %+v", err, res)
	}
	if m, _ := res.StructuredContent.(map[string]any); m["seen"] != "granted:probe" {
		t.Errorf("the op saw %v", res.StructuredContent)
	}
	if res.Meta["status"] != "success" || res.Meta["op"] != "probe" {
		t.Errorf("_meta %v", res.Meta)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "OK probe" {
		t.Errorf("text %v", res.Content)
	}
}
