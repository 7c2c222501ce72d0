package mcpserve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/project"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// factRegistry is the serve registry over a store whose one document
// "big" holds n facts over n/10 persons.
func factRegistry(b *testing.B, n int) *worker.Registry {
	b.Helper()
	dir := b.TempDir()
	s, err := lorestore.Init(dir, lorestore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	batch := lorestore.NewBatch()
	p := objects.Proposed("bench")
	persons := max(1, n/10)
	for i := range persons {
		if _, err := batch.Put("big", &objects.Entity{Kind: objects.KindPerson, Ident: fmt.Sprintf("p-%d", i), Name: "P", Provenance: p}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range n {
		if _, err := batch.Put("big", &objects.Fact{Entity: fmt.Sprintf("p-%d", i%persons), Key: fmt.Sprintf("k%d", i%7), Value: fmt.Sprintf("v%d", i), Provenance: p}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.Commit(batch, lorestore.NewMessage("seed", "import", "big"), lorestore.CommitOptions{}); err != nil {
		b.Fatal(err)
	}
	pr := &project.Project{Dir: dir, Store: dir, Branch: "main", Documents: []project.Document{{Scope: "big"}}}
	svc, err := author.ForProject(s, pr)
	if err != nil {
		b.Fatal(err)
	}
	reg := worker.NewRegistry()
	worker.RegisterAuthor(reg, svc)
	worker.RegisterDLI(reg, svc, "bench")
	return reg
}

// BenchmarkToolCall: the garbage of one staged add and one read on a
// 10,000-fact world, through the worker registry alone (dispatch) and
// through the MCP server over in-memory transports (mcp; client included):
// B/op and allocs/op are what a long-lived server's collector must clear.
func BenchmarkToolCall(b *testing.B) {
	reg := factRegistry(b, 10_000)
	ctx := context.Background()
	open := reg.Dispatch(ctx, []byte(`{"dli":"2.0.0","id":"o","op":"author.open","params":{"scope":"big"}}`))
	if !open.OK() {
		b.Fatal(open.Err)
	}
	var opened struct{ Workspace string }
	if err := json.Unmarshal(open.Result, &opened); err != nil || opened.Workspace == "" {
		b.Fatalf("author.open: %s %v", open.Result, err)
	}
	ws := opened.Workspace
	addArgs := func(i int) map[string]any {
		return map[string]any{"workspace": ws, "entity": fmt.Sprintf("p-%d", i%1000), "key": "staged", "value": fmt.Sprintf("w%d", i),
			"provenance": map[string]any{"kind": "proposed", "origin": "bench"}}
	}
	readArgs := func(i int) map[string]any {
		return map[string]any{"workspace": ws, "goal": map[string]any{"pred": "k3",
			"args": []any{map[string]any{"const": fmt.Sprintf("p-%d", i%1000)}, map[string]any{"var": "V"}}}}
	}
	b.Run("dispatch/add_fact", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			line := fmt.Sprintf(`{"dli":"2.0.0","id":"s%d","op":"author.add_fact","params":{"workspace":%q,"entity":"p-%d","key":"staged","value":"w%d","provenance":{"kind":"proposed","origin":"bench"}}}`, i, ws, i%1000, i)
			if r := reg.Dispatch(ctx, []byte(line)); !r.OK() {
				b.Fatal(r.Err)
			}
		}
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserve.New(reg, worker.ProfileFiction).Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	for _, c := range []struct {
		tool string
		args func(int) map[string]any
	}{{"author_add_fact", addArgs}, {"author_query", readArgs}} {
		b.Run("mcp/"+c.tool, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args(i)})
				if err != nil || res.IsError {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}
