// The DKE fixture replay (issue 12): every fixture runs through the
// registry directly and through `deloreis dke mcp --store P` under
// go-sdk's client, each on a fresh copy of its seed, and both must give
// the same structured result, isError, _meta and text, and leave the
// store at the same commit. A golden or negative answer must equal the
// committed one; a negative leaves the head where it was; a framing pair
// must answer alike once the string is masked.

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/dke/service"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// dkeAnswer is one tool result as a client sees it.
type dkeAnswer struct {
	IsError    bool            `json:"isError"`
	Meta       map[string]any  `json:"_meta"`
	Structured json.RawMessage `json:"structuredContent"`
	Text       string          `json:"text"`
}

// dkeTransport makes one tool call and returns its answer.
type dkeTransport interface {
	call(tool string, args json.RawMessage) dkeAnswer
}

// dkeDirect calls the registry in process, as the MCP handler does.
type dkeDirect struct {
	t   testing.TB
	reg *worker.Registry
	n   int
}

func newDKEDirect(t testing.TB, dir string) *dkeDirect {
	t.Helper()
	s, err := lorestore.Open(dir, dkeFxOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	svc, err := service.New(service.Config{Store: s, Now: dkeFxOptions().Now})
	if err != nil {
		t.Fatal(err)
	}
	reg := worker.NewRegistry()
	service.Register(reg, svc)
	return &dkeDirect{t: t, reg: reg}
}

func (d *dkeDirect) call(tool string, args json.RawMessage) dkeAnswer {
	d.t.Helper()
	d.n++
	op, ok := d.reg.Lookup(tool)
	if !ok {
		d.t.Fatalf("no tool %s", tool)
	}
	line, e := mcpserve.Envelope(tool, fmt.Sprintf("fx-%d", d.n), args)
	resp := worker.Response{Err: e}
	if e == nil {
		resp = d.reg.Dispatch(context.Background(), line)
	}
	res, err := mcpserve.Result(resp)
	if err != nil {
		d.t.Fatal(err)
	}
	o := service.MCPOptions()
	var meta map[string]any
	json.Unmarshal([]byte(dkeCanonical(d.t, o.Meta(op, resp))), &meta)
	return dkeAnswer{IsError: res.IsError, Meta: meta, Structured: res.StructuredContent.(json.RawMessage), Text: o.Text(op, resp)}
}

// dkeMCP is a `deloreis dke mcp --store P` subprocess.
type dkeMCP struct {
	t   testing.TB
	ctx context.Context
	cs  *mcp.ClientSession
}

func startDKEMCP(t testing.TB, dir string) *dkeMCP {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.Command(binary(t), "--store", dir, "dke", "mcp")
	cmd.Env = append(os.Environ(), "DELOREIS_COMMIT_DATE="+dkeFxDate, "DELOREIS_AUTHOR="+dkeFxAuthor)
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "dke-fixtures", Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("dke mcp close: %v", err)
		}
		if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
			t.Errorf("deloreis dke mcp did not exit 0: %v", cmd.ProcessState)
		}
	})
	return &dkeMCP{t: t, ctx: ctx, cs: cs}
}

func (m *dkeMCP) call(tool string, args json.RawMessage) dkeAnswer {
	m.t.Helper()
	res, err := m.cs.CallTool(m.ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		m.t.Fatalf("%s over MCP: %v", tool, err)
	}
	if res.StructuredContent == nil || len(res.Content) != 1 {
		m.t.Fatalf("%s over MCP: %d contents, structured %v", tool, len(res.Content), res.StructuredContent)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		m.t.Fatalf("%s over MCP: content %T", tool, res.Content[0])
	}
	// Keys under the protocol's reserved prefix (go-sdk's serverInfo) are
	// the transport's, not the tool's answer.
	var meta map[string]any
	json.Unmarshal([]byte(dkeCanonical(m.t, res.Meta)), &meta)
	for k := range meta {
		if strings.HasPrefix(k, "io.modelcontextprotocol/") {
			delete(meta, k)
		}
	}
	return dkeAnswer{IsError: res.IsError, Meta: meta, Structured: json.RawMessage(dkeCanonical(m.t, res.StructuredContent)), Text: text.Text}
}

