package mcpserve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/project"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newRegistry builds the registry serve builds (author.* and dli.*) over a
// fresh store with one document and a fixed clock, so two of them answer
// the same calls identically.
func newRegistry(t *testing.T) *worker.Registry {
	t.Helper()
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	s, err := lorestore.Init(dir, lorestore.Options{StoreID: "5eed5eed5eed5eed5eed5eed5eed5eed", Now: func() time.Time { clock = clock.Add(time.Second); return clock }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p := &project.Project{Dir: dir, Store: dir, Branch: "main", Documents: []project.Document{{Scope: "camelot"}}}
	svc, err := author.ForProject(s, p)
	if err != nil {
		t.Fatal(err)
	}
	reg := worker.NewRegistry()
	worker.RegisterAuthor(reg, svc)
	worker.RegisterDLI(reg, svc, "test")
	return reg
}

// connect serves reg's profile over in-memory transports and returns the
// client's session.
func connect(t *testing.T, reg *worker.Registry, profile worker.Profile) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserve.New(reg, profile).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func listTools(t *testing.T, cs *mcp.ClientSession) []*mcp.Tool {
	t.Helper()
	var out []*mcp.Tool
	params := &mcp.ListToolsParams{}
	for {
		res, err := cs.ListTools(context.Background(), params)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res.Tools...)
		if res.NextCursor == "" {
			return out
		}
		params = &mcp.ListToolsParams{Cursor: res.NextCursor}
	}
}

// TestMCPToolsList: each profile lists one tool per op, named by
// ToolName, every one with an object input schema and an output schema,
// the reserved arguments on exactly the mutating ones, and truthful hints.
func TestMCPToolsList(t *testing.T) {
	reg := newRegistry(t)
	counts := map[worker.Profile]int{}
	for _, profile := range []worker.Profile{worker.ProfileFiction, worker.ProfileExtended} {
		t.Run(string(profile), func(t *testing.T) {
			tools := listTools(t, connect(t, reg, profile))
			ops := reg.Ops(profile)
			byName := map[string]*worker.Op{}
			var want []string
			for _, op := range ops {
				n := mcpserve.ToolName(op.Name)
				if _, dup := byName[n]; dup {
					t.Fatalf("two ops map to tool name %q", n)
				}
				byName[n] = op
				want = append(want, n)
			}
			var got []string
			for _, tool := range tools {
				got = append(got, tool.Name)
			}
			sort.Strings(got)
			sort.Strings(want)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("tools %v\nwant %v", got, want)
			}
			counts[profile] = len(tools)
			for _, tool := range tools {
				op := byName[tool.Name]
				in, _ := tool.InputSchema.(map[string]any)
				if in["type"] != "object" {
					t.Errorf("%s: input schema %v", tool.Name, tool.InputSchema)
				}
				out, _ := tool.OutputSchema.(map[string]any)
				if out["type"] != "object" {
					t.Errorf("%s: output schema %v", tool.Name, tool.OutputSchema)
				}
				props, _ := in["properties"].(map[string]any)
				_, hasDigest := props["expected_digest"]
				_, hasKey := props["idempotency_key"]
				if hasDigest != op.Mutating || hasKey != op.Mutating {
					t.Errorf("%s: mutating %v but reserved arguments %v/%v", tool.Name, op.Mutating, hasDigest, hasKey)
				}
				a := tool.Annotations
				if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
					t.Fatalf("%s: hints unset: %+v", tool.Name, a)
				}
				// Named here, not read from the spec, so that a spec that
				// loses its mark fails (DL-0172, DL-0233).
				wantDestructive := op.Name == "author.discard" || op.Name == "author.branch"
				wantRead := !op.Mutating && op.Name != "dli.import" && op.Name != "dli.declare_scope"
				if a.ReadOnlyHint != wantRead || a.IdempotentHint != wantRead || *a.DestructiveHint != wantDestructive || *a.OpenWorldHint {
					t.Errorf("%s: hints %+v (mutating %v)", tool.Name, a, op.Mutating)
				}
			}
		})
	}
	if counts[worker.ProfileFiction] == 0 || counts[worker.ProfileFiction] >= counts[worker.ProfileExtended] {
		t.Fatalf("fiction %d tools, all %d", counts[worker.ProfileFiction], counts[worker.ProfileExtended])
	}
}

