// The DKE server as a client meets it: the DKE service's tools registered
// by worker.RegisterDKE and served with DKEOptions.
//
// The golden harness: a case (testdata/dke/cases/*.txt) is a sequence of
// tool calls over one fresh lorestore, each headed `-- tool {args} --`
// with an optional source below it; its golden file shows each call's
// _meta and text, then the store's commit log. Every call's structured
// content is checked against the tool's advertised output schema.
// go test ./mcpserve -run TestDKEGolden -update rewrites the golden files.

package mcpserve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/dke/keys"
	"github.com/deloreis/deloreis/dke/service"
	"github.com/deloreis/deloreis/internal/testenv"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// dkeFixture is the DKE tools over a fresh lorestore with a fixed clock.
type dkeFixture struct {
	t   testing.TB
	dir string
	ls  *lorestore.Store
	reg *worker.Registry
	n   int
}

func newDKEFixture(t testing.TB) *dkeFixture {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "lore")
	ls, err := lorestore.Init(dir, lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ls.Close() })
	tick := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	svc, err := service.New(service.Config{Store: ls, Now: func() time.Time { tick = tick.Add(time.Minute); return tick }, Authority: "test"})
	if err != nil {
		t.Fatal(err)
	}
	reg := worker.NewRegistry()
	worker.RegisterDKE(reg, svc)
	return &dkeFixture{t: t, dir: dir, ls: ls, reg: reg}
}

// call dispatches a tool call through the registry as the MCP server
// does, and returns the response with its _meta and text.
func (f *dkeFixture) call(ctx context.Context, tool string, args map[string]any) (worker.Response, map[string]any, string) {
	f.t.Helper()
	f.n++
	params, err := json.Marshal(args)
	if err != nil {
		f.t.Fatal(err)
	}
	line, _ := json.Marshal(map[string]any{"dli": worker.Version, "id": fmt.Sprint(f.n), "op": tool, "params": json.RawMessage(params)})
	resp := f.reg.Dispatch(ctx, line)
	f.validate(tool, resp)
	o := mcpserve.DKEOptions()
	return resp, o.Meta(nil, resp), o.Text(nil, resp)
}

// validate checks the MCP result's structuredContent against the tool's
// advertised output schema, as a client would.
func (f *dkeFixture) validate(tool string, resp worker.Response) {
	f.t.Helper()
	op, ok := f.reg.Lookup(tool)
	if !ok {
		return // an unknown op: the registry's refusal is the point
	}
	res, err := mcpserve.Result(resp)
	if err != nil {
		f.t.Fatal(err)
	}
	b, _ := json.Marshal(mcpserve.OutputSchema(op))
	var sc jsonschema.Schema
	if err := json.Unmarshal(b, &sc); err != nil {
		f.t.Fatal(err)
	}
	rs, err := sc.Resolve(nil)
	if err != nil {
		f.t.Fatalf("%s: output schema: %v", tool, err)
	}
	var inst any
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &inst); err != nil {
		f.t.Fatal(err)
	}
	if err := rs.Validate(inst); err != nil {
		f.t.Errorf("%s: structuredContent %s does not match the output schema: %v", tool, res.StructuredContent, err)
	}
	// And the committed contract (contracts/dke/schemas), DL-0429.
	if err := testenv.DKESchemas(f.t, "..").Structured(tool, res.StructuredContent.(json.RawMessage), res.IsError); err != nil {
		f.t.Errorf("%s: %v", tool, err)
	}
}

// log returns the summaries of the branch's commits, newest first.
func (f *dkeFixture) log() []string {
	f.t.Helper()
	es, err := f.ls.Log(lorestore.LogOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Message.Summary)
	}
	return out
}

// dkeStep is one call of a case.
type dkeStep struct {
	tool string
	args map[string]any
}

func parseDKECalls(t testing.TB, text string) []dkeStep {
	t.Helper()
	var steps []dkeStep
	var src *strings.Builder
	flush := func() {
		if src != nil && len(steps) > 0 && strings.TrimSpace(src.String()) != "" {
			steps[len(steps)-1].args["source"] = src.String()
		}
	}
	for _, line := range strings.SplitAfter(text, "\n") {
		trim := strings.TrimSpace(line)
		if strings.HasPrefix(trim, "-- ") && strings.HasSuffix(trim, " --") {
			flush()
			head := strings.TrimSuffix(strings.TrimPrefix(trim, "-- "), " --")
			tool, rest, _ := strings.Cut(head, " ")
			args := map[string]any{}
			if rest != "" {
				if err := json.Unmarshal([]byte(rest), &args); err != nil {
					t.Fatalf("step %q: %v", head, err)
				}
			}
			steps = append(steps, dkeStep{tool: tool, args: args})
			src = &strings.Builder{}
			continue
		}
		if src != nil {
			src.WriteString(line)
		}
	}
	flush()
	return steps
}

