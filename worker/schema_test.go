package worker

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

type schemaInner struct {
	Name string `json:"name" desc:"the inner name"`
}

type schemaEmbedded struct {
	Shared string `json:"shared"`
	Over   int    `json:"over"`
}

type schemaRecursive struct {
	Next []schemaRecursive `json:"next,omitempty"`
}

type schemaText struct{ V [2]byte }

func (schemaText) MarshalText() ([]byte, error) { return []byte("t"), nil }

type schemaOwn struct{ Raw map[string]any }

func (p *schemaOwn) UnmarshalJSON([]byte) error { return nil }
func (schemaOwn) JSONSchema() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{"own": map[string]any{"type": "string"}}}
}

type schemaOpaque struct{ X int }

func (p *schemaOpaque) UnmarshalJSON([]byte) error { return nil }

type schemaAll struct {
	schemaEmbedded
	Over     string            `json:"over,omitempty"` // the outer field wins
	Str      string            `json:"str"`
	Opt      string            `json:"opt,omitempty"`
	Flag     bool              `json:"flag"`
	N        int64             `json:"n"`
	F        float64           `json:"f"`
	Ptr      *schemaInner      `json:"ptr,omitempty"`
	List     []schemaInner     `json:"list"`
	Map      map[string]int    `json:"map"`
	Raw      json.RawMessage   `json:"raw"`
	Any      any               `json:"any"`
	Bytes    []byte            `json:"bytes"`
	When     time.Time         `json:"when"`
	Text     schemaText        `json:"text"`
	Own      schemaOwn         `json:"own"`
	Opaque   schemaOpaque      `json:"opaque"`
	Rec      schemaRecursive   `json:"rec"`
	Hidden   string            `json:"-"`
	Untagged string            // named by its Go name
	Nested   map[string][]bool `json:"nested,omitempty"`
}

// TestSchemaOf: every Go shape the wire uses has the schema encoding/json
// and the strict decoder give it — required is "no omitempty", structs are
// closed, RawMessage and any are any value, a type that reads itself
// states its own schema or is any value.
func TestSchemaOf(t *testing.T) {
	s := SchemaOf(reflect.TypeFor[schemaAll]())
	if s["type"] != "object" || s["additionalProperties"] != false {
		t.Fatalf("struct schema: %v", s)
	}
	props := s["properties"].(map[string]any)
	for _, tc := range []struct {
		field string
		want  string // the JSON of the property's schema
	}{
		{"shared", `{"type":"string"}`},
		{"over", `{"type":"string"}`},
		{"str", `{"type":"string"}`},
		{"flag", `{"type":"boolean"}`},
		{"n", `{"type":"integer"}`},
		{"f", `{"type":"number"}`},
		{"ptr", `{"additionalProperties":false,"properties":{"name":{"description":"the inner name","type":"string"}},"required":["name"],"type":"object"}`},
		{"list", `{"items":{"additionalProperties":false,"properties":{"name":{"description":"the inner name","type":"string"}},"required":["name"],"type":"object"},"type":"array"}`},
		{"map", `{"additionalProperties":{"type":"integer"},"type":"object"}`},
		{"raw", `{}`},
		{"any", `{}`},
		{"bytes", `{"contentEncoding":"base64","type":"string"}`},
		{"when", `{"format":"date-time","type":"string"}`},
		{"text", `{"type":"string"}`},
		{"own", `{"properties":{"own":{"type":"string"}},"type":"object"}`},
		{"opaque", `{"description":"a value with its own JSON form (worker.schemaOpaque)"}`},
		{"rec", `{"additionalProperties":false,"properties":{"next":{"items":{"type":"object"},"type":"array"}},"required":[],"type":"object"}`},
		{"Untagged", `{"type":"string"}`},
		{"nested", `{"additionalProperties":{"items":{"type":"boolean"},"type":"array"},"type":"object"}`},
	} {
		got, _ := json.Marshal(props[tc.field])
		if string(got) != tc.want {
			t.Errorf("%s: got %s, want %s", tc.field, got, tc.want)
		}
	}
	if _, ok := props["Hidden"]; ok {
		t.Error(`a json:"-" field is in the schema`)
	}
	if len(props) != 20 {
		t.Errorf("%d properties, want 20: %v", len(props), props)
	}
	req, _ := json.Marshal(s["required"])
	if want := `["Untagged","any","bytes","f","flag","list","map","n","opaque","own","raw","rec","shared","str","text","when"]`; string(req) != want {
		t.Errorf("required %s, want %s", req, want)
	}
}

// TestSchemaAgreesWithDecoder: a params object missing a field the schema
// calls required is refused by the decoder, and one with only the
// required fields is accepted — the two read the same tags.
func TestSchemaAgreesWithDecoder(t *testing.T) {
	s := SchemaOf(reflect.TypeFor[echoParams]())
	req := s["required"].([]string)
	if strings.Join(req, ",") != "text" {
		t.Fatalf("required %v, want [text]", req)
	}
	var p echoParams
	if e := decodeStrict([]byte(`{"count":1}`), &p, "params"); e == nil || e.Code != CodeMissingField {
		t.Errorf("missing required field decoded: %v", e)
	}
	if e := decodeStrict([]byte(`{"text":"x"}`), &p, "params"); e != nil {
		t.Errorf("only the required fields: %v", e)
	}
}

