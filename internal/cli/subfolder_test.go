package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFoundFromASubfolder: every command run in a folder below a project,
// with no --project, finds the project as git finds its repository — log,
// import, check, serve and mcp all act on P's store, as they would in P.
// Outside any project, serve and mcp exit 1 and say what to do (init, or
// --demo), and serve --demo serves.
func TestFoundFromASubfolder(t *testing.T) {
	work := t.TempDir()
	wpMust(t, work, "init", "--project", "P", "--scope", "camelot")
	proj := filepath.Join(work, "P")
	deep := filepath.Join(proj, "notes", "deep")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	p := &subfolderProject{work: work, proj: proj, deep: deep, store: filepath.Join(proj, ".lore")}
	initHead := p.head(t)

	// log: the init commits, the newest first.
	if log := wpMust(t, deep, "log"); !strings.HasPrefix(log, "commit "+initHead+"\n") ||
		!strings.Contains(log, "declare scope camelot") || !strings.Contains(log, "init lorestore") {
		t.Fatalf("log in %s:\n%s", deep, log)
	}

	imported := p.importFromDeep(t, initHead)
	p.checkFromDeep(t)
	p.serveFromDeep(t, imported)
	p.mcpFromDeep(t, imported)
	outsideAnyProject(t)
}

// subfolderProject is project P under work, with its store and a folder
// deep below it where the commands run.
type subfolderProject struct {
	work, proj, deep, store string
}

// head is the commit P's main is at.
func (p *subfolderProject) head(t *testing.T) string {
	t.Helper()
	return wpGit(t, "--git-dir", p.store, "rev-parse", "main")
}

// importFromDeep imports camelot with --materialize in the subfolder,
// checks it moved P's main from initHead and made no store there, and
// returns the new head.
func (p *subfolderProject) importFromDeep(t *testing.T, initHead string) string {
	deep := p.deep
	// import --materialize commits into P's store, and makes no store here.
	camelot, err := filepath.Abs("../../testdata/dli/camelot.dli")
	if err != nil {
		t.Fatal(err)
	}
	if out := wpMust(t, deep, "import", camelot, "--materialize"); !strings.Contains(out, "committed ") || !strings.Contains(out, " on main: 8 declarations") {
		t.Fatalf("import in %s said:\n%s", deep, out)
	}
	imported := p.head(t)
	if imported == initHead {
		t.Fatal("import --materialize in a subfolder did not move P's main")
	}
	log := wpMust(t, p.work, "--project", "P", "log", "--oneline")
	if lines := strings.Split(strings.TrimSpace(log), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[0], imported[:7]+" ") || !strings.Contains(lines[0], "camelot") {
		t.Fatalf("P's log after the import in a subfolder:\n%s", log)
	}
	for _, dir := range []string{filepath.Join(p.proj, "notes"), deep} {
		for _, name := range []string{".lore", "deloreis.toml"} {
			if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
				t.Fatalf("a command in the subfolder made %s in %s (stat: %v)", name, dir, err)
			}
		}
	}
	return imported
}

