package mcpserve

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// codecLines are messages and near-messages a client might send.
var codecLines = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"author_query","arguments":{"workspace":"ws-1"}}}`,
	`{"jsonrpc":"2.0","id":"a-1","method":"initialize","params":{"protocolVersion":"2025-11-25"}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":null,"method":"notifications/cancelled","params":{"requestId":3}}`,
	`{"jsonrpc":"2.0","id":7,"result":{"roots":[]}}`,
	`{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no","data":{"k":1}}}`,
	`{"jsonrpc":"2.0","id":8,"error":null,"result":{}}`,
	`{"jsonrpc":"2.0","id":2.5,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":-4,"method":"ping","params":null}`,
	`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
	`{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
	`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
	`{"id":1,"method":"ping"}`,
	`{"jsonrpc":2,"id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":5}`,
	`{"jsonrpc":"2.0","id":1,"method":null}`,
	`{"jsonrpc":"2.0","id":1,"method":""}`,
	`{"jsonrpc":"2.0","result":1}`,
	`{"jsonrpc":"2.0","id":1}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}`,
	`{"JSONRPC":"2.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","ID":1,"Method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
	`{"jsonrpc":"2.0","id":1,"me\u0074hod":"ping"}`,
	`{ "jsonrpc" : "2.0" , "id" : 1 , "method" : "ping" , "params" : { "a" : [ 1 , 2 ] } }`,
}

// TestDecodeMessageAsGoSDK: the stdio transport's decoder gives what
// go-sdk's DecodeMessage gives for every line, messages and refusals alike
// (DL-0440).
func TestDecodeMessageAsGoSDK(t *testing.T) {
	for _, line := range codecLines {
		if msg := sameDecode(t, []byte(line)); msg == "" {
			t.Errorf("%s: the decoders disagree", line)
		}
	}
}

// FuzzDecodeMessage holds the same agreement on any JSON object.
func FuzzDecodeMessage(f *testing.F) {
	for _, line := range codecLines {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if !json.Valid(line) || !bytes.HasPrefix(bytes.TrimLeft(line, " \t\r\n"), []byte("{")) {
			return // decodeLine refuses these before either decoder runs
		}
		if sameDecode(t, line) == "" {
			t.Errorf("%q: the decoders disagree", line)
		}
	})
}

// sameDecode decodes line both ways and describes the agreed outcome, or
// returns "" (after logging both) when they differ.
func sameDecode(t *testing.T, line []byte) string {
	t.Helper()
	want, wantErr := jsonrpc.DecodeMessage(line)
	got, gotErr := decodeMessage(line)
	describe := func(m jsonrpc.Message, err error) string {
		if err != nil {
			return "refused"
		}
		switch m := m.(type) {
		case *jsonrpc.Request:
			b, _ := json.Marshal(map[string]any{"id": m.ID.Raw(), "valid": m.ID.IsValid(), "method": m.Method, "params": string(m.Params)})
			return "request " + string(b)
		case *jsonrpc.Response:
			var werr any
			if m.Error != nil {
				werr = m.Error
			}
			b, _ := json.Marshal(map[string]any{"id": m.ID.Raw(), "result": string(m.Result), "error": werr})
			return "response " + string(b)
		}
		return "unknown " + reflect.TypeOf(m).String()
	}
	w, g := describe(want, wantErr), describe(got, gotErr)
	if w != g {
		t.Logf("go-sdk: %s (%v)\nours:   %s (%v)", w, wantErr, g, gotErr)
		return ""
	}
	return w
}

// TestEncodeMessageAsGoSDK: the stdio transport writes the bytes go-sdk's
// EncodeMessage writes, for responses it shortcuts and those it does not.
func TestEncodeMessageAsGoSDK(t *testing.T) {
	str := jsonrpc.MakeID
	id := func(v any) jsonrpc.ID {
		i, err := str(v)
		if err != nil {
			t.Fatal(err)
		}
		return i
	}
	for _, m := range []jsonrpc.Message{
		&jsonrpc.Response{ID: id(float64(12)), Result: json.RawMessage(`{"content":[{"type":"text","text":"<b>&</b>"}],"structuredContent":{"total":1}}`)},
		&jsonrpc.Response{ID: id(float64(-3)), Result: json.RawMessage(`{}`)},
		&jsonrpc.Response{ID: id("s-1"), Result: json.RawMessage(`{"a":1}`)},
		&jsonrpc.Response{ID: id(float64(4)), Error: &jsonrpc.Error{Code: -32602, Message: "bad"}},
		&jsonrpc.Request{ID: id(float64(5)), Method: "roots/list"},
		&jsonrpc.Request{Method: "notifications/progress", Params: json.RawMessage(`{"progress":1}`)},
	} {
		want, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeMessage(m)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("encodeMessage = %s, %v; go-sdk writes %s", got, err, want)
		}
	}
}