// TestRequestResponseSchema: the request schema pins the frame, the op
// name and, only for a mutating op, the mutation-law fields; the response
// schema is the result beside ok:true, or the typed error.
func TestRequestResponseSchema(t *testing.T) {
	r := testRegistry()
	for _, tc := range []struct {
		op       string
		mutating bool
	}{{"test.echo", false}, {"test.bump", true}} {
		op, _ := r.Lookup(tc.op)
		rq := op.RequestSchema()
		props := rq["properties"].(map[string]any)
		if _, ok := props["expected_digest"]; ok != tc.mutating {
			t.Errorf("%s: expected_digest in request schema: %v", tc.op, ok)
		}
		if c := props["op"].(map[string]any)["const"]; c != tc.op {
			t.Errorf("%s: op const %v", tc.op, c)
		}
		rs := op.ResponseSchema()
		success := rs["oneOf"].([]any)[0].(map[string]any)
		got, _ := json.Marshal(success["required"])
		want := map[string]string{"test.echo": `["count","id","ok","text"]`, "test.bump": `["id","key","ok","workspace_digest"]`}[tc.op]
		if string(got) != want {
			t.Errorf("%s: response required %s, want %s", tc.op, got, want)
		}
	}
}

// TestProtocolCodes: every code the protocol answers with has a class in
// the reference.
func TestProtocolCodes(t *testing.T) {
	for _, c := range []string{CodeBadJSON, CodeBadEnvelope, CodeBadParams, CodeUnknownField, CodeMissingField, CodeUnknownOp,
		CodeKilledOp, CodeKilledVersion, CodeBadVersion, CodeFrameTooLarge, CodeNotMutating, CodeInternal, CodeDiskFull, CodeReadOnly} {
		if _, ok := ProtocolCodes[c]; !ok {
			t.Errorf("%s has no class", c)
		}
	}
	if len(ProtocolCodes) != 14 {
		t.Errorf("%d protocol codes, want 14", len(ProtocolCodes))
	}
}

// TestOpsDoc: one section per op in name order, with its profiles,
// mutating flag, errors and field tables (a nested field's row after its
// parent's, named by its path); the killed forms and the code reference
// after.
func TestOpsDoc(t *testing.T) {
	r := testRegistry()
	Register(r, Spec{Name: "test.aaa", Summary: "first by name", Errors: []string{"told-to-fail", "mystery"}},
		func(_ context.Context, _ *Call, p *echoParams) (echoResult, error) { return echoResult{}, nil })
	doc := string(OpsDoc(r, map[string]Class{"told-to-fail": ClassRefused, CodeBadJSON: ClassSchema}))
	a, b, e := strings.Index(doc, "\n## test.aaa\n"), strings.Index(doc, "\n## test.bump\n"), strings.Index(doc, "\n## test.echo\n")
	if a < 0 || b < a || e < b {
		t.Fatalf("sections missing or out of order (%d %d %d):\n%s", a, b, e, doc)
	}
	for _, want := range []string{
		"Contract 2.0.0 serves 3 ops (1 in the fiction profile).",
		"- errors: `mystery`, `told-to-fail` (refused)\n",
		"| `text` | string | yes |  |\n",
		"| `inner` | object | no |  |\n",
		"| `list` | array of object | no |  |\n",
		"| `inner.name` | string | yes |  |\n| `inner.note` | string | no |  |\n| `list` |",
		"| `list[].name` | string | yes |  |\n| `list[].note` | string | no |  |\n",
		"- mutating: yes (takes `expected_digest` and `idempotency_key`)\n",
		"- profiles: extended, fiction\n",
		"| `test.old` | `test.echo` | renamed in 2.0.0 |\n",
		"| `bad-json` | schema |\n",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("no %q in\n%s", want, doc)
		}
	}
	if strings.Count(doc, "- mutating: no\n") != 2 {
		t.Errorf("want two non-mutating ops:\n%s", doc)
	}
}

// TestTypeName: the type column of docs/ops.md names each kind of value
// shortly; a oneOf whose branches are all one kind (a rule term: {var} or
// {const}) is that kind, and a mixed one is any.
func TestTypeName(t *testing.T) {
	obj := map[string]any{"type": "object", "properties": map[string]any{}}
	for _, tc := range []struct {
		s    map[string]any
		want string
	}{
		{map[string]any{"type": "string"}, "string"},
		{map[string]any{"const": "cited"}, "cited"},
		{map[string]any{"enum": []string{"a", "b"}}, "a | b"},
		{map[string]any{"type": "array", "items": map[string]any{"type": "integer"}}, "array of integer"},
		{map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "boolean"}}, "map of boolean"},
		{map[string]any{"type": "array", "items": map[string]any{"oneOf": []any{obj, obj}}}, "array of object"},
		{map[string]any{"oneOf": []any{obj, map[string]any{"type": "string"}}}, "any"},
		{map[string]any{}, "any"},
	} {
		if got := typeName(tc.s); got != tc.want {
			t.Errorf("typeName(%v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}
