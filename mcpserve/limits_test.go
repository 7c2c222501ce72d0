package mcpserve_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/dke/keys"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
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
			if err != nil || time.Since(start) > 5*time.Second {
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
