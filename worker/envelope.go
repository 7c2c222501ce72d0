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