// dkeStep is one call of a run: its label and canonical answer.
type dkeStep struct {
	label, canon string
	answer       dkeAnswer
}

// dkeRun is what one path answered to a fixture, and the store after it.
type dkeRun struct {
	steps []dkeStep
	// headBefore and headAfter are the store's head around the call.
	headBefore, headAfter string
	log                   string // the commit summaries at the end
	commit                string // the head commit at the end, as git prints it
}

func (r dkeRun) find(label string) dkeStep {
	for _, s := range r.steps {
		if s.label == label {
			return s
		}
	}
	return dkeStep{}
}

// runDKEFixture builds the seed, starts the path and sends setup (each
// must succeed), the call, then the after calls (each must succeed).
func runDKEFixture(t *testing.T, f *dkeFx, overMCP bool, s string) dkeRun {
	t.Helper()
	dir := dkeSeedStore(t, f.Seed)
	var tr dkeTransport
	if overMCP {
		tr = startDKEMCP(t, dir)
	} else {
		tr = newDKEDirect(t, dir)
	}
	var r dkeRun
	send := func(label string, c dkeCall, mustOK bool) {
		a := tr.call(c.Tool, fxExpand(t, c.Arguments, s, nil))
		if mustOK && (a.IsError || a.Meta["status"] != "success") {
			t.Fatalf("%s: %s (%s) answered %s", f.path, label, c.Tool, a.Text)
		}
		r.steps = append(r.steps, dkeStep{label: label, canon: dkeCanonical(t, a), answer: a})
	}
	for i, c := range f.Setup {
		send(fmt.Sprintf("setup %d", i), c, true)
	}
	r.headBefore = dkeHead(t, dir)
	send("call", f.Call, false)
	r.headAfter = dkeHead(t, dir)
	for i, c := range f.After {
		send(fmt.Sprintf("after %d", i), c, true)
	}
	r.log = mustGit(t, dir, "log", "--format=%s", "main")
	r.commit = mustGit(t, dir, "cat-file", "-p", "main")
	return r
}

func dkeHead(t *testing.T, dir string) string {
	return strings.TrimSpace(mustGit(t, dir, "rev-parse", "main"))
}

// dkeRunDiffs lists where two paths' runs of one fixture differ.
func dkeRunDiffs(direct, overMCP dkeRun) []string {
	if len(direct.steps) != len(overMCP.steps) {
		return []string{fmt.Sprintf("%d calls directly, %d over MCP", len(direct.steps), len(overMCP.steps))}
	}
	var out []string
	for i := range direct.steps {
		if a, b := direct.steps[i], overMCP.steps[i]; a.canon != b.canon {
			out = append(out, fmt.Sprintf("%s differs:\n direct %s\n mcp    %s", a.label, a.canon, b.canon))
		}
	}
	if direct.headAfter != overMCP.headAfter || direct.log != overMCP.log {
		out = append(out, fmt.Sprintf("the store differs:\n direct %s\n mcp    %s", direct.commit, overMCP.commit))
	}
	return out
}

// TestDKEContractReplay runs every DKE fixture on both paths.
func TestDKEContractReplay(t *testing.T) {
	fixtures := loadDKEFixtures(t)
	binary(t) // built once, before the parallel subtests
	for _, f := range fixtures {
		t.Run(f.Kind+"/"+f.Tool, func(t *testing.T) {
			t.Parallel()
			if _, ok := dkeSeeds[f.Seed]; !ok {
				t.Fatalf("%s: unknown seed %q", f.path, f.Seed)
			}
			switch f.Kind {
			case "golden", "negative":
				replayDKEExact(t, f)
			case "framing":
				replayDKEFraming(t, f)
			default:
				t.Fatalf("%s: unknown kind %q", f.path, f.Kind)
			}
		})
	}
}

