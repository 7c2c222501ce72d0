package desk

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/demoworld"
	"github.com/deloreis/deloreis/desk/desktest"
	"github.com/deloreis/deloreis/worker"
)

// fixture is a desk over the demo project, an agent's registry beside it
// (the agent stages as over stdio) and a browser-like client.
type fixture struct {
	t      testing.TB
	svc    *author.Service
	reg    *worker.Registry
	desk   *Desk
	srv    *httptest.Server
	client *http.Client
}

func newFixture(t testing.TB, opt Options) *fixture {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "proj")
	s, err := demoworld.BuildProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	svc, err := author.Open(author.OpenOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	f := &fixture{t: t, svc: svc, reg: worker.ProjectRegistry(svc, "test"), desk: New(svc, opt)}
	f.srv = httptest.NewServer(f.desk.Handler())
	t.Cleanup(f.srv.Close)
	f.client = desktest.Client()
	return f
}

// agent calls an op as an agent does, over the worker envelope.
func (f *fixture) agent(op string, params map[string]any) map[string]any {
	f.t.Helper()
	line, _ := json.Marshal(map[string]any{"dli": "2.0.0", "id": "rq", "op": op, "params": params})
	b, _ := json.Marshal(f.reg.Dispatch(context.Background(), line))
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m["ok"] != true {
		f.t.Fatalf("%s: %s", op, b)
	}
	return m
}

func prop() map[string]any { return map[string]any{"kind": "proposed", "origin": "session-1"} }