// mcpCall calls a tool and returns its structured content as decoded JSON
// and whether it was an error; the text content must say the same.
func mcpCall(t *testing.T, cs *mcp.ClientSession, op string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcpserve.ToolName(op), Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		t.Fatalf("%s: structured content %s: %v", op, b, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content items", op, len(res.Content))
	}
	var text map[string]any
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || json.Unmarshal([]byte(tc.Text), &text) != nil || !reflect.DeepEqual(text, m) {
		t.Fatalf("%s: text content %v is not the structured content %v", op, res.Content[0], m)
	}
	return m, res.IsError
}

// rawCall sends the same call over the registry as stdio would and
// returns the response minus ok and id.
func rawCall(t *testing.T, reg *worker.Registry, n int, op string, args map[string]any) map[string]any {
	t.Helper()
	req := map[string]any{"dli": worker.Version, "id": fmt.Sprintf("rq-%d", n), "op": op}
	params := map[string]any{}
	for k, v := range args {
		if k == "expected_digest" || k == "idempotency_key" {
			req[k] = v
		} else {
			params[k] = v
		}
	}
	req["params"] = params
	line, _ := json.Marshal(req)
	b, _ := json.Marshal(reg.Dispatch(context.Background(), line))
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "ok")
	delete(m, "id")
	return m
}

func prov() map[string]any { return map[string]any{"kind": "proposed", "origin": "session-mcp"} }