// runDKECase runs a case and renders what the golden file holds.
func runDKECase(t *testing.T, text string) string {
	f := newDKEFixture(t)
	var b strings.Builder
	for _, st := range parseDKECalls(t, text) {
		args, _ := json.Marshal(withoutSource(st.args))
		fmt.Fprintf(&b, "== %s %s ==\n", st.tool, args)
		if src, ok := st.args["source"].(string); ok {
			b.WriteString(indentSource(src))
		}
		_, meta, txt := f.call(context.Background(), st.tool, st.args)
		m, _ := json.Marshal(meta)
		fmt.Fprintf(&b, "-- _meta %s\n%s", m, txt)
		if !strings.HasSuffix(txt, "\n") {
			b.WriteByte('\n')
		}
	}
	b.WriteString("== git log ==\n")
	for _, s := range f.log() {
		b.WriteString(s + "\n")
	}
	return b.String()
}

func withoutSource(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if k != "source" {
			out[k] = v
		}
	}
	return out
}

func indentSource(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("   | " + strings.TrimRight(l, "\n") + "\n")
	}
	return b.String()
}

func TestDKEGolden(t *testing.T) {
	cases, err := filepath.Glob("testdata/dke/cases/*.txt")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, path := range cases {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got := runDKECase(t, string(text))
			golden := filepath.Join("testdata", "dke", "golden", name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from %s:\n%s", name, golden, got)
			}
		})
	}
}

// TestDKECasesOverMCP replays every golden case — the contract's examples
// among them (inventory, the watch repair loop, §8.1 in eng and nob, a nob
// module answering in nob) — over an MCP session, beside the same calls
// through the registry on a second fresh store: each call must answer
// the same structured content, isError, _meta and text on both.
func TestDKECasesOverMCP(t *testing.T) {
	files, err := filepath.Glob("testdata/dke/cases/*.txt")
	if err != nil || len(files) < 4 {
		t.Fatalf("cases: %v %v", files, err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			direct, viaMCP := newDKEFixture(t), newDKEFixture(t)
			cs := dkeClient(t, viaMCP)
			ctx := context.Background()
			for i, st := range parseDKECalls(t, string(text)) {
				resp, meta, txt := direct.call(ctx, st.tool, st.args)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: st.tool, Arguments: st.args})
				if err != nil {
					t.Fatalf("call %d %s: %v", i, st.tool, err)
				}
				want, err := mcpserve.Result(resp)
				if err != nil {
					t.Fatal(err)
				}
				if err := testenv.DKESchemas(t, "..").Structured(st.tool, []byte(canonical(t, res.StructuredContent)), res.IsError); err != nil {
					t.Errorf("call %d %s over MCP: %v", i, st.tool, err)
				}
				if got, w := canonical(t, res.StructuredContent), canonical(t, want.StructuredContent); got != w {
					t.Errorf("call %d %s: structured content over MCP\n%s\nthrough the registry\n%s", i, st.tool, got, w)
				}
				if res.IsError != !resp.OK() {
					t.Errorf("call %d %s: isError %v, registry ok %v", i, st.tool, res.IsError, resp.OK())
				}
				// go-sdk adds its own io.modelcontextprotocol/ keys to _meta
				// (the server's info); the service's are the rest.
				got := map[string]any{}
				for k, v := range res.Meta {
					if !strings.HasPrefix(k, "io.modelcontextprotocol/") {
						got[k] = v
					}
				}
				if canonical(t, got) != canonical(t, meta) {
					t.Errorf("call %d %s: _meta %v, want %v", i, st.tool, res.Meta, meta)
				}
				if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != txt {
					t.Errorf("call %d %s: text %v, want %q", i, st.tool, res.Content[0], txt)
				}
			}
			if !reflect.DeepEqual(direct.log(), viaMCP.log()) {
				t.Errorf("the stores' histories differ:\n%v\n%v", direct.log(), viaMCP.log())
			}
		})
	}
}

// dkeClient serves f's registry as `deloreis dke mcp` does and connects.
func dkeClient(t *testing.T, f *dkeFixture) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserve.NewWithOptions(f.reg, worker.ProfileExtended, mcpserve.DKEOptions()).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// canonical is v as JSON with sorted keys (a decode and re-encode).
func canonical(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(x)
	return string(b)
}

