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
	store := filepath.Join(proj, ".lore")
	head := func() string { t.Helper(); return wpGit(t, "--git-dir", store, "rev-parse", "main") }
	initHead := head()

	// log: the init commits, the newest first.
	if log := wpMust(t, deep, "log"); !strings.HasPrefix(log, "commit "+initHead+"\n") ||
		!strings.Contains(log, "declare scope camelot") || !strings.Contains(log, "init lorestore") {
		t.Fatalf("log in %s:\n%s", deep, log)
	}

	// import --materialize commits into P's store, and makes no store here.
	camelot, err := filepath.Abs("../../testdata/dli/camelot.dli")
	if err != nil {
		t.Fatal(err)
	}
	if out := wpMust(t, deep, "import", camelot, "--materialize"); !strings.Contains(out, "committed ") || !strings.Contains(out, " on main: 8 declarations") {
		t.Fatalf("import in %s said:\n%s", deep, out)
	}
	imported := head()
	if imported == initHead {
		t.Fatal("import --materialize in a subfolder did not move P's main")
	}
	log := wpMust(t, work, "--project", "P", "log", "--oneline")
	if lines := strings.Split(strings.TrimSpace(log), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[0], imported[:7]+" ") || !strings.Contains(lines[0], "camelot") {
		t.Fatalf("P's log after the import in a subfolder:\n%s", log)
	}
	for _, dir := range []string{filepath.Join(proj, "notes"), deep} {
		for _, name := range []string{".lore", "deloreis.toml"} {
			if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
				t.Fatalf("a command in the subfolder made %s in %s (stat: %v)", name, dir, err)
			}
		}
	}

	// check: a file checked over the store's head — the second father is
	// an fd violation only against what the store holds (the functional
	// declaration, lancelot, canon-1); alone, galahad is unknown.
	file := filepath.Join(deep, "extra.dli")
	if err := os.WriteFile(file, []byte("scope camelot\n\ngalahad.father = pellinore  cited canon-1 ratified\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantCheck := file + ":3:1: error continuity.fd-violation: father is functional, but galahad holds 2 certain values: lancelot, pellinore.\n"
	for _, dir := range []string{deep, proj} {
		out, errs, code := wpRun(t, dir, "check", file)
		if code != 1 || out+errs != wantCheck {
			t.Fatalf("check in %s: exit %d\n%s%s\nwant exit 1\n%s", dir, code, out, errs, wantCheck)
		}
	}
	if out, errs, code := wpRun(t, deep, "check", "--standalone", file); code != 1 || !strings.Contains(out+errs, "entity.unknown") {
		t.Fatalf("check --standalone: exit %d\n%s%s", code, out, errs)
	}

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

	// mcp: the same project, over MCP.
	m := wpStartMCP(t, "subfolder", deep)
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
	out, errs, code = wpRunStdin(t, outside,
		`{"dli":"2.0.0","id":"1","op":"author.open","params":{"scope":"camelot"}}`+"\n", "serve", "--demo")
	if code != 0 || !strings.Contains(out, `"id":"1","ok":true`) || !strings.Contains(out, `"scope":"camelot"`) {
		t.Fatalf("serve --demo outside any project: exit %d\n%s%s", code, out, errs)
	}
}
