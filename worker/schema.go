// JSON Schemas generated from the registered Go types, so that the wire
// shapes dli.schema serves, docs/ops.md describes and contracts/ will pin
// are read off the same types the decoder enforces: a field is required
// exactly when its json tag has no omitempty (decode.go's rule), a struct
// admits no other fields, json.RawMessage and any are any JSON value.

package worker

import (
	"encoding"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"time"
)

// SchemaDraft is the JSON Schema dialect of every generated schema.
const SchemaDraft = "https://json-schema.org/draft/2020-12/schema"

// Schemer is a type that states its own schema: a params type that decodes
// itself (a custom UnmarshalJSON, as author.ClaimParams does) cannot be
// read by reflection, so it says what it accepts. The method is called on
// the zero value.
type Schemer interface {
	JSONSchema() map[string]any
}

var (
	schemerType       = reflect.TypeFor[Schemer]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	timeType          = reflect.TypeFor[time.Time]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
)

// SchemaOf returns the JSON Schema of a Go type as encoding/json writes
// and decodeStrict reads it. Struct fields may carry a `desc:"…"` tag,
// which becomes the property's description.
func SchemaOf(t reflect.Type) map[string]any {
	return schemaOf(t, map[reflect.Type]bool{})
}

func schemaOf(t reflect.Type, seen map[reflect.Type]bool) map[string]any {
	if s, ok := ownSchema(t); ok {
		return s
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
		if s, ok := ownSchema(t); ok {
			return s
		}
	}
	switch {
	case t == rawMessageType:
		return map[string]any{}
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t.Kind() != reflect.String && (t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)) &&
		!t.Implements(jsonMarshalerType):
		return map[string]any{"type": "string"}
	case t.Implements(jsonMarshalerType) || t.Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(jsonUnmarshaler):
		// It writes or reads itself and says nothing of its shape.
		return map[string]any{"description": "a value with its own JSON form (" + t.String() + ")"}
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return map[string]any{"type": "string", "contentEncoding": "base64"}
		}
		return map[string]any{"type": "array", "items": schemaOf(t.Elem(), seen)}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": schemaOf(t.Elem(), seen)}
	case reflect.Struct:
		if seen[t] {
			// A recursive type: the inner occurrence is any object.
			return map[string]any{"type": "object"}
		}
		seen[t] = true
		defer delete(seen, t)
		props := map[string]any{}
		required := []string{}
		for _, f := range schemaFields(t) {
			p := schemaOf(f.typ, seen)
			if f.desc != "" {
				p = withDesc(p, f.desc)
			}
			props[f.name] = p
			if f.required {
				required = append(required, f.name)
			}
		}
		sort.Strings(required)
		return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	}
	return map[string]any{"description": "no JSON form (" + t.String() + ")"}
}

// ownSchema asks a Schemer type (or its pointer) for its schema.
func ownSchema(t reflect.Type) (map[string]any, bool) {
	switch {
	case t.Implements(schemerType):
		return reflect.Zero(t).Interface().(Schemer).JSONSchema(), true
	case t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(schemerType):
		return reflect.New(t).Interface().(Schemer).JSONSchema(), true
	}
	return nil, false
}

func withDesc(s map[string]any, desc string) map[string]any {
	c := make(map[string]any, len(s)+1)
	for k, v := range s {
		c[k] = v
	}
	c["description"] = desc
	return c
}

// schemaField is a jsonField with its description.
type schemaField struct {
	jsonField
	desc string
}

// schemaFields lists a struct's fields as jsonFields does, with the desc
// tags; a later field of the same name (an outer one over an embedded
// one) wins, as encoding/json has it.
func schemaFields(t reflect.Type) []schemaField {
	var out []schemaField
	index := map[string]int{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" || !sf.IsExported() && !sf.Anonymous {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct {
				walk(sf.Type)
				continue
			}
			if name == "" {
				name = sf.Name
			}
			f := schemaField{jsonField{name: name, typ: sf.Type, required: !strings.Contains(","+opts+",", ",omitempty,")}, sf.Tag.Get("desc")}
			if j, ok := index[name]; ok {
				out[j] = f
				continue
			}
			index[name] = len(out)
			out = append(out, f)
		}
	}
	walk(t)
	return out
}

// ParamsSchema is the schema of the op's params object.
func (o *Op) ParamsSchema() map[string]any { return SchemaOf(o.Params) }

