// Package mcpserve serves the worker registry as MCP tools (go-sdk): one
// tool per op of a profile, whose input schema is the op's params schema
// (plus, for a mutating op, the two reserved mutation-law arguments) and
// whose output schema is its result schema. A call's arguments are
// decoded once, into the op's params type, and the op answers through
// Registry.Call, which makes the checks a stdio request meets once its op
// is known, so the fence, idempotency and every typed error behave as on
// stdio.
// The DKE server reuses this adapter; nothing here knows the DLI ops.
package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/deloreis/deloreis/base/progress"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The reserved tool arguments: lifted out of the arguments into the worker
// envelope, never passed on as params.
const (
	ArgExpectedDigest = worker.ArgExpectedDigest
	ArgIdempotencyKey = worker.ArgIdempotencyKey
)

// ToolName is the MCP tool name of an op: its dots become underscores
// (DL-0171), so that the name is valid for clients stricter than go-sdk.
func ToolName(op string) string { return strings.ReplaceAll(op, ".", "_") }

// Options adapt the server to a registry whose clients expect more than
// the DLI contract gives: the DKE server's results carry _meta and a
// transcript as their text, and its ops learn the caller's grant.
type Options struct {
	// Name and Version name the server (default deloreis, dli-<contract>).
	Name, Version string
	// Context, when set, derives the context an op runs under from the
	// tool call (e.g. to carry the grant of the caller's bearer token).
	Context func(ctx context.Context, req *mcp.CallToolRequest) context.Context
	// Meta, when set, gives a result's _meta from the worker response.
	Meta func(op *worker.Op, resp worker.Response) mcp.Meta
	// Text, when set, gives a result's text content; by default it is the
	// structured content as JSON.
	Text func(op *worker.Op, resp worker.Response) string
}

// New returns an MCP server offering the profile's ops of reg as tools.
func New(reg *worker.Registry, profile worker.Profile) *mcp.Server {
	return NewWithOptions(reg, profile, Options{})
}

// NewWithOptions is New with the adaptations of o.
func NewWithOptions(reg *worker.Registry, profile worker.Profile, o Options) *mcp.Server {
	if o.Name == "" {
		o.Name, o.Version = "deloreis", "dli-"+worker.Version
	}
	s := mcp.NewServer(&mcp.Implementation{Name: o.Name, Version: o.Version}, nil)
	var n atomic.Int64 // request ids: the worker envelope needs one; the MCP result drops it
	for _, op := range reg.Ops(profile) {
		s.AddTool(Tool(op), handler(reg, op, &n, o))
	}
	return s
}

// Tool is the MCP tool of an op: name, description, schemas, annotations.
func Tool(op *worker.Op) *mcp.Tool {
	in := op.ParamsSchema()
	if op.Mutating {
		props, _ := in["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			in["properties"] = props
		}
		props[ArgExpectedDigest] = map[string]any{"type": "string",
			"description": "Reserved: the workspace digest this change was decided against; a stale one is refused (stale-fence)."}
		props[ArgIdempotencyKey] = map[string]any{"type": "string",
			"description": "Reserved: a retry with the same key and arguments returns the first result and changes nothing."}
	}
	return &mcp.Tool{
		Name:         ToolName(op.Name),
		Title:        op.Name,
		Description:  op.Summary,
		InputSchema:  in,
		OutputSchema: OutputSchema(op),
		Annotations:  Annotations(op),
	}
}

// OutputSchema is what a call's structuredContent holds: the op's result,
// or — on a result marked isError — the typed error as {"error": {...}}.
// The two cannot both match: no result has a top-level field "error"
// (DL-0143), and a result schema admits no other fields.
func OutputSchema(op *worker.Op) map[string]any {
	failure := map[string]any{
		"type": "object",
		"properties": map[string]any{"error": map[string]any{
			"type":        "object",
			"description": "why the call was refused; nothing was written",
			"properties": map[string]any{
				"code":    map[string]any{"type": "string", "description": "the error code (docs/ops.md lists each op's), e.g. stale-fence"},
				"class":   map[string]any{"type": "string", "description": "the error class: schema, refused, conflict, not-found or internal"},
				"message": map[string]any{"type": "string", "description": "what went wrong, for a person"},
			},
			"required": []string{"class", "code", "message"},
		}},
		"required": []string{"error"}, "additionalProperties": false,
	}
	return map[string]any{"type": "object", "oneOf": []any{op.ResultSchema(), failure}}
}

// Annotations are the op's hints, set explicitly because go-sdk reads an
// unset destructive or open-world hint as true: reads are read-only and
// idempotent; an op that changes something is destructive only when its
// spec says it can remove something (DL-0172, DL-0233); no op reaches
// outside the project (open-world false).
func Annotations(op *worker.Op) *mcp.ToolAnnotations {
	f := false
	a := &mcp.ToolAnnotations{Title: op.Name, OpenWorldHint: &f}
	if op.ReadOnly() {
		a.ReadOnlyHint = true
		a.IdempotentHint = true
		a.DestructiveHint = &f
		return a
	}
	d := op.Destructive
	a.DestructiveHint = &d
	return a
}