// get fetches a page and returns its status and body.
func (f *fixture) get(path string, hdr ...string) (int, string) {
	f.t.Helper()
	req, _ := http.NewRequest("GET", f.srv.URL+path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	code, body, _ := desktest.Send(f.t, f.client, req)
	return code, body
}

// post submits a form as a browser on the desk's own origin does.
func (f *fixture) post(path string, form url.Values, hdr ...string) (int, string, string) {
	f.t.Helper()
	req, _ := http.NewRequest("POST", f.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", f.srv.URL)
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	return desktest.Send(f.t, f.client, req)
}

func (f *fixture) head() string {
	f.t.Helper()
	l, err := f.svc.Log(context.Background(), &author.LogParams{Limit: 1})
	if err != nil {
		f.t.Fatal(err)
	}
	return l.Commits[0].Commit
}

func (f *fixture) staged(ws string) int {
	f.t.Helper()
	st, err := f.svc.Status(context.Background(), &author.WorkspaceParams{Workspace: ws})
	if err != nil {
		return -1
	}
	return len(st.Staged)
}

const hostile = `<img src=x onerror=alert(1)></script><script>alert(2)</script>`

// stageHostile opens a workspace and stages an entity whose name and a
// fact whose value are shaped like markup, and a relation to an entity
// nobody declared (a blocking finding with a repair).
func (f *fixture) stageHostile() string {
	ws := f.agent("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	f.agent("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": hostile, "provenance": prop()})
	f.agent("author.add_fact", map[string]any{"workspace": ws, "entity": "mireth", "key": "motto", "value": hostile, "provenance": prop()})
	f.agent("author.add_relation", map[string]any{"workspace": ws, "relation": "serves", "from": "mireth", "to": "galahd", "provenance": prop()})
	return ws
}

// TestPagesShowWhatIsStaged: the list and the workspace page show the
// staged declarations, the blocking finding with its repair and the diff
// rows; text shaped like markup is shown as text, never as markup.
func TestPagesShowWhatIsStaged(t *testing.T) {
	f := newFixture(t, Options{})
	ws := f.stageHostile()
	code, list := f.get("/")
	if code != 200 || !strings.Contains(list, `href="/ws/`+ws+`"`) || !strings.Contains(list, `<strong class="error">`) {
		t.Fatalf("list %d:\n%s", code, list)
	}
	code, page := f.get("/ws/" + ws)
	for _, want := range []string{
		"&lt;img src=x onerror=alert(1)&gt;&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;", // the name, as text
		"entity.unknown", "repair: <b>resolve-entity</b>", "<code>galahad</code>", // the finding and its repair
		`class="diffrow"`, "serves", "blocked: ",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the workspace page (%d) lacks %q", code, want)
		}
	}
	for _, bad := range []string{"<img src=x", "<script>alert", "</script><script>"} {
		if strings.Contains(page, bad) || strings.Contains(list, bad) {
			t.Errorf("a page carries %q as markup", bad)
		}
	}
	if !strings.Contains(f.srvHeader("/ws/"+ws, "Content-Security-Policy"), "script-src 'self'") {
		t.Error("no content security policy")
	}
	// The rows part the list polls for, the picture, the why and the
	// history pages all render.
	for _, p := range []string{"/workspaces.part", "/ws/" + ws + "/picture", "/ws/" + ws + "/digest", "/log", "/branches", "/commit/main", "/merge?source=main"} {
		if code, body := f.get(p); code != 200 || strings.Contains(body, "<img src=x") {
			t.Errorf("%s: %d\n%s", p, code, body)
		}
	}
}

func (f *fixture) srvHeader(path, name string) string {
	resp, err := f.client.Get(f.srv.URL + path)
	if err != nil {
		f.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Header.Get(name)
}

// TestRefusals: a foreign Origin, a foreign Host, a missing or wrong CSRF
// token, a stale digest and a form without a digest are refused, and
// nothing is written: the branch does not move, the workspace keeps what
// it stages.
func TestRefusals(t *testing.T) {
	f := newFixture(t, Options{})
	ws := f.agent("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	f.agent("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()})
	_, page := f.get("/ws/" + ws)
	good := desktest.Form(t, page)
	// The agent stages again: the rendered page's digest goes stale.
	f.agent("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "oren", "name": "Oren", "provenance": prop()})
	_, page2 := f.get("/ws/" + ws)
	fresh := desktest.Form(t, page2)
	with := func(v url.Values, k, val string) url.Values {
		out := url.Values{}
		for kk, vv := range v {
			out[kk] = vv
		}
		if val == "" {
			out.Del(k)
		} else {
			out.Set(k, val)
		}
		return out
	}
	head := f.head()
	for _, tc := range []struct {
		name   string
		path   string
		form   url.Values
		hdr    []string
		status int
		says   string
	}{
		{"foreign origin", "/materialize", fresh, []string{"Origin", "https://evil.example"}, 403, "origin"},
		{"cross-site fetch", "/materialize", fresh, []string{"Sec-Fetch-Site", "cross-site"}, 403, "cross-site"},
		{"foreign host", "/materialize", fresh, []string{"Host", "evil.example:80"}, 403, "host"},
		{"no csrf token", "/materialize", with(fresh, "csrf", ""), nil, 403, "CSRF"},
		{"wrong csrf token", "/materialize", with(fresh, "csrf", strings.Repeat("0", 64)), nil, 403, "CSRF"},
		{"no digest", "/materialize", with(fresh, "digest", ""), nil, 400, "digest"},
		{"stale digest", "/materialize", good, nil, 409, `href="/ws/` + ws + `" id="reload"`},
		{"stale digest, discard", "/discard", good, nil, 409, "Nothing was applied"},
		{"stale digest, one declaration", "/discard-decl", with(good, "decl", strings.Repeat("a", 64)), nil, 409, "reload"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := tc.hdr
			if len(hdr) == 2 && hdr[0] == "Host" {
				req, _ := http.NewRequest("POST", f.srv.URL+"/ws/"+ws+tc.path, strings.NewReader(tc.form.Encode()))
				req.Host = hdr[1]
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				if code, body, _ := desktest.Send(t, f.client, req); code != tc.status || !strings.Contains(body, tc.says) {
					t.Fatalf("got %d %s", code, body)
				}
			} else if code, body, _ := f.post("/ws/"+ws+tc.path, tc.form, hdr...); code != tc.status || !strings.Contains(body, tc.says) {
				t.Fatalf("got %d %s", code, body)
			}
			if f.head() != head || f.staged(ws) != 2 {
				t.Fatalf("something was written: head %s (was %s), %d staged", f.head(), head, f.staged(ws))
			}
		})
	}
	// A GET under a foreign Host (DNS rebinding) is refused too.
	if code, _ := f.get("/", "Host", "evil.example"); code != 403 {
		t.Errorf("foreign host GET: %d", code)
	}
	// The fresh page's form goes through.
	if code, body, loc := f.post("/ws/"+ws+"/materialize", fresh); code != 303 || !strings.HasPrefix(loc, "/commit/") {
		t.Fatalf("fresh materialize: %d %s", code, body)
	}
}

// TestDecisions: each decision form goes through its use case: one
// declaration discarded, a materialize under a new decision with its
// reason (the commit carries the decision), a whole workspace discarded.
func TestDecisions(t *testing.T) {
	f := newFixture(t, Options{})
	ws := f.agent("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	f.agent("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()})
	f.agent("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "oren", "name": "Oren", "provenance": prop()})
	st, _ := f.svc.Status(context.Background(), &author.WorkspaceParams{Workspace: ws})
	_, page := f.get("/ws/" + ws)
	form := desktest.Form(t, page)
	form.Set("decl", st.Staged[1].Decl)
	if code, body, _ := f.post("/ws/"+ws+"/discard-decl", form); code != 303 || f.staged(ws) != 1 {
		t.Fatalf("discard one: %d %s, %d staged", code, body, f.staged(ws))
	}
	_, page = f.get("/ws/" + ws)
	form = desktest.Form(t, page)
	form.Set("decision", "d-keep-mireth")
	form.Set("reason", "the reviewer read it")
	code, body, loc := f.post("/ws/"+ws+"/materialize", form)
	if code != 303 || !strings.HasPrefix(loc, "/commit/") {
		t.Fatalf("materialize: %d %s", code, body)
	}
	_, shown := f.get(loc)
	for _, want := range []string{"Lore-Decision", "d-keep-mireth", "+ person mireth"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the commit page lacks %q:\n%s", want, shown)
		}
	}
	if f.staged(ws) != 0 {
		t.Errorf("still staged after materialize: %d", f.staged(ws))
	}
	_, page = f.get("/ws/" + ws)
	if code, body, loc := f.post("/ws/"+ws+"/discard", desktest.Form(t, page)); code != 303 || loc != "/" || f.staged(ws) != -1 {
		t.Fatalf("discard: %d %s %s", code, body, loc)
	}
}

// TestOpenDesk: a desk reachable beyond loopback answers nothing without
// the bearer token or a session a one-time login link opened; the link
// opens one session once.
func TestOpenDesk(t *testing.T) {
	token := "0123456789abcdef0123456789abcdef"
	f := newFixture(t, Options{Open: true, Token: token})
	ws := f.agent("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	f.agent("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()})
	if code, _ := f.get("/"); code != 401 {
		t.Fatalf("no credentials: %d", code)
	}
	if code, _ := f.get("/", "Authorization", "Bearer wrong"); code != 401 {
		t.Fatalf("a wrong token: %d", code)
	}
	if code, _ := f.get("/", "Authorization", "bearer "+token); code != 200 {
		t.Fatalf("the token: %d", code)
	}
	// A POST without credentials writes nothing, whatever it carries.
	head := f.head()
	if code, _, _ := f.post("/ws/"+ws+"/materialize", url.Values{"csrf": {"x"}, "digest": {"y"}}); code != 401 || f.head() != head || f.staged(ws) != 1 {
		t.Fatalf("unauthenticated POST: %d", code)
	}
	link := f.desk.LoginLink(f.srv.URL)
	u, _ := url.Parse(link)
	if code, _ := f.get(u.RequestURI()); code != 303 {
		t.Fatalf("login: %d", code)
	}
	if code, _ := f.get("/"); code != 200 {
		t.Fatalf("after login: %d", code)
	}
	other := newFixtureClient(f)
	if code, _ := other.get(u.RequestURI()); code != 401 {
		t.Fatalf("a spent link opened a second session: %d", code)
	}
}

func newFixtureClient(f *fixture) *fixture {
	jar, _ := cookiejar.New(nil)
	g := *f
	g.client = &http.Client{Jar: jar, CheckRedirect: f.client.CheckRedirect}
	return &g
}

// TestDiffIsPaged: a workspace staging more declarations than a page
// lists them page by page.
func TestDiffIsPaged(t *testing.T) {
	f := newFixture(t, Options{})
	ws := f.agent("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	for i := range pageSize + 7 {
		f.agent("author.add_entity", map[string]any{"workspace": ws, "kind": "thing", "id": fmt.Sprintf("relic-%d", i), "name": "Relic", "provenance": prop()})
	}
	_, p1 := f.get("/ws/" + ws)
	_, p2 := f.get("/ws/" + ws + "?rows=2")
	if n := strings.Count(p1, `class="diffrow"`); n != pageSize {
		t.Errorf("page 1 lists %d rows", n)
	}
	if n := strings.Count(p2, `class="diffrow"`); n != 7 || !strings.Contains(p2, "declarations page 2 of 2") {
		t.Errorf("page 2 lists %d rows", n)
	}
}
