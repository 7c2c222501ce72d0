package mcpserve_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressLog gathers the progress notifications a client receives.
type progressLog struct {
	mu   sync.Mutex
	got  []*mcp.ProgressNotificationParams
	last chan struct{} // closed when a notification reaches its total
}

func (l *progressLog) handle(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, req.Params)
	if req.Params.Total > 0 && req.Params.Progress == req.Params.Total {
		close(l.last)
	}
}

// take waits for the final notification of a call and returns them all.
func (l *progressLog) take(t *testing.T) []*mcp.ProgressNotificationParams {
	t.Helper()
	select {
	case <-l.last:
	case <-time.After(10 * time.Second):
		t.Fatal("no progress notification reached its total")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.got
	l.got, l.last = nil, make(chan struct{})
	return out
}

// connectWithProgress is connect with a client that records progress.
func connectWithProgress(t *testing.T, reg *worker.Registry) (*mcp.ClientSession, *progressLog) {
	t.Helper()
	log := &progressLog{last: make(chan struct{})}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserve.New(reg, worker.ProfileExtended).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"},
		&mcp.ClientOptions{ProgressNotificationHandler: log.handle}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, log
}

// callWithToken calls a tool with a progress token; it fails the test on
// a refusal.
func callWithToken(t *testing.T, cs *mcp.ClientSession, op, tok string, args map[string]any) {
	t.Helper()
	p := &mcp.CallToolParams{Name: mcpserve.ToolName(op), Arguments: args}
	if tok != "" {
		p.SetProgressToken(tok)
	}
	res, err := cs.CallTool(context.Background(), p)
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %v", op, err, res)
	}
}

// checkProgress holds a call's notifications to the protocol: all on the
// token, progress strictly increasing, one total, the last at the total.
func checkProgress(t *testing.T, what, tok string, got []*mcp.ProgressNotificationParams, wantTotal float64) {
	t.Helper()
	if len(got) < 2 {
		t.Fatalf("%s: %d notifications", what, len(got))
	}
	for i, n := range got {
		if n.ProgressToken != tok || n.Total != wantTotal || n.Message == "" {
			t.Errorf("%s: notification %d = %+v (want token %s, total %v)", what, i, n, tok, wantTotal)
		}
		if i > 0 && n.Progress <= got[i-1].Progress {
			t.Errorf("%s: progress %v after %v", what, n.Progress, got[i-1].Progress)
		}
	}
	if last := got[len(got)-1]; last.Progress != wantTotal {
		t.Errorf("%s: ends at %v of %v", what, last.Progress, wantTotal)
	}
}

// TestProgressNotifications: materialize and merge, called with a progress
// token, report their steps as MCP progress notifications; a call without
// a token gets none.
func TestProgressNotifications(t *testing.T) {
	cs, log := connectWithProgress(t, newRegistry(t))
	open, _ := mcpCall(t, cs, "author.open", map[string]any{"scope": "camelot"})
	ws := open["workspace"]
	const n = 120
	for i := 0; i < n; i++ {
		callWithToken(t, cs, "author.add_entity", "", map[string]any{"workspace": ws, "kind": "person",
			"id": fmt.Sprintf("knight-%03d", i), "name": fmt.Sprintf("Knight %d", i), "provenance": prov()})
	}
	log.mu.Lock()
	if len(log.got) != 0 {
		t.Fatalf("staging calls with no token sent %d notifications", len(log.got))
	}
	log.mu.Unlock()
	callWithToken(t, cs, "author.materialize", "m-1", map[string]any{"workspace": ws})
	// One step per object encoded, the commit and the load of the new base.
	checkProgress(t, "materialize", "m-1", log.take(t), n+2)

	callWithToken(t, cs, "author.branch", "", map[string]any{"workspace": ws, "action": "create", "name": "quest"})
	side, _ := mcpCall(t, cs, "author.open", map[string]any{"scope": "camelot", "branch": "quest"})
	callWithToken(t, cs, "author.add_entity", "", map[string]any{"workspace": side["workspace"], "kind": "person",
		"id": "galahad", "name": "Galahad", "provenance": prov()})
	callWithToken(t, cs, "author.materialize", "", map[string]any{"workspace": side["workspace"]})
	callWithToken(t, cs, "author.merge", "g-1", map[string]any{"workspace": ws, "source": "quest"})
	// One step per scope checked, then the outcome.
	checkProgress(t, "merge", "g-1", log.take(t), 2)
}
