package worker

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// stdioLine is the request line a client of the line protocol sends for a
// tool call's arguments: the members but the reserved ones, in their
// order, as params, and the reserved ones beside them in the envelope.
// args is one valid JSON object.
func stdioLine(op string, args []byte) []byte {
	line := []byte(`{"dli":"2.0.0","id":"rq","op":`)
	line = appendJSON(line, op)
	params := []byte{'{'}
	var env []byte
	rawMembers(args, func(k, v []byte) {
		if keyIs(k, ArgExpectedDigest) || keyIs(k, ArgIdempotencyKey) {
			env = append(append(append(append(env, ','), k...), ':'), v...)
			return
		}
		if len(params) > 1 {
			params = append(params, ',')
		}
		params = append(append(append(params, k...), ':'), v...)
	})
	line = append(append(line, `,"params":`...), append(params, '}')...)
	return append(append(line, env...), '}')
}

func appendJSON(dst []byte, v any) []byte {
	b, _ := json.Marshal(v)
	return append(dst, b...)
}

// viaToolCall answers a tool call of op as the MCP adapter does.
func viaToolCall(r *Registry, op string, args []byte) Response {
	o, _ := r.Lookup(op)
	c, e := ToolCall(o, "rq", args)
	if e != nil {
		return Response{ID: "rq", Err: e}
	}
	return r.Call(context.Background(), o, c)
}

// sameAnswer reports whether two responses are one answer: the same
// result, or the same typed error. A bad-json message names a byte offset,
// which differs between a line and the arguments inside it, and a
// non-object is "params" on a line and "arguments" in a call, so for
// those two the code and class are the answer.
func sameAnswer(a, b Response) bool {
	if (a.Err == nil) != (b.Err == nil) {
		return false
	}
	if a.Err == nil {
		return string(a.Result) == string(b.Result)
	}
	if a.Err.Code == CodeBadJSON || a.Err.Code == CodeBadParams && b.Err.Code == CodeBadParams &&
		(strings.HasPrefix(a.Err.Message, "arguments") || strings.HasPrefix(b.Err.Message, "arguments")) {
		return a.Err.Code == b.Err.Code && a.Err.Class == b.Err.Class
	}
	return reflect.DeepEqual(a.Err, b.Err)
}

// TestToolCallAnswersAsDispatch: a tool call's arguments, lifted and
// decoded once by ToolCall and answered by Call, answer what the request
// line a stdio client would send for them answers, error for error.
func TestToolCallAnswersAsDispatch(t *testing.T) {
	r := testRegistry()
	for _, c := range []struct{ op, args, want string }{
		{"test.echo", `{"text":"hi","count":2}`, `{"text":"hi","count":2}`},
		{"test.echo", `{"text":"hi","list":[{"name":"a"},{"note":"b"}]}`, "missing-field"},
		{"test.echo", `{"text":"hi","bogus":1}`, "unknown-field"},
		{"test.echo", `{"text":3}`, "bad-params"},
		{"test.echo", `{"text":"hi","count":-1}`, "bad-params"},
		{"test.echo", `{"text":"fail"}`, "told-to-fail"},
		{"test.echo", `{"text":"hi","expected_digest":"wd"}`, "not-mutating"},
		{"test.echo", `{"text":"hi","idempotency_key":""}`, `{"text":"hi","count":0}`},
		{"test.echo", `{"text":"hi","expected_digest":null}`, `{"text":"hi","count":0}`},
		{"test.echo", `{"text":"hi","expected_digest":7}`, "bad-params"},
		{"test.echo", `{"text":"hi","bogus":1,"expected_digest":7}`, "bad-params"},
		{"test.bump", `{"workspace":"ws","expected_digest":"wd-1","idempotency_key":"k"}`, `{"workspace_digest":"wd-1+1","key":"k"}`},
		{"test.bump", `{"idempotency_key":"k","workspace":"ws"}`, `{"workspace_digest":"+1","key":"k"}`},
		{"test.bump", `{"workspace":"ws","expected\u005fdigest":"w\u0064"}`, `{"workspace_digest":"wd+1","key":""}`},
		{"test.bump", `{"expected_digest":"wd"}`, "missing-field"},
		{"test.bump", `{"workspace":"ws","idempotency_key":true}`, "bad-params"},
		{"test.bump", `{"workspace":"ws","idempotency_key":{},"expected_digest":[]}`, "bad-params"},
		{"test.bump", `{"workspace":"ws","expected_digest":[],"idempotency_key":{}}`, "bad-params"},
		{"test.bump", `{"workspace":"ws","Expected_Digest":"wd"}`, "unknown-field"},
		{"test.bump", `{"workspace":"ws","workspace":"ws2"}`, "bad-json"},
		{"test.bump", `{"workspace":"ws","idempotency_key":"a","idempotency\u005fkey":"b"}`, "bad-json"},
		{"test.echo", `{"text":"\ud800"}`, "bad-json"},
		{"test.echo", `{"text":"x","inner":{"name":"a","name":"b"}}`, "bad-json"},
		{"test.echo", `{"text":"x","count":1e400}`, "bad-json"},
		{"test.echo", `{"\udc00":"x"}`, "bad-json"},
		{"test.echo", ` {"text":"spaced"} `, `{"text":"spaced","count":0}`},
	} {
		got := viaToolCall(r, c.op, []byte(c.args))
		want := r.Dispatch(context.Background(), stdioLine(c.op, []byte(c.args)))
		if !sameAnswer(got, want) {
			t.Errorf("%s %s:\n call %+v %s\n line %+v %s", c.op, c.args, got.Err, got.Result, want.Err, want.Result)
		}
		if got.Err != nil && got.Err.Code != c.want || got.Err == nil && string(got.Result) != c.want {
			t.Errorf("%s %s: %+v %s, want %s", c.op, c.args, got.Err, got.Result, c.want)
		}
	}
}

