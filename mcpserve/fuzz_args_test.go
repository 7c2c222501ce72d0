// FuzzToolArgs: the MCP argument path. The fuzzer picks a tool (every DLI
// op, then every DKE tool) by an index byte and calls its tool handler
// with the argument bytes, as go-sdk hands them over, without a
// subprocess. The handler answers a tool result (never a Go error, never a
// panic or a hang) whose structured content is one JSON object, an error
// object exactly when isError; and for arguments that are one I-JSON
// object, the answer is the stdio answer of the request line a client
// would send for them (a fresh copy of the seed each): the same result,
// or an error of the same class and code. Its seeds, which plain go test
// runs, are the arguments of every call of the contract fixtures.

package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/deloreis/deloreis/internal/fuzzseed"
	"github.com/deloreis/deloreis/jcs"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func FuzzToolArgs(f *testing.F) {
	seeds := fuzzseed.Build(f)
	ops, dke := toolOps(f, seeds)
	index := map[string]int{}
	for i, op := range ops {
		index[op] = i
	}
	for _, c := range fuzzseed.Calls(f, "..") {
		if i, ok := index[c.Op]; ok {
			f.Add(byte(i), []byte(c.Params))
		}
	}
	for i := range ops { // the reserved members, one of the wrong type
		f.Add(byte(i), []byte(`{"workspace":"ws-1","idempotency_key":"k","expected_digest":7}`))
	}
	f.Fuzz(func(t *testing.T, pick byte, args []byte) {
		name := ops[int(pick)%len(ops)]
		reg, o := freshRegistry(t, seeds, dke[name])
		op, _ := reg.Lookup(name)
		var n atomic.Int64
		h := handler(reg, op, &n, o)
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: ToolName(name), Arguments: json.RawMessage(args)}}
		var res *mcp.CallToolResult
		var err error
		fuzzseed.Bounded(t, len(args), func() { res, err = h(context.Background(), req) })
		body, refusal := checkToolResult(t, name, args, res, err)
		line, isObject := orderedLine(name, args)
		if !isObject {
			if !res.IsError {
				t.Fatalf("%s %q: arguments that are no I-JSON object answered: %s", name, args, body)
			}
			return
		}
		sreg, _ := freshRegistry(t, seeds, dke[name])
		want, werr := sreg.Dispatch(context.Background(), line).Body()
		if werr != nil {
			t.Fatal(werr)
		}
		checkSameAsStdio(t, name, args, res.IsError, body, refusal, want)
	})
}

// toolOps lists the tools FuzzToolArgs picks from, every DLI op then every
// DKE tool, and marks which of them are DKE tools.
func toolOps(f *testing.F, seeds *fuzzseed.Seeds) ([]string, map[string]bool) {
	var ops []string
	dke := map[string]bool{}
	for _, op := range worker.ProjectRegistry(seeds.Project(f), "fuzz").Ops(worker.ProfileExtended) {
		ops = append(ops, op.Name)
	}
	dreg := worker.NewRegistry()
	worker.RegisterDKE(dreg, seeds.DKE(f))
	for _, op := range dreg.Ops(worker.ProfileExtended) {
		ops = append(ops, op.Name)
		dke[op.Name] = true
	}
	return ops, dke
}

// freshRegistry is a registry over a fresh copy of the seed an op needs
// (the DKE one if dke), with ws-1 open on storybook for a DLI op, and the
// handler options of its server.
func freshRegistry(t *testing.T, seeds *fuzzseed.Seeds, dke bool) (*worker.Registry, Options) {
	t.Helper()
	if dke {
		reg := worker.NewRegistry()
		worker.RegisterDKE(reg, seeds.DKE(t))
		return reg, DKEOptions()
	}
	reg := worker.ProjectRegistry(seeds.Project(t), "fuzz")
	if resp := reg.Dispatch(context.Background(), []byte(`{"dli":"2.0.0","id":"setup","op":"author.open","params":{"scope":"storybook"}}`)); resp.Err != nil {
		t.Fatalf("opening ws-1: %v", resp.Err)
	}
	return reg, Options{}
}

// toolRefusal is the typed error of a tool result's structured content.
type toolRefusal struct {
	Error *struct{ Class, Code, Message string } `json:"error"`
}

// checkToolResult checks that the handler answered a tool result, not a Go
// error, whose structured content is one JSON object, with a typed error
// (not an internal one) when isError; it returns that content and error.
func checkToolResult(t *testing.T, name string, args []byte, res *mcp.CallToolResult, err error) (json.RawMessage, toolRefusal) {
	t.Helper()
	if err != nil || res == nil {
		t.Fatalf("%s %q: the handler answered a Go error: %v", name, args, err)
	}
	body, ok := res.StructuredContent.(json.RawMessage)
	var m map[string]json.RawMessage
	if !ok || json.Unmarshal(body, &m) != nil || m == nil {
		t.Fatalf("%s %q: structured content is not one JSON object: %#v", name, args, res.StructuredContent)
	}
	var refusal toolRefusal
	if res.IsError {
		if json.Unmarshal(body, &refusal) != nil || refusal.Error == nil || refusal.Error.Class == "" || refusal.Error.Code == "" || refusal.Error.Message == "" {
			t.Fatalf("%s %q: isError without a typed error: %s", name, args, body)
		}
		if refusal.Error.Class == string(worker.ClassInternal) {
			t.Fatalf("%s %q: an internal error: %s", name, args, body)
		}
	}
	return body, refusal
}

// checkSameAsStdio checks the MCP answer (body, refusal when isError)
// against want, the stdio answer of the same request: the same result, or
// an error of the same class and code.
func checkSameAsStdio(t *testing.T, name string, args []byte, isError bool, body json.RawMessage, refusal toolRefusal, want []byte) {
	t.Helper()
	var w struct {
		Error *struct{ Class, Code string } `json:"error"`
	}
	_ = json.Unmarshal(want, &w)
	switch {
	case isError != (w.Error != nil):
		t.Fatalf("%s %q: MCP and stdio disagree:\n mcp   %s\n stdio %s", name, args, body, want)
	case isError && (refusal.Error.Class != w.Error.Class || refusal.Error.Code != w.Error.Code):
		t.Fatalf("%s %q: MCP and stdio refuse differently:\n mcp   %s\n stdio %s", name, args, body, want)
	case !isError && !bytes.Equal(body, want):
		t.Fatalf("%s %q: MCP and stdio answer differently:\n mcp   %s\n stdio %s", name, args, body, want)
	}
}

// orderedLine is the request line a stdio client sends for a tool call's
// arguments: the reserved members lifted beside the params, the others
// kept in their order (the first of two errors is the first met). It
// reports false for arguments that are not one I-JSON object; absent or
// null arguments are no params.
func orderedLine(op string, args []byte) ([]byte, bool) {
	a := bytes.TrimSpace(args)
	if len(a) == 0 || string(a) == "null" {
		a = []byte("{}")
	}
	if _, err := jcs.Append(nil, a); err != nil || a[0] != '{' {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(a))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	name, _ := json.Marshal(op)
	line := append([]byte(`{"dli":"2.0.0","id":"fz","op":`), name...)
	params := []byte{'{'}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		k, _ := json.Marshal(tok.(string))
		member := append(append(k, ':'), v...)
		if key := tok.(string); key == ArgExpectedDigest || key == ArgIdempotencyKey {
			line = append(append(line, ','), member...)
			continue
		}
		if len(params) > 1 {
			params = append(params, ',')
		}
		params = append(params, member...)
	}
	line = append(append(line, `,"params":`...), params...)
	return append(line, '}', '}'), true
}
