package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/deloreis/deloreis/internal/testenv"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/objects"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// TestMain gives the tests an author and removes the folder binary built
// the command in (39 MB a run) once every test has ended: a test run
// leaves nothing behind.
func TestMain(m *testing.M) {
	// A commit needs an identity (DL-0458): every test signs as this one,
	// whatever the machine's git config says, unless it sets its own.
	if os.Getenv(authorEnv) == "" {
		os.Setenv(authorEnv, "Deloreis Test <test@deloreis.invalid>")
	}
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// binary builds the deloreis command once per test run, for tests that
// drive it as a subprocess the way a client does; TestMain removes it.
func binary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "deloreis-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "deloreis")
		for _, b := range []struct{ out, pkg string }{{binPath, "../../cmd/deloreis"}} {
			cmd := exec.Command("go", "build", "-o", b.out, b.pkg)
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as README installs them (DL-0333)
			out, err := cmd.CombinedOutput()
			if err != nil {
				binErr = fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
				return
			}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// specProject makes a project whose store holds what the spec's examples
// take for granted: the names entity.unknown offers as candidates, the era
// and the later event the examples order, and a committed question with
// options that a fork can open. Commit times and the store id are fixed,
// so every id and digest of a session is the same on every run.
func specProject(t testing.TB) string {
	t.Helper()
	p := objects.Proposed("session-1a0")
	return seedProject(t, seed{scopes: []string{"storybook"}, storeID: "5eed5eed5eed5eed5eed5eed5eed5eed",
		scope: "storybook", summary: "materialize storybook: the spec's setting", objects: []objects.Object{
			&objects.Entity{Kind: objects.KindPerson, Ident: "the-warder", Name: "The Warder", Provenance: p},
			&objects.Entity{Kind: objects.KindPlace, Ident: "the-ward", Name: "The Ward", Provenance: p},
			&objects.Entity{Kind: objects.KindEra, Ident: "the-salt-years", Name: "The Salt Years", Provenance: p},
			&objects.Event{Ident: "the-reclaiming", Era: "the-salt-years", Provenance: p},
			&objects.Question{Ident: "which-way-the-coast-runs", Prompt: "Which way does the coast run?", Options: []objects.Option{
				{Ident: "north", Label: "North", Implies: &objects.GroundAtom{Pred: "coast-runs", Args: []string{"north"}}},
				{Ident: "south", Label: "South"},
			}},
		}})
}

// server is one `deloreis serve` subprocess.
type server struct {
	t   testing.TB
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader

	stopped bool
}

func startServer(t testing.TB, args ...string) *server {
	t.Helper()
	return startServerAt(t, "2026-12-01T10:00:00Z", args...)
}

// startServerAt starts a server whose commits are made at one fixed time.
func startServerAt(t testing.TB, commitDate string, args ...string) *server {
	t.Helper()
	return startLines(t, commitDate, append([]string{"serve"}, args...)...)
}

// startLines starts `deloreis ARGS...` as a line server over pipes (serve,
// or mcp spoken by a plain line client).
func startLines(t testing.TB, commitDate string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	// Fixed commit times and author: a session writes the same ids on every run.
	cmd.Env = append(os.Environ(), "DELOREIS_COMMIT_DATE="+commitDate, "DELOREIS_AUTHOR=Spec Keeper <keeper@deloreis.invalid>")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	t.Cleanup(s.stop)
	return s
}

// call sends one request line and reads one response line.
func (s *server) call(line string) string {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
	resp, err := s.out.ReadString('\n')
	if err != nil {
		s.t.Fatalf("no response to %s: %v", line, err)
	}
	resp = strings.TrimSuffix(resp, "\n")
	// A benchmark times the server, not the test's own checks (the tests
	// validate the same answers): validating a line costs the client some
	// 35 µs, which would be counted as the protocol's.
	if _, timed := s.t.(*testing.B); !timed {
		checkLineSchema(s.t, line, resp)
	}
	return resp
}

// checkLineSchema validates a `deloreis serve` response line against the
// committed response schema of the op its request names
// (contracts/dli-worker/schemas), or, when the request names no op with
// a schema (unknown, killed, not JSON), against the error line every op
// shares: a response outside its schema fails the test (DL-0429).
func checkLineSchema(t testing.TB, req, resp string) {
	t.Helper()
	schemas := testenv.DLISchemas(t, "../..")
	var env struct {
		Op string `json:"op"`
	}
	var err error
	if json.Unmarshal([]byte(req), &env) == nil && schemas.Has(env.Op) {
		err = schemas.Line(env.Op, []byte(resp))
	} else {
		err = schemas.ErrorLine([]byte(resp))
	}
	if err != nil {
		t.Errorf("request %.200s: %v", req, err)
	}
}

// checkToolSchema validates what a `deloreis mcp` tool call put in
// structuredContent against the committed response schema of the tool's
// op, its id and ok put back (DL-0429).
func checkToolSchema(t testing.TB, tool string, structured []byte, isError bool) {
	t.Helper()
	schemas := testenv.DLISchemas(t, "../..")
	for _, op := range schemas.Ops() {
		if mcpserve.ToolName(op) == tool {
			if err := schemas.Structured(op, structured, isError); err != nil {
				t.Errorf("tool %s: %v", tool, err)
			}
			return
		}
	}
	t.Errorf("tool %s names no op with a committed schema", tool)
}

// callJSON sends a request built from its parts and decodes the response.
func (s *server) callJSON(id, op string, params any, env ...string) map[string]any {
	s.t.Helper()
	req := map[string]any{"dli": "2.0.0", "id": id, "op": op, "params": params}
	for i := 0; i+1 < len(env); i += 2 {
		req[env[i]] = env[i+1]
	}
	line, _ := json.Marshal(req)
	var m map[string]any
	if err := json.Unmarshal([]byte(s.call(string(line))), &m); err != nil {
		s.t.Fatal(err)
	}
	return m
}

func (s *server) stop() {
	if s.stopped {
		return // stopped by the test before its cleanup
	}
	s.stopped = true
	s.in.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			s.t.Errorf("serve exited: %v", err)
		}
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		s.t.Error("serve did not exit when its input ended")
	}
}