// TestToolCallArguments: absent and null arguments are empty params; a
// non-object is refused as before any dispatch; the params are the
// arguments themselves when nothing was lifted, and one copy without the
// reserved members otherwise.
func TestToolCallArguments(t *testing.T) {
	r := testRegistry()
	echo, _ := r.Lookup("test.echo")
	bump, _ := r.Lookup("test.bump")
	for _, args := range []string{``, `null`, ` null `} {
		c, e := ToolCall(echo, "i", json.RawMessage(args))
		if e != nil || c.Params != nil || c.Op != "test.echo" || !c.checked {
			t.Errorf("%q: %+v %v", args, c, e)
		}
	}
	for _, args := range []string{`[1]`, `"x"`, `3`, `true`, `[`} {
		if _, e := ToolCall(echo, "i", json.RawMessage(args)); e == nil || e.Code != CodeBadParams ||
			!strings.HasPrefix(e.Message, "arguments must be a JSON object: ") {
			t.Errorf("%s: %v", args, e)
		}
	}
	if _, e := ToolCall(echo, "i", json.RawMessage(`{"text":`)); e == nil || e.Code != CodeBadParams {
		t.Errorf("a cut object: %v", e)
	}
	args := json.RawMessage(`{"text":"hi"}`)
	if c, _ := ToolCall(echo, "i", args); &c.Params[0] != &args[0] {
		t.Error("the params are a copy of arguments that had nothing to lift")
	}
	c, e := ToolCall(bump, "i", json.RawMessage(`{"idempotency_key":"k", "workspace" : "ws" ,"expected_digest":"d","x":[1, 2]}`))
	if e != nil || string(c.Params) != `{"workspace":"ws","x":[1, 2]}` || c.ExpectedDigest != "d" || c.IdempotencyKey != "k" {
		t.Errorf("%+v %v", c, e)
	}
	c, e = ToolCall(bump, "i", json.RawMessage(`{"idempotency_key":"k"}`))
	if e != nil || string(c.Params) != `{}` {
		t.Errorf("%+v %v", c, e)
	}
}

// FuzzToolCall: no arguments make ToolCall panic, and valid JSON object
// arguments answer as the request line a stdio client would send.
func FuzzToolCall(f *testing.F) {
	for _, seed := range []string{
		`{"text":"hi","count":2}`, `{"text":"hi","expected_digest":7}`, `{"workspace":"w","idempotency_key":"k"}`,
		`{"text":"x","list":[{"name":"a"},{"note":"b"}],"inner":{"name":"n"}}`, `{"text":"\ud800"}`,
		`{"expected\u005fdigest":null,"text":"t"}`, `[1]`, `null`, `{}`, `"`, ``,
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	r := testRegistry()
	f.Fuzz(func(t *testing.T, args string, mutating bool) {
		op := "test.echo"
		if mutating {
			op = "test.bump"
		}
		got := viaToolCall(r, op, []byte(args))
		if !json.Valid([]byte(args)) || !rawMembers([]byte(args), func(_, _ []byte) {}) {
			return
		}
		want := r.Dispatch(context.Background(), stdioLine(op, []byte(args)))
		if !sameAnswer(got, want) {
			t.Fatalf("%s %s:\n call %+v %s\n line %+v %s", op, args, got.Err, got.Result, want.Err, want.Result)
		}
	})
}
