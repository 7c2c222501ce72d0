// Strict decoding: a request or a params object is valid JSON with no
// duplicate keys, has no field its Go type does not declare, and has every
// field its type requires (a field whose json tag has no omitempty), at
// every depth. The params types are also what the schemas are generated
// from, so "required" means the same thing in both places.

package worker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/jcs"
)

// decodeStrict decodes data into v (a pointer to a struct), or returns a
// schema error naming what is wrong and where.
func decodeStrict(data []byte, v any, what string) *Error {
	if e := checkJSON(data, what); e != nil {
		return e
	}
	return decodeChecked(data, v, what)
}

// checkJSON reports data that is not one valid I-JSON value (no duplicate
// keys, no lone surrogates, no number beyond a double) as a schema error.
// The canonical form jcs writes is not wanted, only its verdict: it is
// written into a pooled buffer and dropped.
func checkJSON(data []byte, what string) *Error {
	bp := canonPool.Get().(*[]byte)
	out, err := jcs.Append((*bp)[:0], data)
	if cap(out) <= 64<<10 { // a huge request's buffer is not kept
		*bp = out[:0]
		canonPool.Put(bp)
	}
	if err != nil {
		return Errorf(ClassSchema, CodeBadJSON, "%s is not valid JSON: %v", what, err)
	}
	return nil
}

var canonPool = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// decodeChecked is decodeStrict of data that checkJSON has passed.
func decodeChecked(data []byte, v any, what string) *Error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) || len(bytes.TrimSpace(data)) == 0 || bytes.TrimSpace(data)[0] != '{' {
		return Errorf(ClassSchema, CodeBadParams, "%s must be a JSON object", what)
	}
	if e := checkRequired(data, reflect.TypeOf(v).Elem(), what); e != nil {
		return e
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err, what)
	}
	return nil
}

// decodeError turns an encoding/json error into a schema error.
func decodeError(err error, what string) *Error {
	var we *Error
	if errors.As(err, &we) {
		return we // a params type that reads itself said what is wrong
	}
	if _, ok := fault.As(err); ok {
		return asError(err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return Errorf(ClassSchema, CodeBadParams, "%s: field %s must be %s, not %s", what, te.Field, jsonKind(te.Type), te.Value).With("field", te.Field)
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		f = strings.Trim(f, `"`)
		return Errorf(ClassSchema, CodeUnknownField, "%s has no field %q", what, f).With("field", f)
	}
	return Errorf(ClassSchema, CodeBadParams, "%s: %s", what, strings.TrimPrefix(msg, "json: "))
}

// jsonKind names a Go type the way a JSON reader thinks of it.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

// checkRequired walks data and the type together and reports the first
// required field that is absent or null.
func checkRequired(data []byte, t reflect.Type, path string) *Error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		if t.Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(jsonUnmarshaler) {
			return nil // a type that reads itself checks itself
		}
		fields := cachedFields(t)
		var small [16][]byte
		present := small[:0]
		if len(fields) > len(small) {
			present = make([][]byte, 0, len(fields))
		}
		present = present[:len(fields)]
		isObject := members(data, func(key string, value []byte) {
			for i := range fields {
				if fields[i].name == key {
					present[i] = value
				}
			}
		})
		if !isObject {
			return nil // not an object: the decoder reports the type error
		}
		for i, f := range fields {
			raw := present[i]
			if raw == nil || string(raw) == "null" {
				if f.required {
					return Errorf(ClassSchema, CodeMissingField, "%s needs field %q", path, f.name).With("field", joinPath(path, f.name))
				}
				continue
			}
			if e := checkRequired(raw, f.typ, joinPath(path, f.name)); e != nil {
				return e
			}
		}
	case reflect.Slice, reflect.Array:
		if !nests(t.Elem()) {
			return nil // items of a scalar type have no fields to require
		}
		var e *Error
		items(data, func(i int, item []byte) {
			if e == nil {
				e = checkRequired(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
			}
		})
		return e
	}
	return nil
}

// nests reports whether a value of type t can hold required fields.
func nests(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Array:
		return true
	}
	return false
}

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

func joinPath(path, name string) string {
	if path == "" || path == "params" || path == "request" {
		return name
	}
	return path + "." + name
}

// jsonField is one field of a struct as encoding/json sees it.
type jsonField struct {
	name     string
	typ      reflect.Type
	required bool
}

// jsonFields lists the fields of a struct type by their JSON names:
// exported, not tagged "-", embedded structs flattened.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" || !sf.IsExported() && !sf.Anonymous {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct {
			out = append(out, jsonFields(sf.Type)...)
			continue
		}
		if name == "" {
			name = sf.Name
		}
		out = append(out, jsonField{name: name, typ: sf.Type, required: !strings.Contains(","+opts+",", ",omitempty,")})
	}
	return out
}