// checkFromDeep checks a file in the subfolder over the store's head,
// from the subfolder and from P alike, and standalone.
func (p *subfolderProject) checkFromDeep(t *testing.T) {
	deep := p.deep
	// check: a file checked over the store's head — the second father is
	// an fd violation only against what the store holds (the functional
	// declaration, lancelot, canon-1); alone, galahad is unknown.
	file := filepath.Join(deep, "extra.dli")
	if err := os.WriteFile(file, []byte("scope camelot\n\ngalahad.father = pellinore  cited canon-1 ratified\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantCheck := file + ":3:1: error continuity.fd-violation: father is functional, but galahad holds 2 certain values: lancelot, pellinore.\n"
	for _, dir := range []string{deep, p.proj} {
		out, errs, code := wpRun(t, dir, "check", file)
		if code != 1 || out+errs != wantCheck {
			t.Fatalf("check in %s: exit %d\n%s%s\nwant exit 1\n%s", dir, code, out, errs, wantCheck)
		}
	}
	if out, errs, code := wpRun(t, deep, "check", "--standalone", file); code != 1 || !strings.Contains(out+errs, "entity.unknown") {
		t.Fatalf("check --standalone: exit %d\n%s%s", code, out, errs)
	}
}

// serveFromDeep runs serve in the subfolder and checks that it opens and
// describes P at imported.
func (p *subfolderProject) serveFromDeep(t *testing.T, imported string) {
	deep := p.deep
	// serve: the project from here up.
	out, errs, code := wpRunStdin(t, deep,
		`{"dli":"2.0.0","id":"1","op":"author.open","params":{"scope":"camelot"}}`+"\n"+
			`{"dli":"2.0.0","id":"2","op":"dli.project","params":{}}`+"\n", "serve")
	if code != 0 {
		t.Fatalf("serve in %s: exit %d\n%s", deep, code, errs)
	}
	answers := strings.Split(strings.TrimSpace(out), "\n")
	if len(answers) != 2 {
		t.Fatalf("serve answered %d lines:\n%s", len(answers), out)
	}
	var opened, project map[string]any
	if err := json.Unmarshal([]byte(answers[0]), &opened); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(answers[1]), &project); err != nil {
		t.Fatal(err)
	}
	if opened["ok"] != true || opened["scope"] != "camelot" || opened["root_hash"] != imported {
		t.Fatalf("serve: author.open: %s (main is %s)", answers[0], imported)
	}
	if project["ok"] != true || project["store"] != ".lore" || project["commit"] != imported ||
		mustJSON(t, project["documents"]) != `[{"scope":"camelot","source":""}]` {
		t.Fatalf("serve: dli.project: %s (main is %s)", answers[1], imported)
	}
}

// mcpFromDeep starts mcp in the subfolder and checks that it lists the
// tools and opens and describes P at imported.
func (p *subfolderProject) mcpFromDeep(t *testing.T, imported string) {
	// mcp: the same project, over MCP.
	m := wpStartMCP(t, "subfolder", p.deep)
	tools, err := m.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range tools.Tools {
		names[tool.Name] = true
	}
	if !names["author_open"] || !names["dli_project"] {
		t.Fatalf("mcp lists %d tools, without author_open or dli_project", len(tools.Tools))
	}
	if got := m.ok("author_open", map[string]any{"scope": "camelot"}); got["scope"] != "camelot" || got["root_hash"] != imported {
		t.Fatalf("mcp: author_open: %v (main is %s)", got, imported)
	}
	if got := m.ok("dli_project", map[string]any{}); got["commit"] != imported {
		t.Fatalf("mcp: dli_project: %v (main is %s)", got, imported)
	}
}

// outsideAnyProject checks that serve and mcp, run outside any project,
// refuse and write nothing, and that serve --demo serves there.
func outsideAnyProject(t *testing.T) {
	// Outside any project: serve and mcp refuse, naming the ways out.
	outside := t.TempDir()
	wpNoProjectAbove(t, outside)
	for _, args := range [][]string{{"serve"}, {"mcp"}, {"mcp", "--tools", "all"}} {
		out, errs, code := wpRunStdin(t, outside, `{"dli":"2.0.0","id":"1","op":"dli.version","params":{}}`+"\n", args...)
		if code != 1 || out != "" || !strings.Contains(errs, "--demo") || !strings.Contains(errs, "deloreis init") {
			t.Errorf("%s outside any project: exit %d, stdout %q, stderr %q; want exit 1 and a message naming --demo and init", strings.Join(args, " "), code, out, errs)
		}
		if entries, err := os.ReadDir(outside); err != nil || len(entries) != 0 {
			t.Fatalf("%s outside any project left %v (%v)", strings.Join(args, " "), entries, err)
		}
	}
	out, errs, code := wpRunStdin(t, outside,
		`{"dli":"2.0.0","id":"1","op":"author.open","params":{"scope":"camelot"}}`+"\n", "serve", "--demo")
	if code != 0 || !strings.Contains(out, `"id":"1","ok":true`) || !strings.Contains(out, `"scope":"camelot"`) {
		t.Fatalf("serve --demo outside any project: exit %d\n%s%s", code, out, errs)
	}
}
