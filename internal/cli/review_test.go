package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/demoworld"
	"github.com/deloreis/deloreis/desk/desktest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// reviewProject is the demo project in a folder of the test's.
func reviewProject(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "lore")
	s, err := demoworld.BuildProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	return dir
}

// agentWithDesk starts `deloreis mcp --review 127.0.0.1:0` in dir as an
// agent's MCP client over stdio, and returns the session and the desk's
// address as the server printed it.
func agentWithDesk(t testing.TB, dir string) (*mcp.ClientSession, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.Command(binary(t), "mcp", "--project", dir, "--review", "127.0.0.1:0")
	cmd.Env = wpEnv()
	stderr, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = w
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); stderr.Close() })
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if _, after, ok := strings.Cut(sc.Text(), "review desk at "); ok {
			go io.Copy(io.Discard, stderr)
			return cs, strings.TrimSuffix(after, "/")
		}
	}
	t.Fatal("the server named no review desk")
	return nil, ""
}

// tool calls an MCP tool as the agent and returns its structured result.
func tool(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		b, _ := json.Marshal(res)
		t.Fatalf("%s: %v %s", name, err, b)
	}
	m, _ := res.StructuredContent.(map[string]any)
	return m
}

func prov() map[string]any { return map[string]any{"kind": "proposed", "origin": "agent-1"} }

// browser is a cookie-keeping HTTP client that does not follow redirects.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newBrowser(t *testing.T, base string) *browser {
	return &browser{t: t, base: base, c: desktest.Client()}
}

func (b *browser) do(method, path string, form url.Values, origin string) (int, string, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, b.base+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	return desktest.Send(b.t, b.c, req)
}

// TestReviewDeskOverStdio runs the real binary: an agent stages through
// `deloreis mcp` on stdio while the desk, opened with --review, lists the
// workspace and shows what it stages; a foreign Origin and a page rendered
// before the agent's next change are refused with nothing written; a
// fresh page materializes under a decision that real git shows.
func TestReviewDeskOverStdio(t *testing.T) {
	dir := reviewProject(t)
	cs, base := agentWithDesk(t, dir)
	ws := tool(t, cs, "author_open", map[string]any{"scope": "camelot"})["workspace"].(string)
	tool(t, cs, "author_add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "<img src=x onerror=alert(1)>", "provenance": prov()})
	b := newBrowser(t, base)
	if code, list, _ := b.do("GET", "/", nil, ""); code != 200 || !strings.Contains(list, `href="/ws/`+ws+`"`) {
		t.Fatalf("list %d:\n%s", code, list)
	}
	_, page, _ := b.do("GET", "/ws/"+ws, nil, "")
	if !strings.Contains(page, "person mireth &#34;&lt;img src=x onerror=alert(1)&gt;&#34;") {
		t.Fatalf("the staged declaration is not on the page as text:\n%s", page)
	}
	old := desktest.Form(t, page)
	head := wpGit(t, "--git-dir", filepath.Join(dir, ".lore"), "rev-parse", "main")
	if code, _, _ := b.do("POST", "/ws/"+ws+"/materialize", old, "http://evil.example"); code != 403 {
		t.Fatalf("a foreign origin: %d", code)
	}
	tool(t, cs, "author_add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "oren", "name": "Oren", "provenance": prov()})
	if code, body, _ := b.do("POST", "/ws/"+ws+"/materialize", old, base); code != 409 || !strings.Contains(body, `id="reload"`) {
		t.Fatalf("a stale page: %d\n%s", code, body)
	}
	if got := wpGit(t, "--git-dir", filepath.Join(dir, ".lore"), "rev-parse", "main"); got != head {
		t.Fatalf("a refused decision moved main: %s -> %s", head, got)
	}
	_, page, _ = b.do("GET", "/ws/"+ws, nil, "")
	form := desktest.Form(t, page)
	form.Set("decision", "d-admit-mireth")
	form.Set("reason", "read on the desk")
	if code, body, loc := b.do("POST", "/ws/"+ws+"/materialize", form, base); code != 303 || !strings.HasPrefix(loc, "/commit/") {
		t.Fatalf("materialize: %d %s\n%s", code, loc, body)
	}
	msg := wpGit(t, "--git-dir", filepath.Join(dir, ".lore"), "log", "-1", "--format=%B", "main")
	if !strings.Contains(msg, "Lore-Decision: d-admit-mireth") || !strings.Contains(msg, "Lore-Op: materialize") {
		t.Fatalf("git log -1:\n%s", msg)
	}
}

// TestReviewDeskBind: a desk beyond loopback without a token is a usage
// error, for mcp and for serve, before any project is loaded.
func TestReviewDeskBind(t *testing.T) {
	t.Setenv("DELOREIS_MCP_TOKEN", "")
	for _, args := range [][]string{{"mcp", "--review", "0.0.0.0:0"}, {"serve", "--review", "0.0.0.0:0"}, {"mcp", "--http", "127.0.0.1:0", "--review", "127.0.0.1:0"}} {
		if _, errs, code := deloreis(t, args...); code != 2 || !strings.Contains(errs, "review") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

// TestReviewDeskOverHTTP: under mcp --http the desk answers at / beside
// /mcp, behind the same Origin check.
func TestReviewDeskOverHTTP(t *testing.T) {
	s := startHostileHTTP(t, "mcp", "--http", "127.0.0.1:0", "--project", reviewProject(t)) // ends it by SIGTERM, checking a clean exit
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ws := tool(t, cs, "author_open", map[string]any{"scope": "camelot"})["workspace"].(string)
	b := newBrowser(t, strings.TrimSuffix(s.endpoint, "/mcp"))
	if code, list, _ := b.do("GET", "/", nil, ""); code != 200 || !strings.Contains(list, `href="/ws/`+ws+`"`) {
		t.Fatalf("the desk at /: %d\n%s", code, list)
	}
	if code, _, _ := b.do("GET", "/", nil, "https://evil.example"); code != 403 {
		t.Fatalf("a foreign origin: %d", code)
	}
}
