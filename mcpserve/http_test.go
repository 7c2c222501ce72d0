package mcpserve_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCheckBind: a loopback bind needs no token; any other needs a strong
// one (DL-0420): at least 32 visible ASCII characters, at least 8 of them
// different; a token of whitespace is refused on any address.
func TestCheckBind(t *testing.T) {
	const strong = "3f9c1e0b7a4d28e6c5b19f0a7d3e6c21" // 32 hex digits
	for _, tc := range []struct {
		addr, token string
		want        error // nil: served
	}{
		{"127.0.0.1:8765", "", nil},
		{"[::1]:0", "", nil},
		{"localhost:0", "", nil},
		{"127.0.0.1:0", "short", nil}, // loopback: the token only adds a check
		{"127.0.0.1:0", " ", mcpserve.ErrWeakToken},
		{"0.0.0.0:8765", "", mcpserve.ErrOpenBind},
		{"192.0.2.7:8765", "", mcpserve.ErrOpenBind},
		{"0.0.0.0:8765", strong, nil},
		{"0.0.0.0:8765", " ", mcpserve.ErrWeakToken},
		{"0.0.0.0:8765", "\t \n", mcpserve.ErrWeakToken},
		{"0.0.0.0:8765", "s3cret", mcpserve.ErrWeakToken},
		{"0.0.0.0:8765", strong[:31], mcpserve.ErrWeakToken},
		{"0.0.0.0:8765", strings.Repeat("a", 64), mcpserve.ErrWeakToken},
		{"0.0.0.0:8765", strings.Repeat("ab", 32), mcpserve.ErrWeakToken},
		{"0.0.0.0:8765", strings.Repeat("abcdefg", 5), mcpserve.ErrWeakToken}, // 7 different
		{"0.0.0.0:8765", strong[:16] + " " + strong[16:], mcpserve.ErrWeakToken},
		{"0.0.0.0:8765", strong + "\u00e9", mcpserve.ErrWeakToken},
		{"0.0.0.0:8765", strings.Repeat("abcdefgh", 4), nil},
	} {
		err := mcpserve.CheckBind(tc.addr, tc.token)
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("CheckBind(%q, %q) = %v, want %v", tc.addr, tc.token, err, tc.want)
		}
	}
	if err := mcpserve.CheckBind("no-port", ""); err == nil {
		t.Error("an address without a port was taken")
	}
}

// TestBearerScheme: the scheme of "Authorization: Bearer <token>" is
// matched in any case (RFC 9110 §11.1), the token exactly.
func TestBearerScheme(t *testing.T) {
	const token = "3f9c1e0b7a4d28e6c5b19f0a7d3e6c21"
	srv := httptest.NewServer(mcpserve.HTTPHandler(mcpserve.New(newRegistry(t), worker.ProfileFiction), token))
	defer srv.Close()
	for _, tc := range []struct {
		auth string
		ok   bool
	}{
		{"Bearer " + token, true},
		{"bearer " + token, true},
		{"BEARER " + token, true},
		{"bEaReR " + token, true},
		{"Bearer  " + token, true}, // RFC 9110: 1*SP
		{"Bearer " + token[:31], false},
		{"Bearer " + token + "x", false},
		{"Bearer " + strings.ToUpper(token), false},
		{"Basic " + token, false},
		{"Bearer", false},
		{token, false},
		{"", false},
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+mcpserve.Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.StatusCode != http.StatusUnauthorized; got != tc.ok {
			t.Errorf("Authorization %q: status %d, want accepted %v", tc.auth, resp.StatusCode, tc.ok)
		}
	}
}

// bearerTransport adds a bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPEndpoint: over streamable HTTP on loopback, a client lists the
// tools and calls one; a foreign Host or Origin is refused (DNS
// rebinding, cross-origin pages), and with a token so is a request
// without it.
func TestHTTPEndpoint(t *testing.T) {
	reg := newRegistry(t)
	const token = "s3cret-token"
	srv := httptest.NewServer(mcpserve.HTTPHandler(mcpserve.New(reg, worker.ProfileFiction), token))
	defer srv.Close()
	endpoint := srv.URL + mcpserve.Path

	ctx := context.Background()
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearerTransport{token}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if tools := listTools(t, cs); len(tools) != len(reg.Ops(worker.ProfileFiction)) {
		t.Fatalf("%d tools over HTTP, want %d", len(tools), len(reg.Ops(worker.ProfileFiction)))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "dli_hello", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("dli_hello over HTTP: %v %+v", err, res)
	}

	post := func(mut func(*http.Request)) int {
		req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		mut(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct {
		name string
		mut  func(*http.Request)
		want int
	}{
		{"foreign Host (DNS rebinding)", func(r *http.Request) { r.Host = "evil.example:80" }, http.StatusForbidden},
		{"foreign Origin", func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }, http.StatusForbidden},
		{"no token", func(r *http.Request) { r.Header.Del("Authorization") }, http.StatusUnauthorized},
		{"wrong token", func(r *http.Request) { r.Header.Set("Authorization", "Bearer guess") }, http.StatusUnauthorized},
	} {
		if got := post(tc.mut); got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
	}
	// A loopback Origin passes the guards (the request itself is then the
	// SDK's to answer).
	if got := post(func(r *http.Request) { r.Header.Set("Origin", "http://localhost:5173") }); got == http.StatusForbidden || got == http.StatusUnauthorized {
		t.Errorf("a loopback origin was refused: %d", got)
	}
}
