package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/deloreis/deloreis/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostile is the markup the agent stages as a label and a value: the desk
// must show it as text and run none of it.
const hostile = `<img src=x onerror="window.pwned=1"></script><script>window.pwned=2</script>`

// TestReviewDeskInBrowser drives Debian's Chromium, headless, over the
// desk of a real `deloreis mcp --review` whose agent stages over stdio:
// the page lists the workspace and shows the staged declaration (markup in
// it as text, no script run), the blocking finding with its repair and the
// diff row; the agent applies the repair, the reviewer reloads and
// materializes under a decision by keyboard alone; git log shows the
// decision; a second tab rendered before the change is refused on
// materialize and offers a reload. With DESK_SCREENSHOT set, the
// workspace page is saved there as a PNG (make screenshot).
func TestReviewDeskInBrowser(t *testing.T) {
	chromium := testenv.NeedTool(t, "chromium")
	dir := reviewProject(t)
	cs, base := agentWithDesk(t, dir)
	ws := stageHostile(t, cs)

	alloc, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.NoFirstRun, chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900),
		// Its singleton socket goes to a folder the test removes: a killed
		// browser leaves it behind, and make test fails on a file left in TMPDIR.
		chromedp.Env("TMPDIR="+t.TempDir()))
	defer cancel()
	tab1, cancel := chromedp.NewContext(alloc)
	defer cancel()
	// The first call starts the browser, and lives as long as it: no
	// timeout on it (chromedp.Run's rule), one on every later step.
	if err := chromedp.Do(tab1, chromedp.Navigate(base+"/")); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	d := &deskTabs{t: t, tab1: tab1, ws: ws}
	d.firstRender()

	// A second tab renders the page before the agent's repair.
	tab2, cancel2 := chromedp.NewContext(tab1)
	defer cancel2()
	// Its first call opens the tab, which lives as long as that call's
	// context: no timeout on it either.
	if err := chromedp.Do(tab2); err != nil {
		t.Fatalf("a second tab: %v", err)
	}
	d.tab2 = tab2
	d.do(tab2, "the second tab", chromedp.Navigate(base+"/ws/"+ws), chromedp.WaitVisible(chromedp.CSS(`#materialize`)))

	applyRepair(t, cs, ws)
	git := filepath.Join(dir, ".lore")
	head := d.materializeByKeyboard(git)
	d.staleTabRefused(git, head)
}

// stageHostile has the agent open a workspace over camelot and stage an
// entity and a fact carrying hostile, and a relation to an unknown place.
func stageHostile(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	ws := tool(t, cs, "author_open", map[string]any{"scope": "camelot"})["workspace"].(string)
	tool(t, cs, "author_add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": hostile, "provenance": prov()})
	tool(t, cs, "author_add_fact", map[string]any{"workspace": ws, "entity": "mireth", "key": "motto", "value": hostile, "provenance": prov()})
	tool(t, cs, "author_add_relation", map[string]any{"workspace": ws, "relation": "dwells-in", "from": "mireth", "to": "logress", "provenance": prov()})
	return ws
}

// applyRepair has the agent apply the repair: the relation to the entity
// the finding offers.
func applyRepair(t *testing.T, cs *mcp.ClientSession, ws string) {
	t.Helper()
	for _, s := range tool(t, cs, "author_status", map[string]any{"workspace": ws})["staged"].([]any) {
		if d := s.(map[string]any); d["type"] == "relation" {
			tool(t, cs, "author_discard", map[string]any{"workspace": ws, "decl": d["decl"]})
		}
	}
	tool(t, cs, "author_add_relation", map[string]any{"workspace": ws, "relation": "dwells-in", "from": "mireth", "to": "logres", "provenance": prov()})
}

// deskTabs is the reviewer's two tabs over the desk and the workspace
// they show, shared by the session's steps.
type deskTabs struct {
	t          *testing.T
	tab1, tab2 context.Context
	ws         string
}

// seen says where a tab is and what it reads, for a failure's message.
func (d *deskTabs) seen(tab context.Context) string {
	ctx, cancel := context.WithTimeout(tab, 10*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText.slice(0, 2000)`))
	if err != nil {
		return err.Error()
	}
	return s
}

// do runs steps in a tab, failing the test with what the tab reads.
func (d *deskTabs) do(tab context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(tab, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		d.t.Fatalf("%s: %v; the tab reads:\n%s", what, err, d.seen(tab))
	}
}

// text is the text of the element sel selects in a tab.
func (d *deskTabs) text(ctx context.Context, sel string) string {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		d.t.Fatalf("the text of %s: %v", sel, err)
	}
	return s
}

// eval is the number js evaluates to in a tab.
func (d *deskTabs) eval(tab context.Context, js string) int {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(tab, time.Minute)
	defer cancel()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
	if err != nil {
		d.t.Fatalf("%s: %v", js, err)
	}
	return n
}

// focusOn waits until the focus is on the element of that id.
func (d *deskTabs) focusOn(id string) {
	d.t.Helper()
	var at string
	for range 50 {
		ctx, cancel := context.WithTimeout(d.tab1, 10*time.Second)
		at, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement ? document.activeElement.id : ""`))
		cancel()
		if at == id {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	d.t.Fatalf("the focus is on %q, not #%s; the tab reads:\n%s", at, id, d.seen(d.tab1))
}

