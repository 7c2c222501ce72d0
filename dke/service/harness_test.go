// The golden harness: a case (testdata/cases/*.txt) is a sequence of tool
// calls over one fresh lorestore, each headed `-- tool {args} --` with an
// optional source below it; its golden file shows each call's _meta and
// text, then the store's commit log.
// go test ./dke/service -run TestGolden -update rewrites the golden files.

package service

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
	"github.com/google/jsonschema-go/jsonschema"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixture is a service over a fresh lorestore with a fixed clock.
type fixture struct {
	t   testing.TB
	dir string
	ls  *lorestore.Store
	svc *Service
	reg *worker.Registry
	n   int
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "lore")
	ls, err := lorestore.Init(dir, lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ls.Close() })
	tick := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	svc, err := New(Config{Store: ls, Now: func() time.Time { tick = tick.Add(time.Minute); return tick }, Authority: "test"})
	if err != nil {
		t.Fatal(err)
	}
	reg := worker.NewRegistry()
	Register(reg, svc)
	return &fixture{t: t, dir: dir, ls: ls, svc: svc, reg: reg}
}

// call dispatches a tool call through the registry as the MCP server
// does, and returns the response with its _meta and text.
func (f *fixture) call(ctx context.Context, tool string, args map[string]any) (worker.Response, map[string]any, string) {
	f.t.Helper()
	f.n++
	params, err := json.Marshal(args)
	if err != nil {
		f.t.Fatal(err)
	}
	line, _ := json.Marshal(map[string]any{"dli": worker.Version, "id": fmt.Sprint(f.n), "op": tool, "params": json.RawMessage(params)})
	resp := f.reg.Dispatch(ctx, line)
	f.validate(tool, resp)
	o := MCPOptions()
	return resp, o.Meta(nil, resp), o.Text(nil, resp)
}

// validate checks the MCP result's structuredContent against the tool's
// advertised output schema, as a client would.
func (f *fixture) validate(tool string, resp worker.Response) {
	f.t.Helper()
	var op *worker.Op
	for _, o := range f.reg.Ops(worker.ProfileExtended) {
		if o.Name == tool {
			op = o
		}
	}
	if op == nil {
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
}

// log returns the summaries of the branch's commits, newest first.
func (f *fixture) log() []string {
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

// callStep is one call of a case.
type callStep struct {
	tool string
	args map[string]any
}

func parseCalls(t testing.TB, text string) []callStep {
	t.Helper()
	var steps []callStep
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
			steps = append(steps, callStep{tool: tool, args: args})
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

// runCase runs a case and renders what the golden file holds.
func runCase(t *testing.T, text string) string {
	f := newFixture(t)
	var b strings.Builder
	for _, st := range parseCalls(t, text) {
		args, _ := json.Marshal(withoutSource(st.args))
		fmt.Fprintf(&b, "== %s %s ==\n", st.tool, args)
		if src, ok := st.args["source"].(string); ok {
			b.WriteString(indent(src))
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

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("   | " + strings.TrimRight(l, "\n") + "\n")
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	cases, err := filepath.Glob("testdata/cases/*.txt")
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
			got := runCase(t, string(text))
			golden := filepath.Join("testdata", "golden", name+".golden")
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