// handler answers a tool call through the registry: the arguments are
// checked and decoded once, straight into the op's params type, with the
// reserved arguments lifted into the call's fence and key (worker.ToolCall),
// and the op answers through Registry.Call, which makes the checks and
// gives the typed errors a stdio request meets.
func handler(reg *worker.Registry, op *worker.Op, n *atomic.Int64, o Options) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, stop := callContext(ctx, req) // over HTTP, the call ends with its request
		defer stop()
		if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
			ctx = progress.With(ctx, notifier(ctx, req.Session, tok))
		}
		if o.Context != nil {
			ctx = o.Context(ctx, req)
		}
		var resp worker.Response
		calls.run(func() { resp = call(ctx, reg, op, callID(n), req.Params.Arguments) })
		res, err := Result(resp)
		if err != nil {
			return nil, err
		}
		if o.Meta != nil {
			res.Meta = o.Meta(op, resp)
		}
		if o.Text != nil {
			res.Content = []mcp.Content{&mcp.TextContent{Text: o.Text(op, resp)}}
		}
		return res, nil
	}
}

// call answers one tool call of op with its arguments.
func call(ctx context.Context, reg *worker.Registry, op *worker.Op, id string, args json.RawMessage) worker.Response {
	c, e := worker.ToolCall(op, id, args)
	if e != nil {
		return worker.Response{ID: id, Err: e}
	}
	return reg.Call(ctx, op, c)
}

// callID is the id of a tool call's worker call: the handlers do not read
// it, and the MCP result drops it, but it names the call as on stdio.
func callID(n *atomic.Int64) string {
	return "mcp-" + strconv.FormatInt(n.Add(1), 10)
}

// notifier sends an op's progress reports as MCP progress notifications
// on the token the client gave. A notification that cannot be sent (the
// client went away) does not fail the call: the op's outcome is what the
// mutation law is about, and a retry with its key finds it.
func notifier(ctx context.Context, ss *mcp.ServerSession, tok any) progress.Func {
	return func(done, total float64, msg string) {
		_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: done, Total: total, Message: msg})
	}
}

// Envelope builds the worker request line that a tool call amounts to:
// the arguments minus the reserved keys become params, the reserved keys
// (whatever their JSON type: the strict envelope decoder judges them) go
// beside. The MCP handler does not build it (it calls the op with the
// arguments, see worker.ToolCall); it is for the line protocol's callers
// and tests, and Dispatch answers it as the handler answers the call.
func Envelope(opName, id string, args json.RawMessage) ([]byte, *worker.Error) {
	params := map[string]json.RawMessage{}
	if a := bytes.TrimSpace(args); len(a) > 0 && !bytes.Equal(a, []byte("null")) {
		if err := json.Unmarshal(a, &params); err != nil {
			return nil, worker.Errorf(worker.ClassSchema, worker.CodeBadParams, "arguments must be a JSON object: %v", err)
		}
		if params == nil { // a JSON null inside whitespace
			params = map[string]json.RawMessage{}
		}
	}
	var reserved [2]json.RawMessage // lifted out of params, into the envelope
	for i, k := range [2]string{ArgExpectedDigest, ArgIdempotencyKey} {
		if v, ok := params[k]; ok {
			reserved[i] = v
			delete(params, k)
		}
	}
	p, err := json.Marshal(params)
	if err != nil {
		return nil, worker.Errorf(worker.ClassInternal, worker.CodeInternal, "params: %v", err)
	}
	// The envelope is written by hand, its members in the order a map's
	// marshalling would sort them; a map and its marshalling per call were
	// garbage for nothing (DL-0296).
	line := make([]byte, 0, len(p)+len(opName)+len(id)+96)
	line = append(line, `{"dli":`...)
	line = appendString(line, worker.Version)
	line = appendReserved(line, ArgExpectedDigest, reserved[0])
	line = append(line, `,"id":`...)
	line = appendString(line, id)
	line = appendReserved(line, ArgIdempotencyKey, reserved[1])
	line = append(line, `,"op":`...)
	line = appendString(line, opName)
	line = append(line, `,"params":`...)
	line = append(line, p...)
	return append(line, '}'), nil
}

// appendString appends s as a JSON string, escaped as encoding/json does.
func appendString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return append(dst, b...)
}

// appendReserved appends ,"key":value when the arguments held the key,
// the value compacted (the decoder judges it).
func appendReserved(dst []byte, key string, v json.RawMessage) []byte {
	if v == nil {
		return dst
	}
	dst = append(dst, `,"`...)
	dst = append(dst, key...)
	dst = append(dst, `":`...)
	buf := bytes.NewBuffer(dst)
	if json.Compact(buf, v) != nil { // it came out of a valid object: cannot fail
		buf.Write(v)
	}
	return buf.Bytes()
}

// Result turns a worker response into the tool result: its body (the
// result's fields, or a refusal as {error:{…}}) as structuredContent and,
// as the spec suggests, as text, with isError on a refusal — never a Go
// error, which go-sdk would turn into isError without structured content.
func Result(resp worker.Response) (*mcp.CallToolResult, error) {
	structured, err := resp.Body()
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(structured)}},
		StructuredContent: structured,
		IsError:           !resp.OK(),
	}, nil
}
