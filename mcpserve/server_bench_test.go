package mcpserve_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// scriptConn is a server connection fed request lines by a benchmark:
// Read decodes the next line as a JSON-RPC message, as go-sdk's stdio
// connection does; Write hands the response back.
type scriptConn struct {
	in     chan []byte
	out    chan jsonrpc.Message
	closed chan struct{}
	once   sync.Once
}

func (c *scriptConn) Connect(context.Context) (mcp.Connection, error) { return c, nil }
func (c *scriptConn) SessionID() string                               { return "" }
func (c *scriptConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *scriptConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case line, ok := <-c.in:
		if !ok {
			return nil, io.EOF
		}
		return jsonrpc.DecodeMessage(line)
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *scriptConn) Write(_ context.Context, m jsonrpc.Message) error {
	select {
	case c.out <- m:
		return nil
	case <-c.closed:
		return io.ErrClosedPipe
	}
}

// BenchmarkServerCall: the server's side of one call, without a client
// library, on a 10,000-fact world: dispatch is the registry alone;
// stdio-raw is deloreis serve's line server and stdio-2026-07-28 the MCP
// server as deloreis mcp runs it (go-sdk's stdio transport), both over
// pipes, a line written and the response line read; server-* is go-sdk's
// server over a connection handed decoded lines (no pipes, no stdio
// transport), for the protocol go-sdk's client speaks by default
// (2026-07-28: every request carries _meta) and for a 2025-06-18 session.
// The differences between them are where an MCP call's server time goes.
func BenchmarkServerCall(b *testing.B) {
	reg := factRegistry(b, 10_000)
	ctx := context.Background()
	open := reg.Dispatch(ctx, []byte(`{"dli":"2.0.0","id":"o","op":"author.open","params":{"scope":"big"}}`))
	if !open.OK() {
		b.Fatal(open.Err)
	}
	var opened struct{ Workspace string }
	if err := json.Unmarshal(open.Result, &opened); err != nil {
		b.Fatal(err)
	}
	ws := opened.Workspace
	args := map[string]string{
		"author_add_fact": `{"workspace":%q,"entity":"p-%d","key":"staged","value":"w%d","provenance":{"kind":"proposed","origin":"bench"}}`,
		"author_query":    `{"workspace":%q,"goal":{"pred":"k3","args":[{"const":"p-%d"},{"var":"V%d"}]}}`,
	}
	const meta = `"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},`
	for _, tool := range []string{"author_add_fact", "author_query"} {
		b.Run("dispatch/"+tool, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				line := fmt.Sprintf(`{"dli":"2.0.0","id":"s%d","op":%q,"params":`+args[tool]+`}`, i, opName(tool), ws, i%1000, i)
				if r := reg.Dispatch(ctx, []byte(line)); !r.OK() {
					b.Fatal(r.Err)
				}
			}
		})
		b.Run("stdio-raw/"+tool, func(b *testing.B) {
			// The line protocol's server as deloreis serve runs it, over pipes.
			pipeServe(b, func(in io.Reader, out io.Writer) error { return reg.ServeStdio(ctx, in, out) }, func(i int) string {
				return fmt.Sprintf(`{"dli":"2.0.0","id":"s%d","op":%q,"params":`+args[tool]+`}`, i, opName(tool), ws, i%1000, i)
			}, `"ok":true`)
		})
		b.Run("stdio-2026-07-28/"+tool, func(b *testing.B) {
			// The MCP server as deloreis mcp runs it, over pipes.
			pipeServe(b, func(in io.Reader, out io.Writer) error {
				return mcpserve.ServeStdio(ctx, mcpserve.New(reg, worker.ProfileFiction), in, out)
			}, func(i int) string {
				return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{`+meta+`"name":%q,"arguments":`+args[tool]+`}}`, i+1, tool, ws, i%1000, i)
			}, `"structuredContent"`)
		})
		b.Run("stdio-2025-11-25/"+tool, func(b *testing.B) {
			// The same for a client that initializes a session first.
			pipeServe(b, func(in io.Reader, out io.Writer) error {
				return mcpserve.ServeStdio(ctx, mcpserve.New(reg, worker.ProfileFiction), in, out)
			}, func(i int) string {
				return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":`+args[tool]+`}}`, i+1, tool, ws, i%1000, i)
			}, `"structuredContent"`,
				`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}`,
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		})
		for _, proto := range []string{"2026-07-28", "2025-06-18"} {
			b.Run("server-"+proto+"/"+tool, func(b *testing.B) {
				serveScripted(ctx, b, reg, proto, meta, func(i int, m string) string {
					return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{`+m+`"name":%q,"arguments":`+args[tool]+`}}`, i+1, tool, ws, i%1000, i)
				})
			})
		}
	}
}

// serveScripted benchmarks go-sdk's server over a scriptConn for protocol
// proto: a 2026-07-28 request carries meta, a 2025-06-18 session is
// initialized first and its requests carry none; line(i, meta or "") is
// call i's request line.
func serveScripted(ctx context.Context, b *testing.B, reg *worker.Registry, proto, meta string, line func(i int, m string) string) {
	c := &scriptConn{in: make(chan []byte), out: make(chan jsonrpc.Message), closed: make(chan struct{})}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ss, err := mcpserve.New(reg, worker.ProfileFiction).Connect(sctx, c, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	m := meta
	if proto != "2026-07-28" {
		m = ""
		c.in <- []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}`)
		<-c.out
		c.in <- []byte(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c.in <- []byte(line(i, m))
		resp := (<-c.out).(*jsonrpc.Response)
		if resp.Error != nil || len(resp.Result) < 50 {
			b.Fatalf("%v %s", resp.Error, resp.Result)
		}
	}
}

// opName is the op of a tool name.
func opName(tool string) string { return strings.Replace(tool, "_", ".", 1) }

// serverConn is a client connection to a canned server: a call is
// answered at once with a fixed result, encoded and decoded as a line.
type serverConn struct {
	in     chan []byte
	result map[string]json.RawMessage // by method
	closed chan struct{}
	once   sync.Once
}

func (c *serverConn) Connect(context.Context) (mcp.Connection, error) { return c, nil }
func (c *serverConn) SessionID() string                               { return "" }
func (c *serverConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *serverConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case line := <-c.in:
		return jsonrpc.DecodeMessage(line)
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *serverConn) Write(_ context.Context, m jsonrpc.Message) error {
	if _, err := jsonrpc.EncodeMessage(m); err != nil { // as a line would be written
		return err
	}
	req, ok := m.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return nil
	}
	line, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: c.result[req.Method]})
	if err != nil {
		return err
	}
	go func() { c.in <- line }()
	return nil
}

