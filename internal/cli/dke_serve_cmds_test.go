package cli

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/dke/service"
	"github.com/deloreis/deloreis/internal/testenv"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const dkeTestModule = `def restock(id: string):
    remember(Widget[id].stock, 10, "restock")

def count_on_hand(id: string) -> int:
    c = current(Widget[id].stock)
    if c.found:
        return int(c.value)
    return 0
`

// dkeFixture is a lorestore with DKE stores alpha (the inventory module)
// and beta (empty), and files to compile and run.
type dkeFixture struct{ dir, store, module, prog, failing, broken string }

func newDKEFixture(t *testing.T) dkeFixture {
	t.Helper()
	t.Setenv("DELOREIS_COMMIT_DATE", "2026-12-01T12:00:00Z")
	dir := t.TempDir()
	f := dkeFixture{dir: dir, store: filepath.Join(dir, "s.lore"),
		module: filepath.Join(dir, "inventory.dpy"), prog: filepath.Join(dir, "restock.dpy"),
		failing: filepath.Join(dir, "fail.dpy"), broken: filepath.Join(dir, "watch.dpy")}
	for path, src := range map[string]string{
		f.module:  dkeTestModule,
		f.prog:    "import inventory\ninventory.restock(\"widget-1\")\nprint(inventory.count_on_hand(\"widget-1\"))\n",
		f.failing: "remember(Widget.w9.stock, 3, \"count\")\nx = 1 / 0\n",
		f.broken:  "def watch(n: int):\n    while n:\n        print(n)\n",
	} {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, "--store", f.store, "init")
	mustRun(t, "--store", f.store, "dke", "store", "create", "alpha")
	mustRun(t, "--store", f.store, "dke", "store", "create", "beta")
	mustRun(t, "--store", f.store, "dke", "compile", "inventory", f.module, "--store-id", "alpha")
	return f
}

func (f dkeFixture) head(t *testing.T) string {
	return strings.TrimSpace(mustGit(t, f.store, "rev-parse", "main"))
}

// TestDKECallCommands: compile, run and checkup print the tool's text and
// exit 1 when the call is refused or the program fails; a refused compile
// commits nothing, a failed run keeps its earlier write.
func TestDKECallCommands(t *testing.T) {
	f := newDKEFixture(t)
	s := "--store=" + f.store
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		out     string // a line the output holds
		commits int    // commits the call adds
	}{
		{"run", []string{"dke", "run", f.prog, "--store-id", "alpha"}, 0, "OK program: 1 claim written, 0 claims removed, 1 line printed\nremember Widget.widget-1.stock = 10 from \"restock\"\nprint: 10\n", 1},
		{"run elsewhere", []string{"dke", "run", f.prog, "--store-id", "beta"}, 1, "error:", 0},
		{"failing run", []string{"dke", "run", f.failing, "--store-id", "beta"}, 1, "error: program failed", 1},
		{"broken compile", []string{"dke", "compile", "watch", f.broken, "--store-id", "alpha"}, 1, "nothing was stored", 0},
		{"bad language", []string{"dke", "compile", "inventory", f.module, "--language", "xx"}, 2, "", 0}, // a usage error (TestDKEFlagsCheckedFirst)
		{"same source again", []string{"dke", "compile", "inventory", f.module, "--store-id", "alpha"}, 0, "inventory", 0},
		{"checkup", []string{"dke", "checkup", "--store-id", "alpha"}, 0, "checkup: 1 claim", 0},
		{"checkup beta", []string{"dke", "checkup", "--store-id", "beta"}, 0, "checkup: 1 claim", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := strings.Count(mustGit(t, f.store, "rev-list", "main"), "\n")
			out, errs, code := deloreis(t, append([]string{s}, tc.args...)...)
			if code != tc.code || !strings.Contains(out, tc.out) {
				t.Fatalf("exit %d (want %d)\nstdout %q (want %q)\nstderr %q", code, tc.code, out, tc.out, errs)
			}
			if n := strings.Count(mustGit(t, f.store, "rev-list", "main"), "\n") - before; n != tc.commits {
				t.Fatalf("%d commits added, want %d", n, tc.commits)
			}
		})
	}
	// The failed run's write before the failure persisted, in store beta.
	if out := mustGit(t, f.store, "ls-tree", "-r", "--name-only", "main", "dke/beta/claims/Widget"); strings.Count(out, "\n") != 1 {
		t.Fatalf("beta's claims after the failed run: %q", out)
	}
}

