package cli

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// latencies reports the median and p99 of a set of call latencies.
func latencies(b *testing.B, lat []time.Duration, name string) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms/"+name+"-median")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "ms/"+name+"-p99")
}

// BenchmarkMCPLatency100k (issue 11, acceptance 4): a staging call
// (author.add_fact) and a read call (author.query of one subject) on the
// 100,000-fact world, each 2,000 times, through `deloreis mcp` as a
// subprocess over stdio with go-sdk's client, beside the same calls
// through `deloreis serve` as a subprocess (the raw worker protocol).
// Both sides are whole processes over pipes; opening the workspace (the
// compile) is outside the timed calls on both.
func BenchmarkMCPLatency100k(b *testing.B) {
	n := benchN(100_000)
	dir := factProject(b, n)
	persons := n / 10
	calls := 2_000
	if testing.Short() {
		calls = 100
	}
	query := func(ws string, i int) map[string]any {
		return map[string]any{"workspace": ws, "goal": map[string]any{"pred": "k3",
			"args": []any{map[string]any{"const": fmt.Sprintf("p-%d", i%persons)}, map[string]any{"var": "V"}}}}
	}
	fact := func(ws string, i int) map[string]any {
		return map[string]any{"workspace": ws, "entity": fmt.Sprintf("p-%d", i%persons), "key": "staged",
			"value": fmt.Sprintf("w%d", i), "provenance": map[string]any{"kind": "proposed", "origin": "bench"}}
	}
	for it := 0; it < b.N; it++ {
		// The raw worker protocol.
		s := startServer(b, "--project", dir)
		ws := s.callJSON("o", "author.open", map[string]any{"scope": "big"})["workspace"].(string)
		stage, read := make([]time.Duration, calls), make([]time.Duration, calls)
		for i := 0; i < calls; i++ {
			t := time.Now()
			if m := s.callJSON(fmt.Sprint("s", i), "author.add_fact", fact(ws, i)); m["ok"] != true {
				b.Fatalf("stdio add_fact: %v", m)
			}
			stage[i] = time.Since(t)
			t = time.Now()
			if m := s.callJSON(fmt.Sprint("q", i), "author.query", query(ws, i)); m["ok"] != true {
				b.Fatalf("stdio query: %v", m)
			}
			read[i] = time.Since(t)
		}
		s.stop()
		latencies(b, stage, "raw-stage")
		latencies(b, read, "raw-read")

		// MCP over stdio.
		ctx := context.Background()
		cmd := exec.Command(binary(b), "mcp", "--project", dir)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		call := func(tool string, args map[string]any) map[string]any {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
			if err != nil || res.IsError {
				b.Fatalf("%s: %v %+v", tool, err, res)
			}
			return res.StructuredContent.(map[string]any)
		}
		mws := call("author_open", map[string]any{"scope": "big"})["workspace"].(string)
		for i := 0; i < calls; i++ {
			t := time.Now()
			call("author_add_fact", fact(mws, i))
			stage[i] = time.Since(t)
			t = time.Now()
			if m := call("author_query", query(mws, i)); m["total"] == nil {
				b.Fatalf("author_query answered no total: %v", m)
			}
			read[i] = time.Since(t)
		}
		cs.Close()
		latencies(b, stage, "mcp-stage")
		latencies(b, read, "mcp-read")
	}
}
