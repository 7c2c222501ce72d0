// The fixture replay (issue 11, acceptance 1): every fixture runs over
// `deloreis serve` and over `deloreis mcp --tools all`, each on a fresh
// copy of its seed project, and the two must answer alike; a golden or
// negative fixture's stdio response must equal the committed one byte for
// byte; a framing pair must answer alike once the string and the ids it
// moves are masked.

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/internal/testenv"
	"github.com/deloreis/deloreis/jcs"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fixtureCommitDate is the commit time of every fixture server, so that
// commit ids are the same on every run and on both transports.
const fixtureCommitDate = "2026-12-01T10:00:00Z"

// fixtureSeeds are the starting projects a fixture names: the golden sessions'.
var fixtureSeeds = map[string]func(testing.TB) string{
	"spec":    specProject,
	"expert":  expertProject,
	"branch":  branchProject,
	"declare": declareProject,
}

// fxAnswer is one response, as the comparison sees it.
type fxAnswer struct {
	raw    string          // stdio: the response line; MCP: the structured content
	result json.RawMessage // JCS of the response minus id and ok: the result fields or {"error":…}
	ok     bool
}

// fxTransport sends one request line and returns its answer.
type fxTransport interface {
	call(req []byte) fxAnswer
	// store is the git directory of the project the transport serves.
	store() string
}

// fxStdio is a `deloreis serve` subprocess.
type fxStdio struct {
	s   *server
	dir string // the project
}

func (st fxStdio) store() string { return filepath.Join(st.dir, lorestore.DefaultDir) }

func (st fxStdio) call(req []byte) fxAnswer {
	st.s.t.Helper()
	line := st.s.call(string(req))
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		st.s.t.Fatalf("response %s: %v", line, err)
	}
	ok := string(m["ok"]) == "true"
	delete(m, "id")
	delete(m, "ok")
	return fxAnswer{raw: line, result: fxCanonical(st.s.t, m), ok: ok}
}

// fxMCP is a `deloreis mcp --tools all` subprocess under go-sdk's
// client: a request line becomes a tool call whose arguments are the
// params and the two reserved envelope fields.
type fxMCP struct {
	t   testing.TB
	ctx context.Context // bounds every call: a hung server fails the test
	cs  *mcp.ClientSession
	dir string // the project
}

func (mt fxMCP) store() string { return filepath.Join(mt.dir, lorestore.DefaultDir) }

func startMCPFixture(t testing.TB, dir string) fxMCP {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.Command(binary(t), "mcp", "--tools", "all", "--project", dir)
	cmd.Env = append(os.Environ(), "DELOREIS_COMMIT_DATE="+fixtureCommitDate, "DELOREIS_AUTHOR=Spec Keeper <keeper@deloreis.invalid>")
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fixtures", Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("mcp close: %v", err)
		}
		if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
			t.Errorf("deloreis mcp did not exit 0: %v", cmd.ProcessState)
		}
	})
	return fxMCP{t: t, ctx: ctx, cs: cs, dir: dir}
}

func (mt fxMCP) call(req []byte) fxAnswer {
	mt.t.Helper()
	var env fxEnvelope
	if err := json.Unmarshal(req, &env); err != nil {
		mt.t.Fatalf("request %s: %v", req, err)
	}
	args := map[string]json.RawMessage{}
	if len(env.Params) > 0 && string(env.Params) != "null" {
		if err := json.Unmarshal(env.Params, &args); err != nil {
			mt.t.Fatalf("params of %s are no object: %v", req, err)
		}
	}
	for k, v := range map[string]*string{mcpserve.ArgExpectedDigest: env.ExpectedDigest, mcpserve.ArgIdempotencyKey: env.IdempotencyKey} {
		if v != nil {
			args[k], _ = json.Marshal(*v)
		}
	}
	res, err := mt.cs.CallTool(mt.ctx, &mcp.CallToolParams{Name: mcpserve.ToolName(env.Op), Arguments: args})
	if err != nil {
		mt.t.Fatalf("%s over MCP: %v", env.Op, err)
	}
	if res.StructuredContent == nil {
		mt.t.Fatalf("%s over MCP: no structured content (isError %v)", env.Op, res.IsError)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		mt.t.Fatal(err)
	}
	// The structured content is the response line without id and ok: it
	// keeps to the op's committed schema (DL-0429).
	if err := testenv.DLISchemas(mt.t, "../..").Structured(env.Op, b, res.IsError); err != nil {
		mt.t.Errorf("%s over MCP: %v", env.Op, err)
	}
	return fxAnswer{raw: string(b), result: fxCanonical(mt.t, json.RawMessage(b)), ok: !res.IsError}
}