// dkeHTTP runs `deloreis dke mcp --http 127.0.0.1:0` over the fixture's
// store and returns its endpoint; the cleanup stops it with SIGTERM and
// requires exit status 0.
func dkeHTTP(t *testing.T, store string) string {
	t.Helper()
	return startHTTPServer(t, exec.Command(binary(t), "--store", store, "dke", "mcp", "--http", "127.0.0.1:0"), "dke mcp --http")
}

// keyed is a client transport presenting one key.
type keyed struct{ key string }

func (k keyed) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+k.key)
	return http.DefaultTransport.RoundTrip(r)
}

func dkeClient(t *testing.T, endpoint, key string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: keyed{key}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func newKey(t *testing.T, store, id, mode string) string {
	t.Helper()
	return strings.TrimSpace(mustRun(t, "--store", store, "dke", "key", "create", "--store-id", id, "--"+mode))
}

// TestDKEKeysOverHTTP is acceptance 5: over HTTP a read key's run and
// compile are refused with nothing written and its checkup works; a key
// for store alpha can neither read nor write beta; no key or an unknown
// key gets 401 and no tool runs.
func TestDKEKeysOverHTTP(t *testing.T) {
	f := newDKEFixture(t)
	readA, writeA := newKey(t, f.store, "alpha", "read"), newKey(t, f.store, "alpha", "write")
	endpoint := dkeHTTP(t, f.store)
	src := dkeTestModule
	run := map[string]any{"source": "import inventory\ninventory.restock(\"w-2\")\n", "store_id": "alpha"}
	for _, tc := range []struct {
		name, key, tool string
		args            map[string]any
		refused         bool
		text            string // what the text content holds
		commits         int
	}{
		{"read key runs", readA, "run", run, true, "read key may not call run", 0},
		{"read key compiles", readA, "compile", map[string]any{"name": "inv2", "source": src, "store_id": "alpha"}, true, "read key may not call compile", 0},
		{"read key forgets", readA, "forget_module", map[string]any{"name": "inventory", "confirm": true, "store_id": "alpha"}, true, "read key", 0},
		{"read key checkup", readA, "checkup", map[string]any{"store_id": "alpha"}, false, "checkup: 0 claims", 0},
		{"read key lists", readA, "list_modules", map[string]any{"store_id": "alpha"}, false, "inventory", 0},
		{"read key, other store", readA, "checkup", map[string]any{"store_id": "beta"}, true, `not store "beta"`, 0},
		{"read key, default store", readA, "checkup", map[string]any{}, true, `not store "default"`, 0},
		{"write key, other store", writeA, "run", map[string]any{"source": run["source"], "store_id": "beta"}, true, `not store "beta"`, 0},
		{"write key, other store read", writeA, "list_modules", map[string]any{"store_id": "beta"}, true, `not store "beta"`, 0},
		{"write key runs", writeA, "run", run, false, "OK program: 1 claim written", 1},
		{"read key sees it", readA, "checkup", map[string]any{"store_id": "alpha"}, false, "checkup: 1 claim", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := f.head(t)
			cs := dkeClient(t, endpoint, tc.key)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			text := ""
			if len(res.Content) == 1 {
				text = res.Content[0].(*mcp.TextContent).Text
			}
			if res.IsError != tc.refused || !strings.Contains(text, tc.text) {
				t.Fatalf("isError %v (want %v), text %q (want %q)", res.IsError, tc.refused, text, tc.text)
			}
			after := f.head(t)
			if n := strings.Count(mustGit(t, f.store, "rev-list", before+".."+after), "\n"); n != tc.commits {
				t.Fatalf("%d commits, want %d", n, tc.commits)
			}
		})
	}

	// No key, a malformed or unknown key: 401 before any tool runs.
	before := testenv.Branches(t, f.store)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run","arguments":{"source":"remember(Widget.x.stock, 1, \"s\")","store_id":"alpha"}}}`
	for _, auth := range []string{"", "Bearer", "Bearer dke_w_0123", "Basic " + writeA} {
		req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(call))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, resp.StatusCode)
		}
	}
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint}
	if _, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(context.Background(), tr, nil); err == nil {
		t.Error("a client without a key connected")
	}
	testenv.SameBranches(t, "a refused request", before, testenv.Branches(t, f.store))
}

// TestDKEMCPStdio: over stdio (a trusted caller, no keys) the server
// offers the thirteen tools, or those --tools names, and answers with the
// transcript text and _meta.status; without --store it serves the demo.
func TestDKEMCPStdio(t *testing.T) {
	f := newDKEFixture(t)
	session := func(args ...string) *mcp.ClientSession {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		t.Cleanup(cancel)
		cmd := exec.Command(binary(t), append([]string{"dke", "mcp"}, args...)...)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	for _, tc := range []struct {
		tools string
		want  int
	}{{"all", 13}, {"read", len(service.ReadOnlyTools())}, {"run,checkup", 2}} {
		if got := toolNames(t, session("--store", f.store, "--tools", tc.tools)); len(got) != tc.want {
			t.Errorf("--tools %s: %d tools %v, want %d", tc.tools, len(got), got, tc.want)
		}
	}
	if _, errs, code := deloreis(t, "--store", f.store, "dke", "mcp", "--tools", "nosuch"); code != 2 || !strings.Contains(errs, "nosuch") {
		t.Errorf("--tools nosuch: exit %d, %q", code, errs)
	}
	if _, _, code := deloreis(t, "dke", "mcp", "--http", "0.0.0.0:0"); code != 2 {
		t.Errorf("a non-loopback --http: exit %d, want 2", code)
	}
	demo := session()
	res, err := demo.CallTool(context.Background(), &mcp.CallToolParams{Name: "run",
		Arguments: map[string]any{"source": "import inventory\nprint(inventory.count_on_hand(\"widget-1\"))\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; res.IsError || res.Meta["status"] != "success" || !strings.HasSuffix(text, "print: 10\n") {
		t.Fatalf("the demo store's run: isError %v, _meta %v, text %q", res.IsError, res.Meta, text)
	}
}

// dkeInspectorCall runs tools/call through the inspector and returns the
// printed result, checking isError and the exit status (5 for a tool
// error) against wantErr.
func dkeInspectorCall(t *testing.T, c mcpClients, tool string, args map[string]any, wantErr bool, server []string) map[string]any {
	t.Helper()
	a := mustJSON(t, args)
	out, code := c.inspect(t, []string{"--method", "tools/call", "--tool-name", tool, "--tool-args-json", a}, server...)
	res, _ := out["result"].(map[string]any)
	if isErr, _ := res["isError"].(bool); isErr != wantErr || wantErr != (code == 5) || (!wantErr && code != 0) {
		t.Fatalf("%s: exit %d, isError %v, want error %v: %v", tool, code, res["isError"], wantErr, out)
	}
	return res
}

func resultText(res map[string]any) string {
	content, _ := res["content"].([]any)
	if len(content) != 1 {
		return ""
	}
	first, _ := content[0].(map[string]any)
	s, _ := first["text"].(string)
	return s
}

// TestDKEInspectorStdio is acceptance 4: the real MCP Inspector CLI lists
// the DKE tools over stdio as the registry has them (--strict), and in
// separate sessions compiles a module (a commit), runs a program that
// calls it (the transcript, and its write), and gets a compile refusal
// with _meta.status compile_error and nothing stored.
func TestDKEInspectorStdio(t *testing.T) {
	c := installedClients(t)
	f := newDKEFixture(t)
	server := []string{binary(t), "--store", f.store, "dke", "mcp"}
	out, code := c.inspect(t, []string{"--method", "tools/list", "--strict"}, server...)
	if code != 0 {
		t.Fatalf("tools/list: exit %d: %v", code, out)
	}
	s, err := lorestore.Open(f.store, lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	reg, err := (&globals{}).dkeRegistry(s)
	if err != nil {
		t.Fatal(err)
	}
	checkToolList(t, out, reg, worker.ProfileExtended)

	before := f.head(t)
	res := dkeInspectorCall(t, c, "compile", map[string]any{"name": "greet", "store_id": "beta",
		"source": "def hello(who: string):\n    print(\"hello\", who)\n"}, false, server)
	meta, _ := res["_meta"].(map[string]any)
	if meta["status"] != "success" || !strings.Contains(resultText(res), "greet.hello") {
		t.Fatalf("compile: _meta %v, text %q", meta, resultText(res))
	}
	if log := mustGit(t, f.store, "log", "--format=%s", before+"..main"); log != "dke compile greet\n" {
		t.Fatalf("the compile's commits: %q", log)
	}
	res = dkeInspectorCall(t, c, "run", map[string]any{"store_id": "beta",
		"source": "import greet\ngreet.hello(\"inspector\")\nremember(Visitor.v1.name, \"inspector\", \"door\")\n"}, false, server)
	if text := resultText(res); !strings.HasPrefix(text, "OK program: 1 claim written") || !strings.Contains(text, "hello inspector") {
		t.Fatalf("run: %q", text)
	}
	if author := mustGit(t, f.store, "log", "-1", "--format=%an", "main"); author != "Inspector\n" {
		t.Fatalf("the run's commit is by %q", author)
	}
	head := f.head(t)
	res = dkeInspectorCall(t, c, "compile", map[string]any{"name": "watch", "store_id": "beta",
		"source": "def watch(n: int):\n    while n:\n        print(n)\n"}, true, server)
	meta, _ = res["_meta"].(map[string]any)
	if ds, _ := meta["diagnostics"].([]any); meta["status"] != "compile_error" || meta["compile_status"] != "parse_error" || len(ds) == 0 {
		t.Fatalf("a broken compile: _meta %v", meta)
	}
	if f.head(t) != head {
		t.Fatal("a refused compile committed")
	}
}

// TestDKEInspectorHTTP: the Inspector reaches dke mcp --http only with a
// key: with a write key it lists the thirteen tools and runs a program
// in the key's store; with none it gets no session.
func TestDKEInspectorHTTP(t *testing.T) {
	c := installedClients(t)
	f := newDKEFixture(t)
	key := newKey(t, f.store, "alpha", "write")
	endpoint := dkeHTTP(t, f.store)
	auth := []string{"--header", "Authorization: Bearer " + key}
	out, code := c.inspect(t, append(auth, "--method", "tools/list"), endpoint)
	tools, _ := out["result"].(map[string]any)["tools"].([]any)
	if code != 0 || len(tools) != 13 {
		t.Fatalf("tools/list with a key: exit %d, %d tools: %v", code, len(tools), out)
	}
	before := f.head(t)
	a := mustJSON(t, map[string]any{"store_id": "alpha", "source": "import inventory\ninventory.restock(\"w-7\")\n"})
	out, code = c.inspect(t, append(auth, "--method", "tools/call", "--tool-name", "run", "--tool-args-json", a), endpoint)
	if res, _ := out["result"].(map[string]any); code != 0 || !strings.HasPrefix(resultText(res), "OK program: 1 claim written") {
		t.Fatalf("run with a key: exit %d: %v", code, out)
	}
	if f.head(t) == before {
		t.Fatal("the run committed nothing")
	}
	if out, code := c.inspect(t, []string{"--method", "tools/list"}, endpoint); code == 0 || out["result"] != nil {
		t.Fatalf("tools/list without a key: exit %d: %v", code, out)
	}
}

// TestDKEFlagsCheckedFirst (issue 33, table row "flags checked first"): a
// bad flag of dke mcp, compile or run is a usage error (exit 2) before any
// work: no demo store is built (nothing is made in TMPDIR, nothing said of
// a demo), and a store that cannot be opened is not what it reports.
func TestDKEFlagsCheckedFirst(t *testing.T) {
	prog := filepath.Join(t.TempDir(), "p.dpy")
	if err := os.WriteFile(prog, []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "no-such.lore")
	cases := []struct {
		name string
		args []string
		says string // in the usage error
	}{
		{"mcp --tools bogus, demo", []string{"dke", "mcp", "--tools", "bogus"}, `no tool "bogus"`},
		{"mcp --tools with a bad name, demo", []string{"dke", "mcp", "--tools", "run,bogus"}, `no tool "bogus"`},
		{"mcp --tools empty name", []string{"dke", "mcp", "--tools", "run,"}, `no tool ""`},
		{"mcp --tools bogus, a missing store", []string{"--store", missing, "dke", "mcp", "--tools", "bogus"}, `no tool "bogus"`},
		{"mcp --max-line 0, demo", []string{"dke", "mcp", "--max-line", "0"}, "--max-line"},
		{"run --language bogus", []string{"--store", missing, "dke", "run", prog, "--language", "bogus"}, "--language"},
		{"compile --language bogus", []string{"--store", missing, "dke", "compile", "m", prog, "--language", "bogus"}, "--language"},
		{"checkup --store-id with a ref", []string{"--store", missing, "dke", "checkup", "--store-id", "refs/heads/main"}, "--store-id"},
		{"run --store-id with a ref", []string{"--store", missing, "dke", "run", prog, "--store-id", "../x"}, "--store-id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			_, errs, code := deloreis(t, c.args...)
			if code != 2 || !strings.Contains(errs, c.says) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errs, c.says)
			}
			if strings.Contains(errs, "demo") {
				t.Errorf("the demo store was built: %q", errs)
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("work was done in TMPDIR: %v", left)
			}
		})
	}
}
