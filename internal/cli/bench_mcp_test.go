package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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

// BenchmarkMCPLatency100k (issue 11, acceptance 4; issue 31): a staging
// call (author.add_fact) and a read call (author.query of one subject) on
// the 100,000-fact world, each 2,000 times, through three servers, each a
// whole process over pipes: `deloreis serve` (the raw worker protocol),
// `deloreis mcp` spoken by a plain line client that does the raw client's
// work (marshal a request, read a line, unmarshal it), and `deloreis mcp`
// through go-sdk's client, whose own cost (some 50–100 µs a call) is
// counted too. The calls are interleaved — one of each server in turn — so
// that the machine's load falls on all three alike; the ratio metrics are
// the line client's medians over the raw protocol's (DL-0440). Opening the
// workspace (the compile) is outside the timed calls.
func BenchmarkMCPLatency100k(b *testing.B) {
	n := benchN(100_000)
	dir := factProject(b, n)
	persons := n / 10
	calls := 2_000
	if testing.Short() {
		calls = 100
	}
	for it := 0; it < b.N; it++ {
		c := startBenchClients(b, dir)
		lat := c.interleave(calls, persons)
		c.raw.stop()
		c.line.stop()
		c.sdk.Close()
		for s, name := range []string{"raw", "mcp", "sdk"} {
			latencies(b, lat[s][0], name+"-stage")
			latencies(b, lat[s][1], name+"-read")
		}
		for k, kind := range []string{"stage", "read"} {
			b.ReportMetric(median(lat[1][k])/median(lat[0][k]), "x/mcp-"+kind+"-ratio")
		}
	}
}

// benchQuery is the read call's arguments: k3 of the i-th subject.
func benchQuery(ws string, i, persons int) map[string]any {
	return map[string]any{"workspace": ws, "goal": map[string]any{"pred": "k3",
		"args": []any{map[string]any{"const": fmt.Sprintf("p-%d", i%persons)}, map[string]any{"var": "V"}}}}
}

// benchFact is the staging call's arguments: a fact on the i-th subject.
func benchFact(ws string, i, persons int) map[string]any {
	return map[string]any{"workspace": ws, "entity": fmt.Sprintf("p-%d", i%persons), "key": "staged",
		"value": fmt.Sprintf("w%d", i), "provenance": map[string]any{"kind": "proposed", "origin": "bench"}}
}

// benchClients are the three clients, each of a server over dir and each
// answering a call's structured result, with the workspace each opened.
type benchClients struct {
	b             *testing.B
	ctx           context.Context
	raw, line     *server
	sdk           *mcp.ClientSession
	rws, lws, sws string
}

// startBenchClients starts the three servers, initializes the line
// client's session, and opens a workspace on each.
func startBenchClients(b *testing.B, dir string) *benchClients {
	b.Helper()
	c := &benchClients{b: b, ctx: context.Background()}
	c.raw = startServer(b, "--project", dir)
	c.line = startLines(b, "2026-12-01T10:00:00Z", "mcp", "--project", dir)
	sdk, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(c.ctx,
		&mcp.CommandTransport{Command: exec.Command(binary(b), "mcp", "--project", dir)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	c.sdk = sdk
	c.rpc(0, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench", "version": "0"}})
	if _, err := io.WriteString(c.line.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	open := map[string]any{"scope": "big"}
	c.rws = c.rawCall("o", "author.open", open)["workspace"].(string)
	c.lws = c.lineCall(1, "author_open", open)["workspace"].(string)
	c.sws = c.sdkCall("author_open", open)["workspace"].(string)
	return c
}

// rawCall calls op over the raw worker protocol.
func (c *benchClients) rawCall(id, op string, params map[string]any) map[string]any {
	m := c.raw.callJSON(id, op, params)
	if m["ok"] != true {
		c.b.Fatalf("stdio %s: %v", op, m)
	}
	return m // the result's members sit beside ok
}

// rpc sends one JSON-RPC request over the line client and answers its result.
func (c *benchClients) rpc(id int, method string, params any) map[string]any {
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	var resp map[string]any
	if err := json.Unmarshal([]byte(c.line.call(string(req))), &resp); err != nil {
		c.b.Fatal(err)
	}
	res, ok := resp["result"].(map[string]any)
	if !ok || res["isError"] == true {
		c.b.Fatalf("%s: %v", method, resp)
	}
	return res
}

// lineCall calls a tool through the line client.
func (c *benchClients) lineCall(id int, name string, args map[string]any) map[string]any {
	sc, ok := c.rpc(id, "tools/call", map[string]any{"name": name, "arguments": args})["structuredContent"].(map[string]any)
	if !ok {
		c.b.Fatalf("%s answered no structured content", name)
	}
	return sc
}

// sdkCall calls a tool through go-sdk's client.
func (c *benchClients) sdkCall(tool string, args map[string]any) map[string]any {
	res, err := c.sdk.CallTool(c.ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil || res.IsError {
		c.b.Fatalf("%s: %v %+v", tool, err, res)
	}
	return res.StructuredContent.(map[string]any)
}

// interleave makes calls rounds of a staging call and a read call on each
// server in turn, and answers their latencies by server, stage then read.
func (c *benchClients) interleave(calls, persons int) [3][2][]time.Duration {
	var lat [3][2][]time.Duration // by server, stage then read
	timed := func(server, kind int, f func() map[string]any) {
		t := time.Now()
		m := f()
		lat[server][kind] = append(lat[server][kind], time.Since(t))
		if _, ok := m["total"]; kind == 1 && !ok {
			c.b.Fatalf("author_query answered no total: %v", m)
		}
	}
	query := func(ws string, i int) map[string]any { return benchQuery(ws, i, persons) }
	fact := func(ws string, i int) map[string]any { return benchFact(ws, i, persons) }
	rws, lws, sws := c.rws, c.lws, c.sws
	for i := 0; i < calls; i++ {
		timed(0, 0, func() map[string]any { return c.rawCall(fmt.Sprint("s", i), "author.add_fact", fact(rws, i)) })
		timed(1, 0, func() map[string]any { return c.lineCall(2*i+2, "author_add_fact", fact(lws, i)) })
		timed(2, 0, func() map[string]any { return c.sdkCall("author_add_fact", fact(sws, i)) })
		timed(0, 1, func() map[string]any { return c.rawCall(fmt.Sprint("q", i), "author.query", query(rws, i)) })
		timed(1, 1, func() map[string]any { return c.lineCall(2*i+3, "author_query", query(lws, i)) })
		timed(2, 1, func() map[string]any { return c.sdkCall("author_query", query(sws, i)) })
	}
	return lat
}

// median is the median of lat (sorted by latencies).
func median(lat []time.Duration) float64 { return float64(lat[len(lat)/2]) }
