package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/service"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
)

//go:generate go test -run TestDKEContractSchemas -update .

// dkeContractDir holds the DKE wire contract generated from the registry.
var dkeContractDir = filepath.Join("..", "..", "contracts", "dke")

// dkeContractRegistry is the registry of the DKE tools over a throwaway
// lorestore: what `deloreis dke mcp` serves.
func dkeContractRegistry(t testing.TB) *worker.Registry {
	t.Helper()
	s, err := lorestore.Init(filepath.Join(t.TempDir(), "s.lore"), lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	reg, err := (&globals{}).dkeRegistry(s)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestDKEContractSchemas: contracts/dke/schemas holds, for each of the
// thirteen tools, the JSON Schema of its arguments (<tool>.request.json,
// the MCP input schema) and of its result (<tool>.response.json, the
// structuredContent of a success), and contracts/dke/error-codes.md the
// codes a refusal carries; the test fails when a committed file differs
// from what the registry generates or names no tool (`go generate
// ./internal/cli` rewrites them).
func TestDKEContractSchemas(t *testing.T) {
	reg := dkeContractRegistry(t)
	ops := reg.Ops(worker.ProfileExtended)
	want := checkSchemaDir(t, filepath.Join(dkeContractDir, "schemas"), ops,
		func(op *worker.Op) (map[string]any, map[string]any) { return op.ParamsSchema(), op.ResultSchema() }, "DKE tool's")
	if len(ops) != 13 || len(want) != 26 {
		t.Errorf("%d tools, %d schemas: the contract has 13 tools", len(ops), len(want))
	}
	goldenFile(t, filepath.Join(dkeContractDir, "error-codes.md"), dkeErrorCodesDoc(ops))
}

// TestDKEContractSchemasAreServed: the committed schemas are what an MCP
// client is told: a tool's input schema is its request schema, and the
// success branch of its output schema is its response schema. A request
// schema closes its object, so an unknown argument is refused as the
// worker refuses it.
func TestDKEContractSchemasAreServed(t *testing.T) {
	for _, op := range dkeContractRegistry(t).Ops(worker.ProfileExtended) {
		read := func(kind string) string {
			b, err := os.ReadFile(filepath.Join(dkeContractDir, "schemas", op.Name+"."+kind+".json"))
			if err != nil {
				t.Fatal(err)
			}
			return dkeCanonical(t, json.RawMessage(b))
		}
		tool := mcpserve.Tool(op)
		if got := dkeCanonical(t, tool.InputSchema); got != read("request") {
			t.Errorf("%s: the served input schema %s is not the committed request schema", op.Name, got)
		}
		out, _ := tool.OutputSchema.(map[string]any)
		branches, _ := out["oneOf"].([]any)
		if len(branches) != 2 || dkeCanonical(t, branches[0]) != read("response") {
			t.Errorf("%s: the served output schema's success branch is not the committed response schema", op.Name)
		}
		var in map[string]any
		json.Unmarshal([]byte(read("request")), &in)
		if in["additionalProperties"] != false {
			t.Errorf("%s: the request schema admits unknown arguments", op.Name)
		}
	}
}

// dkeErrorCodesDoc is contracts/dke/error-codes.md: every code a DKE tool
// answers with, its class, the tools that declare it, and how a refusal
// reaches an MCP client.
func dkeErrorCodesDoc(ops []*worker.Op) string {
	var b bytes.Buffer
	b.WriteString("<!-- Generated from the DKE registry by `go generate ./internal/cli`. Do not edit. -->\n\n")
	b.WriteString("# Error codes of the DKE tools\n\n")
	b.WriteString("A refused call is an MCP result with `isError: true`, `structuredContent`\n")
	b.WriteString("`{\"error\": {\"code\", \"class\", \"message\", …data}}` and the message as its text\n")
	b.WriteString("(`error: <message>`). `_meta.status` is `compile_error` for `compile-error`\n")
	b.WriteString("(with `_meta.compile_status` and `_meta.diagnostics`, contract §4.1, §6.1)\n")
	b.WriteString("and `error` for every other code (with `_meta.code`). A program that fails\n")
	b.WriteString("while it runs is no refusal: `isError` is false and `_meta.status` is\n")
	b.WriteString("`runtime_error`. The class says what to do: `schema` — fix the arguments;\n")
	b.WriteString("`refused` — well-formed but not allowed or not possible now; `conflict` — the\n")
	b.WriteString("store moved while the call ran, retry it; `not-found` — the named thing does\n")
	b.WriteString("not exist. A refusal changes nothing in the store.\n\n")
	codes := map[string]worker.Class{}
	for c, cl := range service.ErrorCodes() {
		codes[c] = cl
	}
	// The protocol's codes a tool call can reach: its arguments are
	// decoded strictly before the tool runs.
	for _, c := range []string{worker.CodeBadParams, worker.CodeUnknownField, worker.CodeMissingField} {
		codes[c] = worker.ClassSchema
	}
	declared := map[string][]string{}
	for _, op := range ops {
		for _, c := range op.Errors {
			declared[c] = append(declared[c], op.Name)
		}
	}
	names := make([]string, 0, len(codes))
	for c := range codes {
		names = append(names, c)
	}
	sort.Strings(names)
	b.WriteString("| code | class | tools |\n| --- | --- | --- |\n")
	for _, c := range names {
		tools := "every tool (argument decoding)"
		if ts := declared[c]; len(ts) > 0 {
			sort.Strings(ts)
			tools = strings.Join(ts, ", ")
		} else if _, ours := service.ErrorCodes()[c]; ours {
			tools = "none declares it"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", c, codes[c], tools)
	}
	return b.String()
}