// BenchmarkClientCall: go-sdk's client's side of one tool call, without a
// server: the time and garbage from CallTool to its result, for a result
// shaped like author.query's (the structured content repeated as text, as
// the server sends it, and, for comparison, with a short text).
func BenchmarkClientCall(b *testing.B) {
	structured := `{"answers":[{"args":["p-1","v40001"],"bindings":{"V":"v40001"},"grade":"possible"}],"total":1}`
	text, _ := json.Marshal(structured)
	for _, c := range []struct{ name, text string }{{"text-repeats", string(text)}, {"text-short", `"1 answer"`}} {
		b.Run(c.name, func(b *testing.B) {
			conn := &serverConn{in: make(chan []byte), closed: make(chan struct{}), result: map[string]json.RawMessage{
				"server/discover": json.RawMessage(`{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"deloreis","version":"dli-2.0.0"}},"ttlMs":0,"cacheScope":"public","supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"logging":{},"tools":{"listChanged":true}}}`),
				"tools/call":      json.RawMessage(`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"deloreis","version":"dli-2.0.0"}},"content":[{"type":"text","text":` + c.text + `}],"structuredContent":` + structured + `,"resultType":"complete"}`),
			}}
			ctx := context.Background()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, conn, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				args := map[string]any{"workspace": "ws-1", "goal": map[string]any{"pred": "k3",
					"args": []any{map[string]any{"const": fmt.Sprintf("p-%d", i%1000)}, map[string]any{"var": "V"}}}}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "author_query", Arguments: args})
				if err != nil || res.IsError || res.StructuredContent.(map[string]any)["total"] == nil {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}

// pipeServe runs serve over two pipes, sends it the line of each call and
// reads the response line, which must contain want.
// Each prelude line is sent first; one with an id is answered before the next.
func pipeServe(b *testing.B, serve func(in io.Reader, out io.Writer) error, line func(i int) string, want string, prelude ...string) {
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	defer outR.Close()
	done := make(chan error, 1)
	go func() { done <- serve(inR, outW) }()
	out := bufio.NewReader(outR)
	for _, l := range prelude {
		if _, err := inW.WriteString(l + "\n"); err != nil {
			b.Fatal(err)
		}
		if strings.Contains(l, `"id"`) {
			if _, err := out.ReadBytes('\n'); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := inW.WriteString(line(i) + "\n"); err != nil {
			b.Fatal(err)
		}
		resp, err := out.ReadBytes('\n')
		if err != nil || !bytes.Contains(resp, []byte(want)) || bytes.Contains(resp, []byte(`"isError":true`)) {
			b.Fatalf("%s %v", resp, err)
		}
	}
	b.StopTimer()
	inW.Close()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	inR.Close()
	outW.Close()
}

type typedIn struct {
	Workspace  string `json:"workspace"`
	Entity     string `json:"entity"`
	Key        string `json:"key"`
	Value      string `json:"value"`
	Provenance struct {
		Kind   string `json:"kind"`
		Origin string `json:"origin"`
	} `json:"provenance"`
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

type typedOut struct {
	WorkspaceDigest string   `json:"workspace_digest"`
	Rendered        []string `json:"rendered"`
}

// BenchmarkTypedTool: one call of a toy op shaped like a staged add,
// through this package's adapter (go-sdk's raw AddTool, the arguments
// decoded once by the worker) and through go-sdk's typed mcp.AddTool
// (arguments and result validated against JSON Schema, decoded by go-sdk):
// what the typed handlers would cost beside their different wire errors.
func BenchmarkTypedTool(b *testing.B) {
	echo := func(p *typedIn) typedOut {
		return typedOut{WorkspaceDigest: "d-" + p.Workspace, Rendered: []string{p.Value}}
	}
	reg := worker.NewRegistry()
	worker.Register(reg, worker.Spec{Name: "t.echo", Mutating: true, Fiction: true}, func(_ context.Context, _ *worker.Call, p *typedIn) (typedOut, error) {
		return echo(p), nil
	})
	typed := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "0"}, nil)
	mcp.AddTool(typed, &mcp.Tool{Name: "t_echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in typedIn) (*mcp.CallToolResult, typedOut, error) {
		return nil, echo(&in), nil
	})
	const meta = `"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},`
	for _, s := range []struct {
		name   string
		server *mcp.Server
	}{{"raw", mcpserve.New(reg, worker.ProfileFiction)}, {"typed", typed}} {
		b.Run(s.name, func(b *testing.B) {
			c := &scriptConn{in: make(chan []byte), out: make(chan jsonrpc.Message), closed: make(chan struct{})}
			ss, err := s.server.Connect(context.Background(), c, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ss.Close()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				c.in <- fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{`+meta+`"name":"t_echo","arguments":{"workspace":"ws-1","entity":"p-%d","key":"staged","value":"w%d","provenance":{"kind":"proposed","origin":"bench"},"idempotency_key":"k%d"}}}`, i+1, i, i, i)
				resp := (<-c.out).(*jsonrpc.Response)
				if resp.Error != nil || !bytes.Contains(resp.Result, []byte(`"structuredContent"`)) {
					b.Fatalf("%v %s", resp.Error, resp.Result)
				}
			}
		})
	}
}
