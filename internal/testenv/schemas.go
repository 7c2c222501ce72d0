package testenv

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schemas are the committed response schemas of one contract
// (contracts/dli-worker/schemas or contracts/dke/schemas), resolved by
// github.com/google/jsonschema-go, keyed by op or tool name (DL-0429).
type Schemas struct {
	dir  string
	resp map[string]*jsonschema.Resolved
	// wire: a response schema describes a whole stdio response line,
	// id and ok included (DLI); otherwise it describes a successful
	// result's structuredContent only (DKE).
	wire bool
	// errorLine is the failure branch every DLI response schema shares;
	// refusal the other branch of a DKE tool's outputSchema, the typed
	// error, which may carry more fields (a compile error's
	// diagnostics). Both take the error classes from the committed
	// schema of dli.hello, so a class added there is known here.
	errorLine, refusal *jsonschema.Resolved
}

// typedErrors builds the two error shapes from the class schema the
// committed dli.hello response schema gives its error.
func typedErrors(root string) (errorLine, refusal *jsonschema.Resolved, err error) {
	b, err := os.ReadFile(filepath.Join(root, "contracts", "dli-worker", "schemas", "dli.hello.response.json"))
	if err != nil {
		return nil, nil, err
	}
	var hello struct {
		OneOf []struct {
			Properties struct {
				Error struct {
					Properties struct {
						Class json.RawMessage `json:"class"`
					} `json:"properties"`
				} `json:"error"`
			} `json:"properties"`
		} `json:"oneOf"`
	}
	if err := json.Unmarshal(b, &hello); err != nil || len(hello.OneOf) != 2 || len(hello.OneOf[1].Properties.Error.Properties.Class) == 0 {
		return nil, nil, fmt.Errorf("dli.hello.response.json gives no error class schema (%v)", err)
	}
	class := string(hello.OneOf[1].Properties.Error.Properties.Class)
	typed := `{"type":"object","required":["class","code","message"],
  "properties":{"class":` + class + `,"code":{"type":"string"},"message":{"type":"string"}}}`
	if errorLine, err = resolve(`{"type":"object","required":["error","id","ok"],"additionalProperties":false,
 "properties":{"id":{"type":"string"},"ok":{"const":false},"error":` + typed + `}}`); err != nil {
		return nil, nil, err
	}
	refusal, err = resolve(`{"type":"object","required":["error"],"additionalProperties":false,"properties":{"error":` + typed + `}}`)
	return errorLine, refusal, err
}

func resolve(src string) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(src), &s); err != nil {
		return nil, err
	}
	return s.Resolve(nil)
}

// DLISchemas loads contracts/dli-worker/schemas from the module root at
// root (a relative path such as "../..").
func DLISchemas(t testing.TB, root string) *Schemas {
	return loadSchemas(t, root, filepath.Join(root, "contracts", "dli-worker", "schemas"), true)
}

// DKESchemas loads contracts/dke/schemas from the module root at root.
func DKESchemas(t testing.TB, root string) *Schemas {
	return loadSchemas(t, root, filepath.Join(root, "contracts", "dke", "schemas"), false)
}

// loaded caches each directory's Schemas: the replays validate thousands
// of responses in parallel subtests.
var loaded sync.Map // absolute dir -> *Schemas

func loadSchemas(t testing.TB, root, dir string, wire bool) *Schemas {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := loaded.Load(abs); ok {
		return s.(*Schemas)
	}
	s, err := readSchemas(abs, wire)
	if err == nil {
		s.errorLine, s.refusal, err = typedErrors(root)
	}
	if err != nil {
		t.Fatal(err)
	}
	loaded.Store(abs, s)
	return s
}

func readSchemas(dir string, wire bool) (*Schemas, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.response.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no response schemas in %s: %v", dir, err)
	}
	s := &Schemas{dir: dir, resp: map[string]*jsonschema.Resolved{}, wire: wire}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var sch jsonschema.Schema
		if err := json.Unmarshal(b, &sch); err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		rs, err := sch.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("%s does not resolve: %v", f, err)
		}
		s.resp[strings.TrimSuffix(filepath.Base(f), ".response.json")] = rs
	}
	return s, nil
}

// Line validates a stdio response line to op against op's committed
// response schema (DLI: the schema is of the whole line).
func (s *Schemas) Line(op string, line []byte) error {
	if !s.wire {
		return fmt.Errorf("%s: the schemas in %s describe structured content, not lines", op, s.dir)
	}
	return s.validate(op, s.resp[op], line)
}

// Ops lists the ops (or tools) with a committed response schema, sorted.
func (s *Schemas) Ops() []string {
	out := make([]string, 0, len(s.resp))
	for op := range s.resp {
		out = append(out, op)
	}
	sort.Strings(out)
	return out
}

// Has reports whether op has a committed response schema.
func (s *Schemas) Has(op string) bool { return s.resp[op] != nil }

// ErrorLine validates a response line that must be a typed error: the
// answer to an op no schema names (unknown, killed, or a line that never
// named one), whose shape is the error branch every op shares.
func (s *Schemas) ErrorLine(line []byte) error {
	return s.validate("an error line", s.errorLine, line)
}

// Structured validates what an MCP tool call to op put in
// structuredContent, isError as the result said. For DLI it is the
// response line without id and ok, so both are put back (ok is !isError)
// and the line validated; for DKE a success is validated against the
// committed schema and a refusal against the typed error's shape.
func (s *Schemas) Structured(op string, content []byte, isError bool) error {
	if s.wire {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(content, &m); err != nil {
			return fmt.Errorf("%s: structured content %.200s is no object: %v", op, content, err)
		}
		if _, ok := m["id"]; ok {
			return fmt.Errorf("%s: structured content carries the frame's id: %.200s", op, content)
		}
		if _, ok := m["ok"]; ok {
			return fmt.Errorf("%s: structured content carries the frame's ok: %.200s", op, content)
		}
		m["id"] = json.RawMessage(`"mcp"`)
		m["ok"] = json.RawMessage(fmt.Sprint(!isError))
		line, err := json.Marshal(m)
		if err != nil {
			return err
		}
		return s.validate(op, s.resp[op], line)
	}
	if isError {
		return s.validate(op+" (refusal)", s.refusal, content)
	}
	return s.validate(op, s.resp[op], content)
}

func (s *Schemas) validate(op string, rs *jsonschema.Resolved, doc []byte) error {
	if rs == nil {
		return fmt.Errorf("%s has no response schema in %s", op, s.dir)
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return fmt.Errorf("%s: response %.200s is no JSON: %v", op, doc, err)
	}
	if err := rs.Validate(v); err != nil {
		return fmt.Errorf("%s: response %.300s is outside its schema: %v", op, doc, err)
	}
	return nil
}
