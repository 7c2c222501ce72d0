package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/worker"
)

//go:generate go test -run TestContractSchemas -update .

// contractDir holds the wire contract generated from the registry.
var contractDir = filepath.Join("..", "..", "contracts", "dli-worker")

// checkSchemaDir holds dir to the request and response schemas of ops
// (<op>.request.json, <op>.response.json): a committed file that differs
// from the generated one, or one that names none of ops (what says whose),
// fails the test; -update rewrites them. It returns the file names.
func checkSchemaDir(t *testing.T, dir string, ops []*worker.Op, schemas func(*worker.Op) (req, resp map[string]any), what string) map[string]bool {
	t.Helper()
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]bool{}
	for _, op := range ops {
		req, resp := schemas(op)
		for kind, schema := range map[string]map[string]any{"request": req, "response": resp} {
			name := op.Name + "." + kind + ".json"
			want[name] = true
			b, err := json.MarshalIndent(schema, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			goldenFile(t, filepath.Join(dir, name), string(b)+"\n")
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !want[e.Name()] {
			if *update {
				os.Remove(filepath.Join(dir, e.Name()))
				continue
			}
			t.Errorf("%s names no %s schema", e.Name(), what)
		}
	}
	return want
}

// TestContractSchemas: contracts/dli-worker/schemas holds, for every
// served op, the request and the response JSON Schema generated from its
// Go types, and contracts/dli-worker/error-codes.md the error reference;
// the test fails when a committed file differs from what the code
// generates, or when a file names no served op (`go generate
// ./internal/cli` rewrites them).
func TestContractSchemas(t *testing.T) {
	reg := fullRegistry(t)
	want := checkSchemaDir(t, filepath.Join(contractDir, "schemas"), reg.Ops(worker.ProfileExtended),
		func(op *worker.Op) (map[string]any, map[string]any) { return op.RequestSchema(), op.ResponseSchema() }, "served op's")
	if n := len(want); n != 2*len(surface) {
		t.Errorf("%d schemas for %d ops", n, len(surface))
	}
	goldenFile(t, filepath.Join(contractDir, "error-codes.md"), string(worker.ErrorCodesDoc(worker.DLIErrorCodes())))
}

// TestContractSchemasAreStrict: every generated request schema closes its
// object and requires the frame fields, so the schemas refuse what the
// worker refuses.
func TestContractSchemasAreStrict(t *testing.T) {
	for _, op := range fullRegistry(t).Ops(worker.ProfileExtended) {
		s := op.RequestSchema()
		req, _ := s["required"].([]string)
		for _, f := range []string{"dli", "id", "op"} {
			if !slices.Contains(req, f) {
				t.Errorf("%s: request schema does not require %s (required %v)", op.Name, f, s["required"])
			}
		}
		if s["additionalProperties"] != false {
			t.Errorf("%s: request schema admits unknown fields", op.Name)
		}
		props, _ := s["properties"].(map[string]any)
		_, fenced := props["expected_digest"]
		if fenced != op.Mutating || strings.HasPrefix(op.Name, "dli.") && fenced {
			t.Errorf("%s: expected_digest in the request schema %v, mutating %v", op.Name, fenced, op.Mutating)
		}
	}
}