// ResultSchema is the schema of the op's result fields (what sits beside
// "ok": true in the response).
func (o *Op) ResultSchema() map[string]any { return SchemaOf(o.Result) }

// RequestSchema is the schema of a whole request line for the op: the
// frame fields, the op's name, its params, and for a mutating op the two
// mutation-law fields.
func (o *Op) RequestSchema() map[string]any {
	params := o.ParamsSchema()
	if _, ok := params["description"]; !ok {
		params = withDesc(params, "the op's parameters; may be left out when none is required")
	}
	props := map[string]any{
		"dli":    map[string]any{"const": Version, "description": "the contract version the request is written to"},
		"id":     map[string]any{"type": "string", "minLength": 1, "maxLength": 256, "description": "the caller's request id, 1 to 256 characters, which the response echoes"},
		"op":     map[string]any{"const": o.Name, "description": "the op's name"},
		"params": params,
	}
	if o.Mutating {
		props["expected_digest"] = map[string]any{"type": "string",
			"description": "the workspace digest the change was decided against; a stale one is refused (stale-fence) and nothing changes; absent: no fence"}
		props["idempotency_key"] = map[string]any{"type": "string",
			"description": "makes a retry safe: the same key with the same params answers the first result and changes nothing, with other params it is refused (idempotency-conflict); absent: no key"}
	}
	return map[string]any{
		"$schema": SchemaDraft, "title": o.Name + " request",
		"type": "object", "properties": props, "required": []string{"dli", "id", "op"}, "additionalProperties": false,
	}
}

// ResponseSchema is the schema of a response line to the op: its result
// fields beside "ok": true, or the typed error beside "ok": false.
func (o *Op) ResponseSchema() map[string]any {
	res := o.ResultSchema()
	props := map[string]any{"id": responseID(), "ok": map[string]any{"const": true, "description": "true: the call succeeded and the op's result fields stand beside it"}}
	if p, ok := res["properties"].(map[string]any); ok {
		for k, v := range p {
			props[k] = v
		}
	}
	required := []string{"id", "ok"}
	if r, ok := res["required"].([]string); ok {
		required = append(required, r...)
	}
	sort.Strings(required)
	success := map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	failure := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"id": responseID(), "ok": map[string]any{"const": false, "description": "false: the call was refused and changed nothing; error says why"},
			"error": map[string]any{
				"type":        "object",
				"description": "the typed error: code, class and message, with the code's own data members beside them",
				"properties": map[string]any{
					"code":    map[string]any{"type": "string", "description": "the stable error code (dli.errors lists every code and its class)"},
					"class":   map[string]any{"enum": classNames(), "description": "what to do: schema (fix the request), refused (re-read, then decide), conflict (an idempotency key reused with other params), not-found, internal (nothing was stored)"},
					"message": map[string]any{"type": "string", "description": "what went wrong, for a reader"},
				},
				"required": []string{"class", "code", "message"},
			},
		},
		"required": []string{"error", "id", "ok"}, "additionalProperties": false,
	}
	return map[string]any{"$schema": SchemaDraft, "title": o.Name + " response", "oneOf": []any{success, failure}}
}

// responseID is the schema of a response's id.
func responseID() map[string]any {
	return map[string]any{"type": "string", "description": "the request's id, echoed"}
}

// Classes lists the error classes.
var Classes = []Class{ClassSchema, ClassRefused, ClassConflict, ClassNotFound, ClassInternal}

func classNames() []string {
	out := make([]string, len(Classes))
	for i, c := range Classes {
		out[i] = string(c)
	}
	return out
}

// ProtocolCodes lists the codes the protocol itself answers with, with
// their classes, for the generated error reference.
var ProtocolCodes = map[string]Class{
	CodeBadJSON: ClassSchema, CodeBadEnvelope: ClassSchema, CodeBadParams: ClassSchema,
	CodeUnknownField: ClassSchema, CodeMissingField: ClassSchema, CodeUnknownOp: ClassSchema,
	CodeKilledOp: ClassRefused, CodeKilledVersion: ClassRefused, CodeBadVersion: ClassRefused,
	CodeFrameTooLarge: ClassSchema, CodeNotMutating: ClassSchema, CodeInternal: ClassInternal,
	CodeDiskFull: ClassRefused, CodeReadOnly: ClassRefused,
}