// TestDKEMCPSession drives the repair loop through a real MCP session: the
// rejected compile is isError with the contract's _meta, the fixed one
// succeeds.
func TestDKEMCPSession(t *testing.T) {
	f := newDKEFixture(t)
	ctx := context.Background()
	srv := mcpserve.NewWithOptions(f.reg, worker.ProfileExtended, mcpserve.DKEOptions())
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ServerInfo.Name; got != "deloreis-dke" {
		t.Errorf("server %q", got)
	}
	bad := "def watch(n: int):\n    i = 0\n    while i < n:\n        print(\"checking\")\n"
	before := testenv.Branches(t, f.dir)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "compile", Arguments: map[string]any{"name": "watch", "source": bad}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.Meta["diagnostics"])
	var diags []struct {
		Class     string
		Line, Col int
		Fix       string
	}
	_ = json.Unmarshal(raw, &diags)
	if !res.IsError || res.Meta["status"] != "compile_error" || res.Meta["compile_status"] != "parse_error" || len(diags) != 1 ||
		diags[0].Line != 3 || diags[0].Col != 5 || diags[0].Class != "parse_error" || diags[0].Fix != "for <var> in <collection>:" {
		t.Errorf("rejected compile: isError %v _meta %v", res.IsError, res.Meta)
	}
	testenv.SameBranches(t, "a rejected compile", before, testenv.Branches(t, f.dir))
	good := "def watch(k: string):\n    for a in list attributes of k:\n        print(a)\n"
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "compile", Arguments: map[string]any{"name": "watch", "source": good}})
	if err != nil || res.IsError || res.Meta["status"] != "success" {
		t.Fatalf("fixed compile: %v %+v", err, res)
	}
	if tc := res.Content[0].(*mcp.TextContent); tc.Text != "compiled module watch\ninstalled:\n  script watch.watch(k: string)\n" {
		t.Errorf("text %q", tc.Text)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"source": "print(\"hi\")\n"}})
	if err != nil || res.IsError {
		t.Fatal(err, res)
	}
	if tc := res.Content[0].(*mcp.TextContent); tc.Text != "OK program: 0 claims written, 0 claims removed, 1 line printed\nprint: hi\n" {
		t.Errorf("run text %q", tc.Text)
	}
	if m, _ := res.StructuredContent.(map[string]any); m["status"] != "ok" || len(m["prints"].([]any)) != 1 {
		t.Errorf("run result %v", res.StructuredContent)
	}
}

// TestDKERefusalMeta: a call its grant refuses (a read key's write, a key
// of another store) answers _meta status error with the code, the
// refusal's message as its text, and commits nothing. Which calls a grant
// allows is the service's TestGrants.
func TestDKERefusalMeta(t *testing.T) {
	f := newDKEFixture(t)
	bg := context.Background()
	if resp, _, _ := f.call(bg, "run", map[string]any{"source": "remember(Sensor.s1.room, \"kitchen\", \"survey\")\n"}); !resp.OK() {
		t.Fatalf("run: %v", resp.Err)
	}
	read := service.WithGrant(bg, keys.Grant{Store: "default", Mode: keys.Read})
	other := service.WithGrant(bg, keys.Grant{Store: "storeA", Mode: keys.Write})
	for _, c := range []struct {
		name string
		ctx  context.Context
		tool string
		args map[string]any
		code string
	}{
		{"read run", read, "run", map[string]any{"source": "remember(Sensor.s2.room, \"hall\", \"x\")\n"}, service.CodeReadOnly},
		{"read forget_module", read, "forget_module", map[string]any{"name": "m", "confirm": true}, service.CodeReadOnly},
		{"store A on store B", other, "checkup", map[string]any{"store_id": "default"}, service.CodeWrongStore},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := testenv.Branches(t, f.dir)
			resp, meta, txt := f.call(c.ctx, c.tool, c.args)
			if resp.OK() || resp.Err.Code != c.code {
				t.Fatalf("want %s, got %+v", c.code, resp)
			}
			if meta["status"] != "error" || meta["code"] != c.code || len(meta) != 2 {
				t.Errorf("_meta %v", meta)
			}
			if txt != "error: "+resp.Err.Message {
				t.Errorf("text %q", txt)
			}
			testenv.SameBranches(t, "a refused "+c.tool, before, testenv.Branches(t, f.dir))
		})
	}
}

// TestDKECheckupEmptyStore: an empty store's checkup succeeds, with its
// counts as its text (contract §9.6).
func TestDKECheckupEmptyStore(t *testing.T) {
	f := newDKEFixture(t)
	resp, meta, txt := f.call(context.Background(), "checkup", map[string]any{})
	if !resp.OK() || meta["status"] != "success" {
		t.Fatalf("checkup: %+v %v", resp, meta)
	}
	if want := "checkup: 0 claims, 0 kinds, 0 modules, 0 rules, 0 constraints\n"; txt != want {
		t.Errorf("checkup of an empty store: %q, want %q", txt, want)
	}
}
