package service

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCasesOverMCP replays every golden case — the contract's examples
// among them (inventory, the watch repair loop, §8.1 in eng and nob, a nob
// module answering in nob) — over an MCP session, beside the same calls
// through the registry on a second fresh store: each call must answer
// the same structured content, isError, _meta and text on both.
func TestCasesOverMCP(t *testing.T) {
	files, err := filepath.Glob("testdata/cases/*.txt")
	if err != nil || len(files) < 4 {
		t.Fatalf("cases: %v %v", files, err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			direct, viaMCP := newFixture(t), newFixture(t)
			cs := mcpClient(t, viaMCP)
			ctx := context.Background()
			for i, st := range parseCalls(t, string(text)) {
				resp, meta, txt := direct.call(ctx, st.tool, st.args)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: st.tool, Arguments: st.args})
				if err != nil {
					t.Fatalf("call %d %s: %v", i, st.tool, err)
				}
				want, err := mcpserve.Result(resp)
				if err != nil {
					t.Fatal(err)
				}
				if got, w := canonical(t, res.StructuredContent), canonical(t, want.StructuredContent); got != w {
					t.Errorf("call %d %s: structured content over MCP\n%s\nthrough the registry\n%s", i, st.tool, got, w)
				}
				if res.IsError != !resp.OK() {
					t.Errorf("call %d %s: isError %v, registry ok %v", i, st.tool, res.IsError, resp.OK())
				}
				// go-sdk adds its own io.modelcontextprotocol/ keys to _meta
				// (the server's info); the service's are the rest.
				got := map[string]any{}
				for k, v := range res.Meta {
					if !strings.HasPrefix(k, "io.modelcontextprotocol/") {
						got[k] = v
					}
				}
				if canonical(t, got) != canonical(t, meta) {
					t.Errorf("call %d %s: _meta %v, want %v", i, st.tool, res.Meta, meta)
				}
				if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != txt {
					t.Errorf("call %d %s: text %v, want %q", i, st.tool, res.Content[0], txt)
				}
			}
			if !reflect.DeepEqual(direct.log(), viaMCP.log()) {
				t.Errorf("the stores' histories differ:\n%v\n%v", direct.log(), viaMCP.log())
			}
		})
	}
}

// mcpClient serves f's registry as `deloreis dke mcp` does and connects.
func mcpClient(t *testing.T, f *fixture) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserve.NewWithOptions(f.reg, worker.ProfileExtended, MCPOptions()).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// canonical is v as JSON with sorted keys (a decode and re-encode).
func canonical(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(x)
	return string(b)
}
