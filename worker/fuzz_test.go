package worker

import (
	"context"
	"encoding/json"
	"testing"
)

// FuzzDispatch: no request line makes the registry panic, and every
// answer is one JSON object with "ok" and, when not ok, a typed error of a
// known class.
func FuzzDispatch(f *testing.F) {
	for _, seed := range []string{
		`{"dli":"2.0.0","id":"rq-1","op":"test.echo","params":{"text":"hi","count":2}}`,
		`{"dli":"2.0.0","id":"rq-1","op":"test.echo","params":{"text":"x","list":[{"name":"a"},{"note":"b"}],"inner":{"name":"n"}}}`,
		`{"dli":"2.0.0","id":"rq-2","op":"test.bump","expected_digest":"wd","idempotency_key":"k","params":{"workspace":"w"}}`,
		`{"dli":"1.0.0","id":"x","op":"test.old","params":{}}`,
		`{"dli":"2.0.0","id":"x","op":"test.echo","params":{"text":"\ud800"}}`,
		`{"dli":"2.0.0","id":"x","op":"test.echo","params":{"list":[[[[[]]]]]}}`,
		`[1,2,3]`, `null`, `{}`, `{"params":null}`, `"`, ``,
	} {
		f.Add([]byte(seed))
	}
	r := testRegistry()
	f.Fuzz(func(t *testing.T, line []byte) {
		resp := r.Dispatch(context.Background(), line)
		data, err := json.Marshal(resp)
		if err != nil {
			t.Fatalf("response does not marshal: %v", err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("response is not one JSON object: %s", data)
		}
		if ok, isBool := m["ok"].(bool); !isBool || (!ok && resp.Err == nil) {
			t.Fatalf("bad ok field: %s", data)
		}
		if resp.Err != nil {
			switch resp.Err.Class {
			case ClassSchema, ClassRefused, ClassConflict, ClassNotFound, ClassInternal:
			default:
				t.Fatalf("unknown class %q", resp.Err.Class)
			}
		}
	})
}
