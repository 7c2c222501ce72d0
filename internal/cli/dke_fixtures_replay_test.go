// The DKE fixture replay (issue 12): every fixture runs through the
// registry directly and through `deloreis dke mcp --store P` under
// go-sdk's client, each on a fresh copy of its seed, and both must give
// the same structured result, isError, _meta and text, and leave the
// store at the same commit. A golden or negative answer must equal the
// committed one; a negative leaves the head where it was; a framing pair
// must answer alike once the string is masked.

package cli

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
	"github.com/deloreis/deloreis/internal/testenv"
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
	worker.RegisterDKE(reg, svc)
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
	o := mcpserve.DKEOptions()
	var meta map[string]any
	json.Unmarshal([]byte(dkeCanonical(d.t, o.Meta(op, resp))), &meta)
	checkDKESchema(d.t, tool, res.StructuredContent.(json.RawMessage), res.IsError)
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
	structured := json.RawMessage(dkeCanonical(m.t, res.StructuredContent))
	checkDKESchema(m.t, tool, structured, res.IsError)
	return dkeAnswer{IsError: res.IsError, Meta: meta, Structured: structured, Text: text.Text}
}

// checkDKESchema validates a tool's structured content against its
// committed schema (contracts/dke/schemas; a refusal against the typed
// error's shape): an answer outside its schema fails the test (DL-0429).
func checkDKESchema(t testing.TB, tool string, structured json.RawMessage, isError bool) {
	t.Helper()
	if err := testenv.DKESchemas(t, "../..").Structured(tool, structured, isError); err != nil {
		t.Errorf("%s: %v", tool, err)
	}
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
	// branchesBefore and branchesAfter are its HEAD, packed-refs and
	// every ref around the call, byte for byte (testenv.Branches).
	branchesBefore, branchesAfter map[string]string
	log                           string // the commit summaries at the end
	commit                        string // the head commit at the end, as git prints it
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
	r.headBefore, r.branchesBefore = dkeHead(t, dir), testenv.Branches(t, dir)
	send("call", f.Call, false)
	r.headAfter, r.branchesAfter = dkeHead(t, dir), testenv.Branches(t, dir)
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

// dkeCheckNegative reports the problems dkeNegativeProblems finds.
func dkeCheckNegative(t *testing.T, f *dkeFx, r dkeRun) {
	t.Helper()
	for _, p := range dkeNegativeProblems(f, r) {
		t.Errorf("%s: %s", f.path, p)
	}
}

// dkeNegativeProblems: the call must be refused with the fixture's
// status, class and code (a compile error with its compile_status and
// diagnostics), its text the refusal, and the store's branches (HEAD,
// packed-refs, every ref) must be byte for byte what they were (DL-0431).
func dkeNegativeProblems(f *dkeFx, r dkeRun) []string {
	var out []string
	a := r.find("call").answer
	var e struct{ Error dkeFxError }
	json.Unmarshal(a.Structured, &e)
	e.Error.Status, _ = a.Meta["status"].(string)
	if !a.IsError || f.Error == nil || e.Error != *f.Error || !strings.HasPrefix(a.Text, "error: ") {
		out = append(out, fmt.Sprintf("want refusal %+v, got isError %v %+v: %s", f.Error, a.IsError, e.Error, a.Text))
	}
	if ds, _ := a.Meta["diagnostics"].([]any); e.Error.Status == "compile_error" && (len(ds) == 0 || a.Meta["compile_status"] == nil) {
		out = append(out, fmt.Sprintf("a compile error without compile_status and diagnostics: %v", a.Meta))
	}
	if r.branchesBefore == nil {
		out = append(out, "the branches were not read around the call")
	} else {
		for _, d := range testenv.BranchDiffs(r.branchesBefore, r.branchesAfter) {
			out = append(out, "the refused call moved the branches: "+d)
		}
	}
	return out
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
	for _, d := range dkeFramingDiffs(f, runs[f.Benign], runs[f.Tainted]) {
		t.Errorf("%s: %s", f.path, d)
	}
}

// dkeFramingDiffs compares the benign and the tainted run: each answer
// masked (the string as «S», hex ids numbered), the commit summaries with
// the string masked, and the tainted string must come back in some
// answer's text.
func dkeFramingDiffs(f *dkeFx, b, tn dkeRun) []string {
	var out []string
	if len(b.steps) != len(tn.steps) {
		return []string{fmt.Sprintf("%d calls with the benign string, %d with the tainted", len(b.steps), len(tn.steps))}
	}
	seenB, seenT := map[string]int{}, map[string]int{}
	echoed := false
	for i := range b.steps {
		mb := fxMask(json.RawMessage(b.steps[i].canon), f.Benign, seenB)
		mt := fxMask(json.RawMessage(tn.steps[i].canon), f.Tainted, seenT)
		if mb != mt {
			out = append(out, fmt.Sprintf("%s differs between the benign and the tainted string:\n benign  %s\n tainted %s", b.steps[i].label, mb, mt))
		}
		echoed = echoed || strings.Contains(tn.steps[i].answer.Text, f.Tainted)
	}
	if strings.ReplaceAll(b.log, f.Benign, "«S»") != strings.ReplaceAll(tn.log, f.Tainted, "«S»") {
		out = append(out, fmt.Sprintf("the commits differ:\n benign  %s\n tainted %s", b.log, tn.log))
	}
	if !echoed {
		out = append(out, "no answer's text holds the tainted string as data")
	}
	return out
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

// TestDKEContractChecks shows what the replay's checks tell apart: an
// answer that differs between the paths in any part, a call missing, a
// store left at another commit; a negative that succeeded, carries
// another code, lacks its diagnostics or moved the head.
func TestDKEContractChecks(t *testing.T) {
	refusal := func(meta map[string]any, code string) dkeAnswer {
		return dkeAnswer{IsError: true, Meta: meta, Text: "error: no",
			Structured: json.RawMessage(`{"error":{"class":"refused","code":"` + code + `","message":"no"}}`)}
	}
	ok := dkeAnswer{Meta: map[string]any{"status": "success"}, Structured: json.RawMessage(`{"status":"success","text":"x"}`), Text: "x"}
	run := func(head string, as ...dkeAnswer) dkeRun {
		r := dkeRun{headBefore: "h0", headAfter: head,
			branchesBefore: map[string]string{"HEAD": "ref: refs/heads/main\n", "refs/heads/main": "h0"},
			branchesAfter:  map[string]string{"HEAD": "ref: refs/heads/main\n", "refs/heads/main": head}}
		for i, a := range as {
			label := "call"
			if i > 0 {
				label = fmt.Sprintf("after %d", i-1)
			}
			r.steps = append(r.steps, dkeStep{label: label, canon: dkeCanonical(t, a), answer: a})
		}
		return r
	}
	other := ok
	other.Text = "y"
	meta := other
	meta.Meta = map[string]any{"status": "runtime_error"}
	for _, tc := range []struct {
		name          string
		direct, viaMC dkeRun
		diffs         int
	}{
		{"alike", run("h1", ok), run("h1", ok), 0},
		{"another text", run("h1", ok), run("h1", other), 1},
		{"another _meta", run("h1", other), run("h1", meta), 1},
		{"a call missing", run("h1", ok, ok), run("h1", ok), 1},
		{"another commit", run("h1", ok), run("h2", ok), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := dkeRunDiffs(tc.direct, tc.viaMC); len(got) != tc.diffs {
				t.Fatalf("%d diffs, want %d: %v", len(got), tc.diffs, got)
			}
		})
	}
	f := &dkeFx{Error: &dkeFxError{Status: "error", Class: "refused", Code: "confirm-required"}}
	cf := &dkeFx{Error: &dkeFxError{Status: "compile_error", Class: "refused", Code: "compile-error"}}
	for _, tc := range []struct {
		name     string
		f        *dkeFx
		r        dkeRun
		problems int
	}{
		{"the refusal", f, run("h0", refusal(map[string]any{"status": "error"}, "confirm-required")), 0},
		{"a success", f, run("h0", ok), 1},
		{"another code", f, run("h0", refusal(map[string]any{"status": "error"}, "not-found")), 1},
		{"the head moved", f, run("h1", refusal(map[string]any{"status": "error"}, "confirm-required")), 1},
		{"no diagnostics", cf, run("h0", refusal(map[string]any{"status": "compile_error"}, "compile-error")), 1},
		{"a ref made", f, func() dkeRun {
			r := run("h0", refusal(map[string]any{"status": "error"}, "confirm-required"))
			r.branchesAfter["refs/dke/x"] = "h1"
			return r
		}(), 1},
		{"refs packed", f, func() dkeRun {
			r := run("h0", refusal(map[string]any{"status": "error"}, "confirm-required"))
			r.branchesAfter["packed-refs"] = "h1 refs/heads/main\n"
			return r
		}(), 1},
		{"the branches unread", f, func() dkeRun {
			r := run("h0", refusal(map[string]any{"status": "error"}, "confirm-required"))
			r.branchesBefore = nil
			return r
		}(), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := dkeNegativeProblems(tc.f, tc.r); len(got) != tc.problems {
				t.Fatalf("%d problems, want %d: %v", len(got), tc.problems, got)
			}
		})
	}
}

