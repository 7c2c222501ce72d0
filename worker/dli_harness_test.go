package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/lorestore"
)

// dliHarness is an author service over a fresh store, driven through the
// registry the DLI ops are bound in, as a transport drives it.
type dliHarness struct {
	t     *testing.T
	store *lorestore.Store
	svc   *author.Service
	reg   *Registry
	n     atomic.Int64
}

func newDLIHarness(t *testing.T, docs ...string) *dliHarness {
	t.Helper()
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s, err := lorestore.Init(t.TempDir(), lorestore.Options{Now: func() time.Time { clock = clock.Add(time.Second); return clock }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	svc, err := author.New(author.Config{Store: s, Documents: docs})
	if err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	RegisterAuthor(reg, svc)
	return &dliHarness{t: t, store: s, svc: svc, reg: reg}
}

// call sends one request with the given extra envelope fields (pairs) and
// returns the decoded response.
func (h *dliHarness) call(op string, params any, env ...string) map[string]any {
	h.t.Helper()
	req := map[string]any{"dli": Version, "id": fmt.Sprintf("rq-%d", h.n.Add(1)), "op": op, "params": params}
	for i := 0; i+1 < len(env); i += 2 {
		req[env[i]] = env[i+1]
	}
	line, _ := json.Marshal(req)
	out, err := json.Marshal(h.reg.Dispatch(context.Background(), line))
	if err != nil {
		h.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		h.t.Fatal(err)
	}
	return m
}

// ok calls and requires success.
func (h *dliHarness) ok(op string, params any, env ...string) map[string]any {
	h.t.Helper()
	m := h.call(op, params, env...)
	if m["ok"] != true {
		h.t.Fatalf("%s: %v", op, m["error"])
	}
	return m
}

// refused calls and requires an error with this code.
func (h *dliHarness) refused(code, op string, params any, env ...string) map[string]any {
	h.t.Helper()
	m := h.call(op, params, env...)
	e, _ := m["error"].(map[string]any)
	if m["ok"] != false || e["code"] != code {
		h.t.Fatalf("%s: want error %s, got %v", op, code, m)
	}
	return e
}

func prop() map[string]any { return map[string]any{"kind": "proposed", "origin": "session-7c9"} }