// replayDKEExact: the direct answer is the committed one (rewritten under
// -update); a golden succeeds; a negative is its typed refusal and moves
// no head; the MCP path answers every call alike.
func replayDKEExact(t *testing.T, f *dkeFx) {
	direct := runDKEFixture(t, f, false, "")
	got := direct.find("call")
	if f.Kind == "negative" {
		dkeCheckNegative(t, f, direct)
	} else if got.answer.IsError || got.answer.Meta["status"] != "success" {
		t.Errorf("%s: the golden call failed: %s", f.path, got.answer.Text)
	}
	if *update {
		f.Answer = json.RawMessage(got.canon)
		writeDKEFixture(t, f)
	} else if want := dkeCanonical(t, f.Answer); want != got.canon {
		t.Errorf("%s: the answer differs:\n got  %s\n want %s", f.path, got.canon, want)
	}
	overMCP := runDKEFixture(t, f, true, "")
	if f.Kind == "negative" {
		dkeCheckNegative(t, f, overMCP)
	}
	for _, d := range dkeRunDiffs(direct, overMCP) {
		t.Errorf("%s: %s", f.path, d)
	}
}

// dkeCheckNegative: the call is refused with the fixture's status, class
// and code (a compile error with its compile_status and diagnostics), and
// the store's head did not move.
func dkeCheckNegative(t *testing.T, f *dkeFx, r dkeRun) {
	t.Helper()
	a := r.find("call").answer
	var e struct{ Error dkeFxError }
	json.Unmarshal(a.Structured, &e)
	e.Error.Status, _ = a.Meta["status"].(string)
	if !a.IsError || f.Error == nil || e.Error != *f.Error || !strings.HasPrefix(a.Text, "error: ") {
		t.Errorf("%s: want refusal %+v, got isError %v %+v: %s", f.path, f.Error, a.IsError, e.Error, a.Text)
	}
	if ds, _ := a.Meta["diagnostics"].([]any); e.Error.Status == "compile_error" && (len(ds) == 0 || a.Meta["compile_status"] == nil) {
		t.Errorf("%s: a compile error without compile_status and diagnostics: %v", f.path, a.Meta)
	}
	if r.headBefore != r.headAfter {
		t.Errorf("%s: the refused call moved the head %s -> %s", f.path, r.headBefore, r.headAfter)
	}
}

// replayDKEFraming runs each string of the pair in its own cold store on
// both paths (which must agree), then requires the two strings' direct
// runs to answer alike once masked, with the same commits, and the
// tainted string to come back as data somewhere.
func replayDKEFraming(t *testing.T, f *dkeFx) {
	runs := map[string]dkeRun{}
	for _, s := range []string{f.Benign, f.Tainted} {
		direct := runDKEFixture(t, f, false, s)
		for _, d := range dkeRunDiffs(direct, runDKEFixture(t, f, true, s)) {
			t.Errorf("%s (%s): %s", f.path, s, d)
		}
		runs[s] = direct
	}
	b, tn := runs[f.Benign], runs[f.Tainted]
	seenB, seenT := map[string]int{}, map[string]int{}
	echoed := false
	for i := range b.steps {
		mb := fxMask(json.RawMessage(b.steps[i].canon), f.Benign, seenB)
		mt := fxMask(json.RawMessage(tn.steps[i].canon), f.Tainted, seenT)
		if mb != mt {
			t.Errorf("%s: %s differs between the benign and the tainted string:\n benign  %s\n tainted %s", f.path, b.steps[i].label, mb, mt)
		}
		echoed = echoed || strings.Contains(tn.steps[i].answer.Text, f.Tainted)
	}
	if strings.ReplaceAll(b.log, f.Benign, "«S»") != strings.ReplaceAll(tn.log, f.Tainted, "«S»") {
		t.Errorf("%s: the commits differ:\n benign  %s\n tainted %s", f.path, b.log, tn.log)
	}
	if !echoed {
		t.Errorf("%s: no answer's text holds the tainted string as data", f.path)
	}
}

// writeDKEFixture rewrites a fixture file, indented, without HTML escapes.
func writeDKEFixture(t testing.TB, f *dkeFx) {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
