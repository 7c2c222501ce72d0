// The DKE keys over HTTP: a known key's grant reaches the tool; every
// other request is refused before any tool runs (bearerTransport is in
// http_test.go).

package mcpserve_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deloreis/deloreis/dke/keys"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// whoami is a server with one tool that records the grant each call saw.
func whoami(t *testing.T) (*mcp.Server, func() []keys.Grant) {
	t.Helper()
	var mu sync.Mutex
	var seen []keys.Grant
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	s.AddTool(&mcp.Tool{Name: "whoami", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			g, ok := mcpserve.GrantOf(req.Extra.TokenInfo)
			if !ok {
				t.Error("a tool ran without a grant")
			}
			mu.Lock()
			seen = append(seen, g)
			mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: g.Store + " " + string(g.Mode)}}}, nil
		})
	return s, func() []keys.Grant { mu.Lock(); defer mu.Unlock(); return append([]keys.Grant(nil), seen...) }
}

// TestKeyHandlerGrants: a known key's session reaches the tool with its
// grant (store, mode, hash).
func TestKeyHandlerGrants(t *testing.T) {
	ring := keys.Open(t.TempDir())
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		store string
		mode  keys.Mode
	}{{"alpha", keys.Read}, {"beta", keys.Write}} {
		t.Run(tc.store, func(t *testing.T) {
			key, err := ring.Create(tc.store, tc.mode, now)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := ring.Lookup(key)
			s, seen := whoami(t)
			srv := httptest.NewServer(mcpserve.KeyHandler(s, ring))
			defer srv.Close()
			ctx := context.Background()
			tr := &mcp.StreamableClientTransport{Endpoint: srv.URL + mcpserve.Path, HTTPClient: &http.Client{Transport: bearerTransport{key}}}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, tr, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Fatalf("whoami: %v %+v", err, res)
			}
			got := seen()
			if len(got) != 1 || got[0] != want {
				t.Fatalf("grants seen %+v, want [%+v]", got, want)
			}
		})
	}
}

// TestKeyHandlerRefuses: no key, a malformed header, an unknown or revoked
// key, a foreign Origin or Host are refused before any tool runs; a
// session opened by one key cannot be used with another.
func TestKeyHandlerRefuses(t *testing.T) {
	ring := keys.Open(t.TempDir())
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	keyA, _ := ring.Create("alpha", keys.Write, now)
	keyB, _ := ring.Create("beta", keys.Write, now)
	revoked, _ := ring.Create("alpha", keys.Write, now)
	rg, _ := ring.Lookup(revoked)
	if _, err := ring.Revoke(rg.Hash[:12]); err != nil {
		t.Fatal(err)
	}
	s, seen := whoami(t)
	srv := httptest.NewServer(mcpserve.KeyHandler(s, ring))
	defer srv.Close()
	endpoint := srv.URL + mcpserve.Path

	// A session opened by key A: its id, to try with key B.
	ctx := context.Background()
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearerTransport{keyA}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`
	for _, tc := range []struct {
		name, body, auth, origin, host, session string
		want                                    int
	}{
		{name: "no key", body: initialize, want: 401},
		{name: "no key, tool call", body: call, session: cs.ID(), want: 401},
		{name: "not bearer", body: initialize, auth: "Basic " + keyA, want: 401},
		{name: "unknown key", body: initialize, auth: "Bearer dke_w_0000", want: 401},
		{name: "revoked key", body: initialize, auth: "Bearer " + revoked, want: 401},
		{name: "unknown key, tool call", body: call, auth: "Bearer nope", session: cs.ID(), want: 401},
		{name: "another key's session", body: call, auth: "Bearer " + keyB, session: cs.ID(), want: 403},
		{name: "foreign origin", body: initialize, auth: "Bearer " + keyA, origin: "https://evil.example", want: 403},
		{name: "foreign host", body: initialize, auth: "Bearer " + keyA, host: "evil.example", want: 403},
		{name: "good key", body: initialize, auth: "Bearer " + keyA, want: 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.session != "" {
				req.Header.Set("Mcp-Session-Id", tc.session)
				req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
			}
			if tc.want == 401 && resp.Header.Get("WWW-Authenticate") == "" && tc.auth == "" {
				t.Error("a 401 without WWW-Authenticate")
			}
		})
	}
	if n := len(seen()); n != 0 {
		t.Fatalf("%d tool calls ran; every request was refused", n)
	}
}

// TestGrantOf: no token info, or one without a grant, grants nothing.
func TestGrantOf(t *testing.T) {
	if _, ok := mcpserve.GrantOf(nil); ok {
		t.Error("GrantOf(nil) granted")
	}
	ring := keys.Open(t.TempDir())
	if _, err := mcpserve.KeyVerifier(ring)(context.Background(), "dke_r_unknown", nil); err == nil {
		t.Error("an unknown key verified")
	}
	key, _ := ring.Create("alpha", keys.Read, time.Now())
	ti, err := mcpserve.KeyVerifier(ring)(context.Background(), key, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, ok := mcpserve.GrantOf(ti)
	if !ok || g.Store != "alpha" || g.Mode != keys.Read || g.CanWrite() || ti.UserID != g.Hash {
		t.Fatalf("grant %+v (%v), user %q", g, ok, ti.UserID)
	}
}
