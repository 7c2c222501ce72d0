package mcpserve_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/internal/testenv"

	"github.com/deloreis/deloreis/dke/keys"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSlowBodyDropped: a request whose body stops coming is answered and
// its connection closed once the body deadline passes, whether its
// credentials are good, bad or missing, behind a token (deloreis mcp) and
// behind the DKE keys (dke mcp); a body that arrives in time is served.
func TestSlowBodyDropped(t *testing.T) {
	const token = "3f9c1e0b7a4d28e6c5b19f0a7d3e6c21"
	ring := keys.Open(t.TempDir())
	key, err := ring.Create("default", keys.Read, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	lim := mcpserve.Limits{BodyTimeout: 500 * time.Millisecond}
	s, _ := whoami(t)
	for _, tc := range []struct {
		name, auth string
		h          http.Handler
	}{
		{"token", "Bearer " + token, mcpserve.HTTPHandlerWith(mcpserve.New(newRegistry(t), worker.ProfileFiction), token, lim)},
		{"wrong token", "Bearer x" + token[1:], mcpserve.HTTPHandlerWith(mcpserve.New(newRegistry(t), worker.ProfileFiction), token, lim)},
		{"no token", "", mcpserve.HTTPHandlerWith(mcpserve.New(newRegistry(t), worker.ProfileFiction), token, lim)},
		{"key", "bearer " + key, mcpserve.KeyHandlerWith(s, ring, lim)},
		{"unknown key", "Bearer nokey", mcpserve.KeyHandlerWith(s, ring, lim)},
		{"no key", "", mcpserve.KeyHandlerWith(s, ring, lim)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.h)
			defer srv.Close()
			addr := strings.TrimPrefix(srv.URL, "http://")
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			auth := ""
			if tc.auth != "" {
				auth = "Authorization: " + tc.auth + "\r\n"
			}
			start := time.Now()
			fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%sContent-Length: 100000\r\n\r\n{\"jsonrpc\"", addr, auth)
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			b, err := io.ReadAll(c)
			if err != nil || time.Since(start) > testenv.Bound(5*time.Second) {
				t.Fatalf("the slow body held its connection %v: %v (read %q)", time.Since(start), err, b)
			}
			if !strings.HasPrefix(string(b), "HTTP/1.1 4") {
				t.Errorf("answered %q, want a 4xx", b)
			}
		})
	}
	// In time, the same request is served.
	srv := httptest.NewServer(mcpserve.HTTPHandlerWith(mcpserve.New(newRegistry(t), worker.ProfileFiction), token, lim))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+mcpserve.Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a body in time: %d", resp.StatusCode)
	}
}

type bigParams struct{}
type bigResult struct {
	Text string `json:"text"`
}

// TestSlowReaderDropped: a client that sends a call and never reads its
// answer (32 MB, more than the sockets hold) loses its connection once a
// write has waited WriteTimeout, instead of holding the handler and the
// answer forever.
func TestSlowReaderDropped(t *testing.T) {
	reg := worker.NewRegistry()
	worker.Register(reg, worker.Spec{Name: "t.big", Summary: "a big answer", Fiction: true},
		func(context.Context, *worker.Call, *bigParams) (bigResult, error) {
			return bigResult{Text: strings.Repeat("x", 32<<20)}, nil
		})
	closed := make(chan struct{}, 16)
	srv := httptest.NewUnstartedServer(mcpserve.HTTPHandlerWith(mcpserve.New(reg, worker.ProfileFiction), "", mcpserve.Limits{WriteTimeout: 500 * time.Millisecond}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateClosed {
			closed <- struct{}{}
		}
	}
	srv.Start()
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetReadBuffer(4096)
	}
	// One stateless-style call: initialize, then the call, in one session.
	send := func(session, body string) {
		h := ""
		if session != "" {
			h = "Mcp-Session-Id: " + session + "\r\nMcp-Protocol-Version: 2025-06-18\r\n"
		}
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%sContent-Length: %d\r\n\r\n%s", addr, h, len(body), body)
	}
	br := bufio.NewReader(c)
	send("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	session := resp.Header.Get("Mcp-Session-Id")
	send(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if resp, err = http.ReadResponse(br, nil); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	send(session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t_big","arguments":{}}}`)
	start := time.Now()
	select {
	case <-closed:
		t.Logf("the server dropped the client that does not read after %v", time.Since(start).Round(time.Millisecond))
	case <-time.After(testenv.Bound(15 * time.Second)):
		t.Fatalf("a client that does not read its answer held its connection %v", testenv.Bound(15*time.Second))
	}
}

type sleepParams struct{}
type sleepResult struct {
	Slept bool `json:"slept"`
}

// TestLongCallOutlivesDeadlines: a call that runs longer than the body and
// write deadlines, writing nothing meanwhile, is answered: the deadlines
// time a body's arrival and each write, not the call.
func TestLongCallOutlivesDeadlines(t *testing.T) {
	reg := worker.NewRegistry()
	worker.Register(reg, worker.Spec{Name: "t.sleep", Summary: "sleeps", Fiction: true},
		func(ctx context.Context, _ *worker.Call, _ *sleepParams) (sleepResult, error) {
			select {
			case <-time.After(1500 * time.Millisecond):
				return sleepResult{Slept: true}, nil
			case <-ctx.Done():
				return sleepResult{}, ctx.Err()
			}
		})
	lim := mcpserve.Limits{BodyTimeout: 300 * time.Millisecond, WriteTimeout: 300 * time.Millisecond}
	srv := httptest.NewServer(mcpserve.HTTPHandlerWith(mcpserve.New(reg, worker.ProfileFiction), "", lim))
	defer srv.Close()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + mcpserve.Path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for i := range 2 { // the second on the kept-alive connection
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t_sleep", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("call %d: %v %+v", i, err, res)
		}
		time.Sleep(500 * time.Millisecond) // past both deadlines, idle
	}
}