// TestMCPCallsMatchDispatch: a session of open, a staging call under the
// fence, a read, and a refusal answers over MCP exactly what the same
// calls answer over the raw registry, minus ok and id.
func TestMCPCallsMatchDispatch(t *testing.T) {
	viaMCP, raw := newRegistry(t), newRegistry(t)
	cs := connect(t, viaMCP, worker.ProfileFiction)
	open, isErr := mcpCall(t, cs, "author.open", map[string]any{"scope": "camelot"})
	if isErr {
		t.Fatalf("open: %v", open)
	}
	ws, d0 := open["workspace"], open["workspace_digest"]
	calls := []struct {
		op      string
		args    map[string]any
		wantErr bool
	}{
		{"author.open", map[string]any{"scope": "camelot"}, false},
		{"author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prov(), "expected_digest": d0}, false},
		{"author.status", map[string]any{"workspace": ws}, false},
		{"author.entities", map[string]any{"workspace": ws}, false},
		{"author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prov(), "expected_digest": d0}, true},
		{"dli.hello", map[string]any{}, false},
	}
	if got := rawCall(t, raw, 0, "author.open", map[string]any{"scope": "camelot"}); !reflect.DeepEqual(got, open) {
		t.Fatalf("open: mcp %v\nraw %v", open, got)
	}
	for i, c := range calls[1:] {
		got, isErr := mcpCall(t, cs, c.op, c.args)
		want := rawCall(t, raw, i+1, c.op, c.args)
		if isErr != c.wantErr || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: mcp (isError %v) %v\nraw %v", c.op, isErr, got, want)
		}
	}
}

// TestMCPStaleFence: a stale expected_digest is a refusal result with the
// typed error in structured content, and nothing is staged.
func TestMCPStaleFence(t *testing.T) {
	cs := connect(t, newRegistry(t), worker.ProfileFiction)
	open, _ := mcpCall(t, cs, "author.open", map[string]any{"scope": "camelot"})
	ws, d0 := open["workspace"], open["workspace_digest"]
	r, isErr := mcpCall(t, cs, "author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prov(), "expected_digest": d0})
	if isErr {
		t.Fatalf("add: %v", r)
	}
	d1 := r["workspace_digest"]
	r, isErr = mcpCall(t, cs, "author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "anwen", "name": "Anwen", "provenance": prov(), "expected_digest": d0})
	e, _ := r["error"].(map[string]any)
	if !isErr || e["code"] != "stale-fence" || len(r) != 1 {
		t.Fatalf("stale fence: isError %v %v", isErr, r)
	}
	st, _ := mcpCall(t, cs, "author.status", map[string]any{"workspace": ws})
	if st["workspace_digest"] != d1 {
		t.Fatalf("the refused call changed the workspace: %v, want %v", st["workspace_digest"], d1)
	}
}

// TestMCPKeyedRetry: a retry under the same idempotency key returns the
// first result and stages nothing more.
func TestMCPKeyedRetry(t *testing.T) {
	cs := connect(t, newRegistry(t), worker.ProfileFiction)
	open, _ := mcpCall(t, cs, "author.open", map[string]any{"scope": "camelot"})
	ws := open["workspace"]
	args := map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prov(), "idempotency_key": "k-1"}
	first, isErr := mcpCall(t, cs, "author.add_entity", args)
	if isErr {
		t.Fatalf("first: %v", first)
	}
	again, isErr := mcpCall(t, cs, "author.add_entity", args)
	if isErr || !reflect.DeepEqual(first, again) {
		t.Fatalf("retry: isError %v %v\nfirst %v", isErr, again, first)
	}
	st, _ := mcpCall(t, cs, "author.status", map[string]any{"workspace": ws})
	if st["workspace_digest"] != first["workspace_digest"] {
		t.Fatalf("the retry staged again: %v, want %v", st["workspace_digest"], first["workspace_digest"])
	}
}

// TestMCPArgumentErrors: unknown arguments, wrongly typed reserved
// arguments and reserved arguments on a read are schema refusals, as on
// stdio.
func TestMCPArgumentErrors(t *testing.T) {
	cs := connect(t, newRegistry(t), worker.ProfileFiction)
	open, _ := mcpCall(t, cs, "author.open", map[string]any{"scope": "camelot"})
	ws := open["workspace"]
	for _, c := range []struct {
		name, op string
		args     map[string]any
		code     string
	}{
		{"unknown argument", "author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "m", "name": "M", "provenance": prov(), "bogus": 1}, "unknown-field"},
		{"unknown argument on a read", "author.status", map[string]any{"workspace": ws, "bogus": true}, "unknown-field"},
		{"reserved argument on a read", "author.status", map[string]any{"workspace": ws, "expected_digest": "wd-x"}, "not-mutating"},
		{"reserved argument not a string", "author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "m", "name": "M", "provenance": prov(), "idempotency_key": 7}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, isErr := mcpCall(t, cs, c.op, c.args)
			e, _ := r["error"].(map[string]any)
			if !isErr || e["class"] != "schema" || c.code != "" && e["code"] != c.code {
				t.Fatalf("isError %v %v, want schema %s", isErr, r, c.code)
			}
		})
	}
	st, _ := mcpCall(t, cs, "author.status", map[string]any{"workspace": ws})
	if st["workspace_digest"] != open["workspace_digest"] {
		t.Fatalf("a refused call staged: %v", st)
	}
}

// TestEnvelope: non-object arguments are a schema refusal before any
// dispatch; absent arguments are empty params.
func TestEnvelope(t *testing.T) {
	for _, args := range []string{`[1]`, `"x"`, `3`} {
		if _, e := mcpserve.Envelope("author.status", "i", json.RawMessage(args)); e == nil || e.Class != worker.ClassSchema {
			t.Errorf("%s: %v", args, e)
		}
	}
	for _, args := range []string{``, `null`, ` {} `} {
		line, e := mcpserve.Envelope("dli.hello", "i", json.RawMessage(args))
		if e != nil {
			t.Fatalf("%q: %v", args, e)
		}
		var req worker.Request
		if err := json.Unmarshal(line, &req); err != nil || string(req.Params) != "{}" || req.Op != "dli.hello" || req.DLI != worker.Version {
			t.Errorf("%q: %s", args, line)
		}
	}
}

// TestMCPArgumentsAsEnvelope: whatever arguments a client can send, the
// tool call answers exactly what the request line Envelope builds of them
// answers through Dispatch (the path MCP took before its arguments were
// decoded once): the same result, or the same typed error, message and
// data included.
func TestMCPArgumentsAsEnvelope(t *testing.T) {
	viaMCP, viaLine := newRegistry(t), newRegistry(t)
	cs := connect(t, viaMCP, worker.ProfileExtended)
	line := func(op string, args map[string]any) map[string]any {
		t.Helper()
		a, _ := json.Marshal(args)
		l, e := mcpserve.Envelope(op, "rq", a)
		resp := worker.Response{Err: e}
		if e == nil {
			resp = viaLine.Dispatch(context.Background(), l)
		}
		res, err := mcpserve.Result(resp)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	open, _ := mcpCall(t, cs, "author.open", map[string]any{"scope": "camelot"})
	line("author.open", map[string]any{"scope": "camelot"})
	ws, d0 := open["workspace"], open["workspace_digest"]
	entity := func(id string, extra ...any) map[string]any {
		m := map[string]any{"workspace": ws, "kind": "person", "id": id, "name": "N", "provenance": prov()}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i].(string)] = extra[i+1]
		}
		return m
	}
	for _, c := range []struct {
		op   string
		args map[string]any
	}{
		{"author.add_entity", entity("a1", "expected_digest", d0, "idempotency_key", "k-1")},
		{"author.add_entity", entity("a1", "idempotency_key", "k-1")}, // the keyed retry
		{"author.add_entity", entity("a2", "idempotency_key", "k-1")}, // the key's conflict
		{"author.add_entity", entity("a3", "expected_digest", d0)},    // a stale fence
		{"author.add_entity", entity("a4", "expected_digest", nil, "idempotency_key", "")},
		{"author.add_entity", entity("a5", "expected_digest", 7)},
		{"author.add_entity", entity("a5", "idempotency_key", true, "expected_digest", []any{})},
		{"author.add_entity", entity("a5", "idempotency_key", map[string]any{}, "bogus", 1)},
		{"author.add_entity", entity("a5", "bogus", 1)},
		{"author.add_entity", map[string]any{"workspace": ws, "idempotency_key": "k-9"}},
		{"author.add_entity", map[string]any{"idempotency_key": "k-9"}},
		{"author.add_entity", nil},
		{"author.status", map[string]any{"workspace": ws}},
		{"author.status", map[string]any{"workspace": ws, "expected_digest": d0}},
		{"author.status", map[string]any{"workspace": ws, "idempotency_key": nil}},
		{"author.status", map[string]any{"workspace": ws, "idempotency_key": 3}},
		{"author.status", map[string]any{"workspace": 5}},
		{"author.query", map[string]any{"workspace": ws, "goal": map[string]any{"pred": "kind", "args": []any{map[string]any{"var": "X"}, map[string]any{"const": "person"}}}, "limit": 2}},
		{"author.query", map[string]any{"workspace": ws, "goal": map[string]any{"pred": "kind", "args": []any{map[string]any{"bad": "X"}}}}},
		{"dli.hello", map[string]any{}},
		{"dli.hello", map[string]any{"bogus": "x"}},
	} {
		got, _ := mcpCall(t, cs, c.op, c.args)
		if want := line(c.op, c.args); !reflect.DeepEqual(got, want) {
			t.Errorf("%s %v:\n mcp  %v\n line %v", c.op, c.args, got, want)
		}
	}
}
