// The test harness: a service over a fresh lorestore with a fixed clock,
// and tool calls made as the contract names them — a tool name and its
// arguments as JSON — answered by the typed methods themselves, with no
// transport between. The calls through the worker registry and over MCP,
// with their _meta, text and output schemas, and the golden cases, are
// tested where the tools are bound: worker/dke_ops_test.go and
// mcpserve/dke_test.go.

package service

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
)

// fixture is a service over a fresh lorestore with a fixed clock.
type fixture struct {
	t   testing.TB
	dir string
	ls  *lorestore.Store
	svc *Service
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "lore")
	ls, err := lorestore.Init(dir, lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ls.Close() })
	tick := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	svc, err := New(Config{Store: ls, Now: func() time.Time { tick = tick.Add(time.Minute); return tick }, Authority: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, dir: dir, ls: ls, svc: svc}
}

// answer is what a tool call gave: its result as JSON, or its error as
// the domain error it is.
type answer struct {
	Result json.RawMessage
	Err    *fault.Error
}

// OK reports whether the call succeeded.
func (a answer) OK() bool { return a.Err == nil }

// call makes a tool call on the fixture's service and returns the answer
// with its text: the result's text, or "error: " and the message.
func (f *fixture) call(ctx context.Context, tool string, args map[string]any) (answer, string) {
	f.t.Helper()
	params, err := json.Marshal(args)
	if err != nil {
		f.t.Fatal(err)
	}
	res, err := f.invoke(ctx, tool, params)
	if err != nil {
		e := fault.Of(err)
		return answer{Err: e}, "error: " + e.Message
	}
	b, err := json.Marshal(res)
	if err != nil {
		f.t.Fatal(err)
	}
	var r struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		f.t.Fatal(err)
	}
	return answer{Result: b}, r.Text
}

// invoke calls the method of the tool named.
func (f *fixture) invoke(ctx context.Context, tool string, params []byte) (any, error) {
	s := f.svc
	switch tool {
	case "compile":
		return typed(ctx, params, s.Compile)
	case "run":
		return typed(ctx, params, s.Run)
	case "spec":
		return typed(ctx, params, s.Spec)
	case "list":
		return typed(ctx, params, s.List)
	case "info":
		return typed(ctx, params, s.Info)
	case "forget":
		return typed(ctx, params, s.Forget)
	case "forget_rule":
		return typed(ctx, params, s.ForgetRule)
	case "forget_constraint":
		return typed(ctx, params, s.ForgetConstraint)
	case "list_modules":
		return typed(ctx, params, s.ListModules)
	case "info_module":
		return typed(ctx, params, s.InfoModule)
	case "forget_module":
		return typed(ctx, params, s.ForgetModule)
	case "stores":
		return typed(ctx, params, s.Stores)
	case "checkup":
		return typed(ctx, params, s.Checkup)
	}
	f.t.Fatalf("no tool %s", tool)
	return nil, nil
}

// typed decodes params strictly (an unknown field is an error) into the
// method's params type and calls it.
func typed[P, R any](ctx context.Context, params []byte, m func(context.Context, *P) (R, error)) (any, error) {
	var p P
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fault.Errorf(fault.Invalid, fault.CodeBadParams, "%v", err)
	}
	return m(ctx, &p)
}

// mustOK calls a tool and fails the test on a refusal.
func (f *fixture) mustOK(ctx context.Context, tool string, args map[string]any) string {
	f.t.Helper()
	resp, txt := f.call(ctx, tool, args)
	if !resp.OK() {
		f.t.Fatalf("%s %v: %v", tool, args, resp.Err)
	}
	return txt
}

// head is the branch's head commit.
func (f *fixture) head() string {
	f.t.Helper()
	h, err := f.ls.Head("main")
	if err != nil {
		f.t.Fatal(err)
	}
	return h.String()
}
