// The request envelope and the response, as they travel on the wire.

package worker

import (
	"bytes"
	"encoding/json"
	"sort"
)

// Version is the one contract version the worker serves.
const Version = "2.0.0"

// Request is one call: the frame fields, the op and its params, and the
// two mutation-law fields of mutating ops. Unknown fields are errors.
type Request struct {
	DLI            string          `json:"dli"`
	ID             string          `json:"id"`
	Op             string          `json:"op"`
	Params         json.RawMessage `json:"params,omitempty"`
	ExpectedDigest string          `json:"expected_digest,omitempty"`
	IdempotencyKey string          `json:"idempotency_key,omitempty"`
}

// The reserved members of a tool call's arguments: a transport that has no
// envelope of its own (MCP) passes the mutation-law fields beside the
// params, under the envelope's names.
const (
	ArgExpectedDigest = "expected_digest"
	ArgIdempotencyKey = "idempotency_key"
)

// ToolCall is the call of op that a tool call's arguments make, for
// Registry.Call: the arguments are one JSON object holding the params
// and, beside them, the reserved members, which are lifted out into the
// call's fence and key. The arguments are checked as I-JSON here, once
// (duplicate keys, lone surrogates, numbers beyond a double: bad-json, as
// on stdio), and the params are not checked again; a reserved member is
// judged as the strict envelope decoder judges it (a string, or null for
// none; anything else is the schema error stdio gives), and lifting one
// for a read makes the call answer not-mutating, as on stdio. Absent or
// null arguments are empty params. The top-level members are scanned in
// place: the params are the arguments themselves, or, when a reserved
// member was lifted, one copy of the others.
func ToolCall(op *Op, id string, args json.RawMessage) (*Call, *Error) {
	c := &Call{ID: id, Op: op.Name, checked: true}
	a := bytes.TrimSpace(args)
	if len(a) == 0 || string(a) == "null" {
		return c, nil
	}
	if a[0] != '{' {
		return nil, notAnObject(a)
	}
	if e := checkJSON(a, "request"); e != nil {
		if e := notAnObject(a); e != nil {
			return nil, e // not JSON at all: as the arguments were always refused
		}
		return nil, e
	}
	var reserved [2][]byte // the values of expected_digest and idempotency_key
	var order [2]int       // which came first, for the error stdio would give first
	n := 0
	rawMembers(a, func(k, v []byte) {
		for i, name := range [2]string{ArgExpectedDigest, ArgIdempotencyKey} {
			if keyIs(k, name) {
				reserved[i] = v
				order[n] = i
				n++
			}
		}
	})
	if n == 0 {
		c.Params = a
		return c, nil
	}
	for _, i := range order[:n] {
		v := reserved[i]
		switch {
		case string(v) == "null": // as absent: the envelope decoder leaves the field empty
		case v[0] == '"':
			if i == 0 {
				c.ExpectedDigest = unquote(v)
			} else {
				c.IdempotencyKey = unquote(v)
			}
		default:
			return nil, reservedError(reserved, order[:n])
		}
	}
	p := make([]byte, 0, len(a))
	p = append(p, '{')
	rawMembers(a, func(k, v []byte) {
		if keyIs(k, ArgExpectedDigest) || keyIs(k, ArgIdempotencyKey) {
			return
		}
		if len(p) > 1 {
			p = append(p, ',')
		}
		p = append(append(append(p, k...), ':'), v...)
	})
	c.Params = append(p, '}')
	return c, nil
}

// notAnObject is the refusal of arguments that are not one JSON object
// (nil when they are one), worded as encoding/json words it.
func notAnObject(a []byte) *Error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(a, &m); err != nil {
		return Errorf(ClassSchema, CodeBadParams, "arguments must be a JSON object: %v", err)
	}
	return nil
}

// reservedArgs are the envelope's two mutation-law fields.
type reservedArgs struct {
	ExpectedDigest string `json:"expected_digest,omitempty"`
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// reservedError is the error the strict envelope decoder gives for the
// reserved members (one of them neither a string nor null): they are
// decoded as the request's fields would be, in the order they came.
func reservedError(values [2][]byte, order []int) *Error {
	obj := []byte{'{'}
	for j, i := range order {
		if j > 0 {
			obj = append(obj, ',')
		}
		obj = append(append(append(obj, '"'), [2]string{ArgExpectedDigest, ArgIdempotencyKey}[i]...), '"', ':')
		obj = append(obj, values[i]...)
	}
	obj = append(obj, '}')
	var r reservedArgs
	if e := decodeChecked(obj, &r, "request"); e != nil {
		return e
	}
	return Errorf(ClassInternal, CodeInternal, "reserved arguments %s: no error where one was expected", obj)
}

// Response is the answer to one request: the op's result with ok true, or
// the typed error with ok false. ID echoes the request's id ("" when the
// request was too malformed to have one).
type Response struct {
	ID     string
	Result json.RawMessage // a JSON object; nil on error
	Err    *Error
}

// OK reports whether the call succeeded.
func (r Response) OK() bool { return r.Err == nil }

// MarshalJSON writes {"id", "ok": true, …result fields} or {"id", "ok":
// false, "error": {code, class, message, …data}}: the result's own fields
// sit beside ok, as the spec's examples show them.
func (r Response) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"id":`)
	id, err := json.Marshal(r.ID)
	if err != nil {
		return nil, err
	}
	b.Write(id)
	if r.Err != nil {
		b.WriteString(`,"ok":false,"error":`)
		e, err := r.Err.wire()
		if err != nil {
			return nil, err
		}
		b.Write(e)
		b.WriteByte('}')
		return b.Bytes(), nil
	}
	b.WriteString(`,"ok":true`)
	body := bytes.TrimSpace(r.Result)
	if len(body) > 2 { // {…} with at least one field
		b.WriteByte(',')
		b.Write(body[1:])
		return b.Bytes(), nil
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Body is the response without its frame (id and ok): the result object
// ({} for an empty one), or {"error": {code, class, message, …data}} on a
// refusal — what a transport with framing of its own carries (MCP's
// structured content).
func (r Response) Body() (json.RawMessage, error) {
	if r.Err == nil {
		if body := bytes.TrimSpace(r.Result); len(body) > 0 {
			return body, nil
		}
		return json.RawMessage("{}"), nil
	}
	e, err := r.Err.wire()
	if err != nil {
		return nil, err
	}
	return append(append([]byte(`{"error":`), e...), '}'), nil
}

// wire renders the error object: code, class and message first, then the
// data fields in key order (a data key never overrides the three).
func (e *Error) wire() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range [][2]string{{"code", e.Code}, {"class", string(e.Class)}, {"message", e.Message}} {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv[0])
		v, err := json.Marshal(kv[1])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	keys := make([]string, 0, len(e.Data))
	for k := range e.Data {
		if k != "code" && k != "class" && k != "message" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(e.Data[k])
		if err != nil {
			return nil, err
		}
		b.WriteByte(',')
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
