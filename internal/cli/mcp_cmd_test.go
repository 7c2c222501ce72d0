package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSession starts `deloreis mcp` with args under go-sdk's client over
// its stdio (CommandTransport).
func mcpSession(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cmd := exec.Command(binary(t), append([]string{"mcp"}, args...)...)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
			t.Errorf("deloreis mcp did not exit 0: %v", cmd.ProcessState)
		}
	})
	return cs
}

func toolNames(t *testing.T, cs *mcp.ClientSession) map[string]bool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, tool := range res.Tools {
		out[tool.Name] = true
	}
	if res.NextCursor != "" {
		t.Fatalf("tools/list paged; the test reads one page")
	}
	return out
}

// TestMCPCommand: `deloreis mcp` over stdio lists the fiction profile (no
// dli.schema) and, with --tools all, every op; a staging call and a read
// answer with structured content, a stale fence is a refusal result.
func TestMCPCommand(t *testing.T) {
	proj := specProject(t)
	all := toolNames(t, mcpSession(t, "--project", proj, "--tools", "all"))
	if !all["dli_schema"] || !all["author_add_fact"] {
		t.Fatalf("--tools all: %v", all)
	}
	cs := mcpSession(t, "--project", proj)
	fiction := toolNames(t, cs)
	if fiction["dli_schema"] || !fiction["author_add_entity"] || len(fiction) >= len(all) {
		t.Fatalf("fiction profile: %d tools %v (all %d)", len(fiction), fiction, len(all))
	}
	call := func(name string, args map[string]any) (map[string]any, bool) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %s", name, b)
		}
		checkToolSchema(t, name, b, res.IsError)
		return m, res.IsError
	}
	open, isErr := call("author_open", map[string]any{"scope": "storybook"})
	if isErr || open["workspace"] != "ws-1" || open["id"] != nil || open["ok"] != nil {
		t.Fatalf("open: %v", open)
	}
	d0 := open["workspace_digest"]
	prov := map[string]any{"kind": "proposed", "origin": "session-mcp"}
	add, isErr := call("author_add_entity", map[string]any{"workspace": "ws-1", "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prov, "expected_digest": d0})
	if isErr || add["workspace_digest"] == d0 {
		t.Fatalf("add: %v", add)
	}
	st, isErr := call("author_status", map[string]any{"workspace": "ws-1"})
	if isErr || st["workspace_digest"] != add["workspace_digest"] || !strings.Contains(mustJSON(t, st), "mireth") {
		t.Fatalf("status: %v", st)
	}
	stale, isErr := call("author_add_entity", map[string]any{"workspace": "ws-1", "kind": "person", "id": "anwen", "name": "Anwen", "provenance": prov, "expected_digest": d0})
	if e, _ := stale["error"].(map[string]any); !isErr || e["code"] != "stale-fence" {
		t.Fatalf("stale: %v", stale)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMCPToolsFlag: --tools takes fiction or all; anything else is a usage
// error (exit 2) before any project is opened.
func TestMCPToolsFlag(t *testing.T) {
	if _, errs, code := deloreis(t, "mcp", "--tools", "some"); code != 2 || !strings.Contains(errs, "--tools") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

// TestMCPHTTPBind: a non-loopback address with no token is a usage error,
// before any project is loaded.
func TestMCPHTTPBind(t *testing.T) {
	t.Setenv("DELOREIS_MCP_TOKEN", "")
	if _, errs, code := deloreis(t, "mcp", "--http", "0.0.0.0:0"); code != 2 || !strings.Contains(errs, "bearer token") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

// TestMCPHTTPCommand runs `deloreis mcp --http 127.0.0.1:0` and talks to
// it with go-sdk's streamable HTTP client: the tools of the profile, one
// call; SIGTERM ends it with status 0.
func TestMCPHTTPCommand(t *testing.T) {
	cmd := exec.Command(binary(t), "mcp", "--http", "127.0.0.1:0", "--project", specProject(t))
	// Standard error is an os.Pipe of our own, not StderrPipe, so that
	// what the server writes as it stops can still be read after Wait.
	stderr, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stderr)
	endpoint := ""
	for sc.Scan() {
		if _, after, ok := strings.Cut(sc.Text(), "streamable HTTP at "); ok {
			endpoint = after
			break
		}
	}
	if endpoint == "" {
		t.Fatal("the server named no endpoint")
	}
	rest := make(chan string, 1)
	go func() {
		var b strings.Builder
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
		}
		rest <- b.String()
	}()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools/list: %v (%d tools)", err, len(tools.Tools))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "author_open", Arguments: map[string]any{"scope": "storybook"}})
	if err != nil || res.IsError {
		t.Fatalf("author_open: %v %+v", err, res)
	}
	if m, _ := res.StructuredContent.(map[string]any); m["workspace"] != "ws-1" {
		t.Fatalf("author_open answered %v", res.StructuredContent)
	}
	cs.Close()
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("mcp --http did not end cleanly: %v; stderr after the endpoint:\n%s", err, <-rest)
	}
}