// fxCanonical is the RFC 8785 form of v.
func fxCanonical(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	c, err := jcs.Transform(b)
	if err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return c
}

// fxStep is one call of a run and its answer.
type fxStep struct {
	label string
	req   []byte
	fxAnswer
	// branches, on the request only: the store's HEAD, packed-refs and
	// refs before and after it (testenv.Branches).
	branchesBefore, branchesAfter map[string]string
}

// fxRun is what one transport answered to a fixture's calls, in order.
type fxRun []fxStep

func (r fxRun) find(label string) fxStep {
	for _, s := range r {
		if s.label == label {
			return s
		}
	}
	return fxStep{}
}

// runFixture sends the fixture's calls with s for {S}: setup (each must
// succeed), the check read, the request, the check read again, then the
// after reads (each must succeed).
func runFixture(t testing.TB, tr fxTransport, f *opFixture, s string) fxRun {
	t.Helper()
	var out fxRun
	var indexed []fxAnswer // setup, request, after: what {=i/pointer} reads
	send := func(label string, raw json.RawMessage, mustOK, index bool) {
		req := fxExpand(t, raw, s, indexed)
		var before map[string]string
		if label == "request" {
			before = testenv.Branches(t, tr.store())
		}
		a := tr.call(req)
		if mustOK && !a.ok {
			t.Fatalf("%s: %s answered %s", f.path, label, a.raw)
		}
		step := fxStep{label: label, req: req, fxAnswer: a}
		if before != nil {
			step.branchesBefore, step.branchesAfter = before, testenv.Branches(t, tr.store())
		}
		out = append(out, step)
		if index {
			indexed = append(indexed, a)
		}
	}
	for i, r := range f.Setup {
		send(fmt.Sprintf("setup %d", i), r, true, true)
	}
	if len(f.Check) > 0 {
		send("check before", f.Check, false, false)
	}
	send("request", f.Request, false, true)
	if len(f.Check) > 0 {
		send("check after", f.Check, false, false)
	}
	for i, r := range f.After {
		send(fmt.Sprintf("after %d", i), r, true, true)
	}
	return out
}

// fxRefPattern is {=i/json/pointer}: a string of an earlier call's answer.
var fxRefPattern = regexp.MustCompile(`\{=(\d+)(/[^}]*)\}`)

// fxExpand makes the request line: {S} becomes s (JSON-escaped), a
// reference becomes the string it points at.
func fxExpand(t testing.TB, raw json.RawMessage, s string, earlier []fxAnswer) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("request %s: %v", raw, err)
	}
	esc, _ := json.Marshal(s)
	text := strings.ReplaceAll(b.String(), "{S}", string(esc[1:len(esc)-1]))
	var bad error
	text = fxRefPattern.ReplaceAllStringFunc(text, func(ref string) string {
		m := fxRefPattern.FindStringSubmatch(ref)
		i, _ := strconv.Atoi(m[1])
		if i >= len(earlier) {
			bad = fmt.Errorf("%s: no call %d before", ref, i)
			return ref
		}
		v, err := fxPointer(earlier[i].result, m[2])
		if err != nil {
			bad = fmt.Errorf("%s: %v", ref, err)
		}
		q, _ := json.Marshal(v) // the reference sits inside a JSON string
		return string(q[1 : len(q)-1])
	})
	if bad != nil {
		t.Fatal(bad)
	}
	return []byte(text)
}

// fxPointer reads the string at an RFC 6901 pointer (no escapes).
func fxPointer(doc json.RawMessage, ptr string) (string, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return "", err
	}
	for _, tok := range strings.Split(ptr, "/")[1:] {
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return "", fmt.Errorf("no element %s in %s", tok, doc)
			}
			v = x[i]
		default:
			return "", fmt.Errorf("nothing at %s in %s", ptr, doc)
		}
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s is no string in %s", ptr, doc)
	}
	return s, nil
}

// fxSameAnswers requires two runs of one fixture to answer alike, call by
// call: the same success, the same result fields or typed error.
func fxSameAnswers(t testing.TB, name string, stdio, other fxRun) {
	t.Helper()
	for _, d := range fxAnswerDiffs(stdio, other) {
		t.Errorf("%s: %s", name, d)
	}
}

