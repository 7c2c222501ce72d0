package mcpserve_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSessionCapAllBusy: at --max-sessions, a new session closes an idle
// one; only when every session has a call in flight is it refused (503),
// and it is served again once one of them is idle.
func TestSessionCapAllBusy(t *testing.T) {
	reg, started, _ := blockRegistry()
	srv := httptest.NewServer(mcpserve.HTTPHandlerWith(mcpserve.New(reg, worker.ProfileFiction), "", mcpserve.Limits{MaxSessions: 2}))
	defer srv.Close()
	connect := func() (*mcp.ClientSession, error) {
		return mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: srv.URL + mcpserve.Path, MaxRetries: -1}, nil)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range 2 {
		cs, err := connect()
		if err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		defer cs.Close()
		go cs.CallTool(ctx, &mcp.CallToolParams{Name: "t_block", Arguments: map[string]any{}})
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Fatal("the call did not start")
		}
	}
	if cs, err := connect(); err == nil {
		cs.Close()
		t.Fatal("a third session was opened while both held a call in flight")
	} else if !strings.Contains(err.Error(), "503") && !strings.Contains(err.Error(), "Service Unavailable") {
		t.Fatalf("a third session: %v, want 503", err)
	}
	cancel() // both calls end; both sessions are idle
	deadline := time.Now().Add(10 * time.Second)
	for {
		cs, err := connect()
		if err == nil {
			cs.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a new session once the others are idle: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
