package mcpserve_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type blockParams struct{}
type blockResult struct {
	Cancelled bool `json:"cancelled"`
}

// blockRegistry has one op, t.block, that runs until its context ends
// (or a minute passes): it reports on started when it begins and on
// stopped when its context ended.
func blockRegistry() (*worker.Registry, chan struct{}, chan struct{}) {
	started, stopped := make(chan struct{}, 16), make(chan struct{}, 16)
	reg := worker.NewRegistry()
	worker.Register(reg, worker.Spec{Name: "t.block", Summary: "runs until cancelled", Fiction: true},
		func(ctx context.Context, _ *worker.Call, _ *blockParams) (blockResult, error) {
			started <- struct{}{}
			select {
			case <-ctx.Done():
				stopped <- struct{}{}
				return blockResult{Cancelled: true}, nil
			case <-time.After(time.Minute):
				return blockResult{}, nil
			}
		})
	return reg, started, stopped
}

// TestCancelStopsTheOp: a call the client gives up on cancels the context
// its op runs under, promptly: over stdio (notifications/cancelled), over
// HTTP in a 2025-06-18 session (notifications/cancelled) and over HTTP in
// the newest protocol the client and a server with sessions share.
func TestCancelStopsTheOp(t *testing.T) {
	for _, tc := range []struct {
		name    string
		connect func(t *testing.T, s *mcp.Server) (mcp.Transport, *mcp.ClientSessionOptions)
	}{
		{"stdio", func(t *testing.T, s *mcp.Server) (mcp.Transport, *mcp.ClientSessionOptions) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			go func() {
				_ = mcpserve.ServeStdio(context.Background(), s, inR, outW)
				outW.Close()
			}()
			t.Cleanup(func() { inW.Close() })
			return &mcp.IOTransport{Reader: outR, Writer: inW}, nil
		}},
		{"http-2025-06-18", func(t *testing.T, s *mcp.Server) (mcp.Transport, *mcp.ClientSessionOptions) {
			srv := httptest.NewServer(mcpserve.HTTPHandler(s, ""))
			t.Cleanup(srv.Close)
			return &mcp.StreamableClientTransport{Endpoint: srv.URL + mcpserve.Path}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"}
		}},
		{"http-latest", func(t *testing.T, s *mcp.Server) (mcp.Transport, *mcp.ClientSessionOptions) {
			srv := httptest.NewServer(mcpserve.HTTPHandler(s, ""))
			t.Cleanup(srv.Close)
			return &mcp.StreamableClientTransport{Endpoint: srv.URL + mcpserve.Path}, nil // the newest a server with sessions speaks
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg, started, stopped := blockRegistry()
			tr, opts := tc.connect(t, mcpserve.New(reg, worker.ProfileFiction))
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(context.Background(), tr, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t_block", Arguments: map[string]any{}})
				errc <- err
			}()
			select {
			case <-started:
			case <-time.After(10 * time.Second):
				t.Fatal("the op did not start")
			}
			cancel()
			at := time.Now()
			select {
			case <-stopped:
				t.Logf("the op saw its cancellation after %v", time.Since(at).Round(time.Millisecond))
			case <-time.After(5 * time.Second):
				t.Fatal("the op ran on 5 s after the client cancelled its call")
			}
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Errorf("the call returned %v, want context.Canceled", err)
			}
			// The session still answers.
			if err := cs.Ping(context.Background(), nil); err != nil {
				t.Errorf("ping after the cancellation: %v", err)
			}
		})
	}
}

// TestClosedRequestStopsTheOp: a client that closes the HTTP request of a
// call mid-call (its connection) cancels the op, in a 2025-06-18 session
// and in a 2025-11-25 one (DL-0421); the session goes on.
func TestClosedRequestStopsTheOp(t *testing.T) {
	for _, proto := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(proto, func(t *testing.T) {
			reg, started, stopped := blockRegistry()
			srv := httptest.NewServer(mcpserve.HTTPHandler(mcpserve.New(reg, worker.ProfileFiction), ""))
			defer srv.Close()
			addr := strings.TrimPrefix(srv.URL, "http://")
			post := func(session, body string) (*http.Response, error) {
				req, _ := http.NewRequest(http.MethodPost, srv.URL+mcpserve.Path, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if session != "" {
					req.Header.Set("Mcp-Session-Id", session)
					req.Header.Set("Mcp-Protocol-Version", proto)
				}
				return http.DefaultClient.Do(req)
			}
			resp, err := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+proto+`","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			session := resp.Header.Get("Mcp-Session-Id")
			if resp, err = post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()

			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t_block","arguments":{}}}`
			fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: %s\r\nContent-Length: %d\r\n\r\n%s", addr, session, proto, len(body), body)
			select {
			case <-started:
			case <-time.After(10 * time.Second):
				c.SetReadDeadline(time.Now().Add(time.Second))
				b, _ := io.ReadAll(c)
				t.Fatalf("the op did not start; the server answered %q", b)
			}
			c.Close()
			at := time.Now()
			select {
			case <-stopped:
				t.Logf("the op saw its cancellation %v after the client closed", time.Since(at).Round(time.Millisecond))
			case <-time.After(5 * time.Second):
				t.Fatal("the op ran on 5 s after its client closed the request")
			}
			resp, err = post(session, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("ping after: %v %v", resp, err)
			}
			resp.Body.Close()
		})
	}
}
