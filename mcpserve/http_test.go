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

func TestCheckBind(t *testing.T) {
	for _, tc := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:8765", "", true},
		{"[::1]:0", "", true},
		{"localhost:0", "", true},
		{"0.0.0.0:8765", "", false},
		{"192.0.2.7:8765", "", false},
		{"0.0.0.0:8765", "s3cret", true},
		{"no-port", "", false},
	} {
		err := mcpserve.CheckBind(tc.addr, tc.token)
		if (err == nil) != tc.ok {
			t.Errorf("CheckBind(%q, %q) = %v, want ok %v", tc.addr, tc.token, err, tc.ok)
		}
		if !tc.ok && tc.addr != "no-port" && !errors.Is(err, mcpserve.ErrOpenBind) {
			t.Errorf("CheckBind(%q): %v, want ErrOpenBind", tc.addr, err)
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