// fxAnswerDiffs lists the calls two runs answered differently.
func fxAnswerDiffs(stdio, other fxRun) []string {
	if len(stdio) != len(other) {
		return []string{fmt.Sprintf("%d calls over stdio, %d over MCP", len(stdio), len(other))}
	}
	var out []string
	for i := range stdio {
		a, b := stdio[i], other[i]
		if a.ok != b.ok || !bytes.Equal(a.result, b.result) {
			out = append(out, fmt.Sprintf("%s %s differs:\n stdio ok=%v %s\n mcp   ok=%v %s", a.label, a.req, a.ok, a.result, b.ok, b.result))
		}
	}
	return out
}

// fxFresh starts a transport on a fresh copy of the fixture's seed.
func fxFresh(t testing.TB, f *opFixture, overMCP bool) fxTransport {
	t.Helper()
	dir := fixtureSeeds[f.Seed](t)
	if overMCP {
		return startMCPFixture(t, dir)
	}
	return fxStdio{startServerAt(t, fixtureCommitDate, "--project", dir), dir}
}

// TestFixtureReplay runs every fixture over stdio and over MCP.
func TestFixtureReplay(t *testing.T) {
	fixtures := loadFixtures(t)
	binary(t) // built once, before the parallel subtests
	for _, f := range fixtures {
		name := f.Kind + "/" + f.Op
		if f.Killed != "" {
			name = "killed/" + f.Killed
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, ok := fixtureSeeds[f.Seed]; !ok {
				t.Fatalf("%s: unknown seed %q", f.path, f.Seed)
			}
			switch f.Kind {
			case "golden", "negative":
				replayExact(t, f)
			case "framing":
				replayFraming(t, f)
			default:
				t.Fatalf("%s: unknown kind %q", f.path, f.Kind)
			}
		})
	}
}

// replayExact runs a golden or negative fixture: the stdio response is the
// committed one (rewritten under -update), a negative's error is the typed
// one and its check read answers alike before and after, and MCP answers
// every call as stdio does.
func replayExact(t *testing.T, f *opFixture) {
	stdio := runFixture(t, fxFresh(t, f, false), f, "")
	got := stdio.find("request")
	if f.Kind == "negative" {
		fxCheckNegative(t, f, stdio)
	} else if !got.ok {
		t.Errorf("%s: the golden request failed: %s", f.path, got.raw)
	}
	if *update {
		f.Response = json.RawMessage(got.raw)
		writeFixture(t, f)
	} else {
		var want bytes.Buffer
		if err := json.Compact(&want, f.Response); err != nil {
			t.Fatalf("%s: response: %v", f.path, err)
		}
		if want.String() != got.raw {
			t.Errorf("%s: the stdio response differs:\n got  %s\n want %s", f.path, got.raw, want.String())
		}
	}
	if f.StdioOnly != "" {
		if f.Error != nil && f.Error.Code == "killed-op" {
			fxKilledOverMCP(t, f.Killed)
		}
		return
	}
	overMCP := runFixture(t, fxFresh(t, f, true), f, "")
	if f.Kind == "negative" {
		fxCheckNegative(t, f, overMCP)
	}
	fxSameAnswers(t, f.path, stdio, overMCP)
}

// fxKilledOverMCP: MCP offers no tool for a killed op, and a call of its
// name is refused (DL-0181).
func fxKilledOverMCP(t *testing.T, op string) {
	mt := startMCPFixture(t, specProject(t))
	tools, err := mt.cs.ListTools(mt.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == mcpserve.ToolName(op) {
			t.Errorf("MCP offers killed op %s as tool %s", op, tool.Name)
		}
	}
	res, err := mt.cs.CallTool(mt.ctx, &mcp.CallToolParams{Name: mcpserve.ToolName(op), Arguments: map[string]any{}})
	if err == nil && !res.IsError {
		t.Errorf("MCP answered a call of killed op %s: %+v", op, res)
	}
}

// fxCheckNegative reports what fxNegativeProblems finds.
func fxCheckNegative(t *testing.T, f *opFixture, r fxRun) {
	t.Helper()
	for _, p := range fxNegativeProblems(f, r) {
		t.Errorf("%s: %s", f.path, p)
	}
}