// firstRender checks the list and the workspace page as the first tab
// renders them before the repair, and saves the screenshot if asked.
func (d *deskTabs) firstRender() {
	t, tab1, ws := d.t, d.tab1, d.ws
	d.do(tab1, "the list", chromedp.WaitVisible(chromedp.CSS(`a[href="/ws/`+ws+`"]`)))
	if list := d.text(tab1, "#workspaces"); !strings.Contains(list, ws) || !strings.Contains(list, "camelot") {
		t.Fatalf("the list reads %q", list)
	}
	d.do(tab1, "the workspace", chromedp.Click(chromedp.CSS(`a[href="/ws/`+ws+`"]`)), chromedp.WaitVisible(chromedp.CSS(`#h-findings`)))
	// The label and the value are on the page as the text they are.
	quoted := `"` + strings.ReplaceAll(hostile, `"`, `\"`) + `"`
	if staged := d.text(tab1, "pre.dli"); !strings.Contains(staged, `person mireth `+quoted) || !strings.Contains(staged, `mireth.motto = `+quoted) {
		t.Errorf("the staged declarations read %q", staged)
	}
	if pwned, imgs := d.eval(tab1, `window.pwned === undefined ? 0 : window.pwned`), d.eval(tab1, `document.querySelectorAll("main img").length`); pwned != 0 || imgs != 0 {
		t.Errorf("staged text ran as markup: pwned %d, %d images", pwned, imgs)
	}
	if finding := d.text(tab1, "li.finding.error"); !strings.Contains(finding, "entity.unknown") || !strings.Contains(finding, "repair: resolve-entity") || !strings.Contains(finding, "logres") {
		t.Errorf("the blocking finding reads %q", finding)
	}
	if rows := d.text(tab1, "table.rows"); !strings.Contains(rows, "dwells-in(mireth, logress)") {
		t.Errorf("the diff rows read %q", rows)
	}
	if p := os.Getenv("DESK_SCREENSHOT"); p != "" {
		png, err := chromedp.Run(tab1, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// materializeByKeyboard reloads the first tab after the repair and
// materializes under a decision by keyboard alone, checks the decision on
// the commit page and in git log, and returns main's new head.
func (d *deskTabs) materializeByKeyboard(git string) string {
	t, tab1 := d.t, d.tab1
	// Reload (r), then materialize by keyboard alone: m focuses the
	// decision, Tab moves to the reason, Enter submits.
	d.do(tab1, "the reload", chromedp.KeyEvent("r"), chromedp.WaitVisible(chromedp.CSS(`#ws-meta span.ok`)))
	if meta := d.text(tab1, "#ws-meta"); !strings.Contains(meta, "ready to materialize") {
		t.Fatalf("after the repair the page reads %q", meta)
	}
	d.do(tab1, "the key m", chromedp.KeyEvent("m"))
	d.focusOn("decision")
	d.do(tab1, "the decision", chromedp.KeyEvent("d-admit-mireth"), chromedp.KeyEvent("\t"))
	d.focusOn("reason")
	d.do(tab1, "the materialize", chromedp.KeyEvent("the reviewer read it"), chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.CSS(`ul.trailers`)))
	if trailers := d.text(tab1, "ul.trailers"); !strings.Contains(trailers, "Lore-Decision: d-admit-mireth") {
		t.Fatalf("the commit page's trailers read %q", trailers)
	}
	msg := wpGit(t, "--git-dir", git, "log", "-1", "--format=%B", "main")
	if !strings.Contains(msg, "Lore-Decision: d-admit-mireth") {
		t.Fatalf("git log -1:\n%s", msg)
	}
	return wpGit(t, "--git-dir", git, "rev-parse", "main")
}

// staleTabRefused materializes from the second tab, rendered before the
// change, and checks the refusal, main still at head, and the reload.
func (d *deskTabs) staleTabRefused(git, head string) {
	t, tab2 := d.t, d.tab2
	// A tab acts when it is in front: a hidden one gets no animation
	// frames, which a click waits for.
	front := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.BringToFront, cdp.Empty{})
		return err
	})
	// The second tab's page is stale: refused, nothing applied, a reload offered.
	d.do(tab2, "the stale materialize", front, chromedp.Click(chromedp.CSS(`#materialize`)), chromedp.WaitVisible(chromedp.CSS(`#stale`)))
	if refusal := d.text(tab2, "#stale"); !strings.Contains(refusal, "Nothing was applied") || !strings.Contains(refusal, "Reload the workspace") {
		t.Fatalf("the stale tab reads %q", refusal)
	}
	if got := wpGit(t, "--git-dir", git, "rev-parse", "main"); got != head {
		t.Fatalf("a stale page moved main: %s -> %s", head, got)
	}
	d.do(tab2, "the offered reload", chromedp.Click(chromedp.CSS(`#reload`)), chromedp.WaitVisible(chromedp.CSS(`#ws-meta`)))
	if reloaded := d.text(tab2, "#h-staged"); !strings.Contains(reloaded, "(0)") {
		t.Fatalf("after the reload the workspace stages %q", reloaded)
	}
}