// TestServeSpecSession drives `deloreis serve` through the spec's examples
// in order (DLI sections 2 and 3.1–3.9) and compares every response, digests
// included, with the golden file (issue 9, acceptance 1).
func TestServeSpecSession(t *testing.T) {
	got := runSession(t, "testdata/serve/spec-session.jsonl", startServer(t, "--project", specProject(t)))
	golden(t, "serve/spec-session", got)
}

// TestServeDemoProject: with no --project, serve opens the bundled demo
// project — its three documents, and a fork of one of its open questions.
func TestServeDemoProject(t *testing.T) {
	s := startServer(t, "--demo")
	for _, scope := range []string{"camelot", "broceliande", "lyonesse"} {
		if m := s.callJSON("o-"+scope, "author.open", map[string]any{"scope": scope}); m["ok"] != true {
			t.Fatalf("open %s: %v", scope, m)
		}
	}
	m := s.callJSON("f", "author.open", map[string]any{"fork": "what-binds-merlin"})
	if m["ok"] != true || m["scope"] != "broceliande" {
		t.Fatalf("fork: %v", m)
	}
	q := s.callJSON("q", "author.questions", map[string]any{"workspace": m["workspace"]})
	if qs, _ := q["questions"].([]any); len(qs) != 1 {
		t.Fatalf("questions: %v", q)
	}
}

// TestServeStopsOnSIGTERM checks that an idle server (its input open, no
// request coming) stops cleanly on SIGTERM, as a supervisor expects: exit
// code 0, soon.
func TestServeStopsOnSIGTERM(t *testing.T) {
	s := startServer(t, "--demo")
	if resp := s.call(`{"dli":"2.0.0","id":"1","op":"dli.version","params":{}}`); !strings.Contains(resp, `"ok":true`) {
		t.Fatalf("dli.version: %s", resp)
	}
	s.stopped = true // stopped here, not by closing its input
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve after SIGTERM: %v, want exit code 0", err)
		}
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		t.Fatal("an idle serve did not stop on SIGTERM")
	}
}