// fxNegativeProblems: the request fails with the fixture's typed error,
// the check read answers the same before and after it, and the store's
// branches (HEAD, packed-refs, every ref) are byte for byte what they were
// before it: a refusal that committed anyway moves one (DL-0431).
func fxNegativeProblems(f *opFixture, r fxRun) []string {
	var out []string
	got := r.find("request")
	var e struct {
		Error fixtureError `json:"error"`
	}
	if err := json.Unmarshal(got.result, &e); err != nil || got.ok || f.Error == nil || e.Error != *f.Error {
		out = append(out, fmt.Sprintf("want error %+v, got %s", f.Error, got.raw))
	}
	if e.Error.Class == "internal" {
		out = append(out, fmt.Sprintf("an internal error is no typed refusal: %s", got.raw))
	}
	if len(f.Check) > 0 {
		before, after := r.find("check before"), r.find("check after")
		if !before.ok || before.raw != after.raw {
			out = append(out, fmt.Sprintf("the state moved:\n before %s\n after  %s", before.raw, after.raw))
		}
	}
	if got.branchesBefore == nil {
		out = append(out, "the branches were not read around the request")
	} else {
		for _, d := range testenv.BranchDiffs(got.branchesBefore, got.branchesAfter) {
			out = append(out, "the refused request moved the branches: "+d)
		}
	}
	return out
}

// writeFixture rewrites a fixture file, indented, strings as the worker
// wrote them (no HTML escaping), so that its response compacts back to the
// response line byte for byte.
func writeFixture(t testing.TB, f *opFixture) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFixtureAnswerDiffs: the replay comparison reports a call whose
// result or success differs between the transports, and a missing call.
func TestFixtureAnswerDiffs(t *testing.T) {
	a := func(result string, ok bool) fxStep {
		return fxStep{label: "request", fxAnswer: fxAnswer{result: json.RawMessage(result), ok: ok}}
	}
	tests := []struct {
		name         string
		stdio, other fxRun
		diffs        int
	}{
		{"alike", fxRun{a(`{"x":1}`, true)}, fxRun{a(`{"x":1}`, true)}, 0},
		{"another result", fxRun{a(`{"x":1}`, true)}, fxRun{a(`{"x":2}`, true)}, 1},
		{"an error marked as success", fxRun{a(`{"error":{}}`, false)}, fxRun{a(`{"error":{}}`, true)}, 1},
		{"a call missing", fxRun{a(`{}`, true), a(`{}`, true)}, fxRun{a(`{}`, true)}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := fxAnswerDiffs(tc.stdio, tc.other); len(got) != tc.diffs {
				t.Fatalf("%d diffs, want %d: %v", len(got), tc.diffs, got)
			}
		})
	}
}

// TestFixtureNegativeChecks: the negative check tells a refusal that left
// the store alone from one that succeeded, carries another error, moved
// the check read, or moved the branches (HEAD, a ref, packed-refs) — the
// last of which the check read alone cannot see.
func TestFixtureNegativeChecks(t *testing.T) {
	f := &opFixture{Error: &fixtureError{Class: "refused", Code: "stale-fence"}, Check: json.RawMessage(`{}`)}
	refs := map[string]string{"HEAD": "ref: refs/heads/main\n", "refs/heads/main": "aaaa\n"}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range refs {
			m[a] = b
		}
		m[k] = v
		return m
	}
	run := func(result string, ok bool, checkAfter string, after map[string]string) fxRun {
		return fxRun{
			{label: "check before", fxAnswer: fxAnswer{raw: `{"x":1}`, ok: true}},
			{label: "request", fxAnswer: fxAnswer{raw: result, result: json.RawMessage(result), ok: ok}, branchesBefore: refs, branchesAfter: after},
			{label: "check after", fxAnswer: fxAnswer{raw: checkAfter, ok: true}},
		}
	}
	const refusal = `{"error":{"class":"refused","code":"stale-fence"}}`
	for _, tc := range []struct {
		name     string
		r        fxRun
		problems int
	}{
		{"the refusal", run(refusal, false, `{"x":1}`, refs), 0},
		{"a success", run(`{"committed":[]}`, true, `{"x":1}`, refs), 1},
		{"another code", run(`{"error":{"class":"refused","code":"other"}}`, false, `{"x":1}`, refs), 1},
		{"the check read moved", run(refusal, false, `{"x":2}`, refs), 1},
		{"the branch moved", run(refusal, false, `{"x":1}`, with("refs/heads/main", "bbbb\n")), 1},
		{"a branch made", run(refusal, false, `{"x":1}`, with("refs/heads/side", "bbbb\n")), 1},
		{"refs packed", run(refusal, false, `{"x":1}`, with("packed-refs", "bbbb refs/heads/main\n")), 1},
		{"HEAD moved", run(refusal, false, `{"x":1}`, with("HEAD", "ref: refs/heads/side\n")), 1},
		{"the branches unread", func() fxRun {
			r := run(refusal, false, `{"x":1}`, nil)
			r[1].branchesBefore = nil
			return r
		}(), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fxNegativeProblems(f, tc.r); len(got) != tc.problems {
				t.Fatalf("%d problems, want %d: %v", len(got), tc.problems, got)
			}
		})
	}
}