// TestDKEContractFramingDiffs: the framing comparison accepts answers
// that differ only by the string, and reports a line only the tainted
// string draws, other commits, and a string that never comes back.
func TestDKEContractFramingDiffs(t *testing.T) {
	f := &dkeFx{Benign: "calm_sea", Tainted: "obey_now"}
	run := func(log string, texts ...string) dkeRun {
		r := dkeRun{log: log}
		for _, x := range texts {
			a := dkeAnswer{Meta: map[string]any{"status": "success"}, Structured: json.RawMessage(`{}`), Text: x}
			r.steps = append(r.steps, dkeStep{label: "call", canon: dkeCanonical(t, a), answer: a})
		}
		return r
	}
	for _, tc := range []struct {
		name   string
		b, tn  dkeRun
		wanted int
	}{
		{"alike", run("dke compile calm_sea\n", "module calm_sea\n"), run("dke compile obey_now\n", "module obey_now\n"), 0},
		{"a line only the tainted string draws", run("x\n", "module calm_sea\n"), run("x\n", "module obey_now\nforgot all\n"), 1},
		{"other commits", run("dke compile calm_sea\n", "module calm_sea\n"), run("dke forget_module\n", "module obey_now\n"), 1},
		{"never echoed", run("x\n", "done\n"), run("x\n", "done\n"), 1},
		{"a call missing", run("x\n", "a calm_sea", "b"), run("x\n", "a obey_now"), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := dkeFramingDiffs(f, tc.b, tc.tn); len(got) != tc.wanted {
				t.Fatalf("%d diffs, want %d: %v", len(got), tc.wanted, got)
			}
		})
	}
}
