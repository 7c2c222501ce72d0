package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCollaborationThroughAHub: two people author one project through a
// bare git hub, each in a folder made by `deloreis clone` (no
// deloreis.toml written or copied: the scopes travel with the lore), each
// with one long-lived `deloreis mcp --tools all` run in that folder with no
// --project. What one materializes and syncs, the other's running server
// sees after its own sync; a scope one declares, the other can open after
// its sync, and not before.
func TestCollaborationThroughAHub(t *testing.T) {
	work := t.TempDir()
	wpMust(t, work, "init", "--project", "P", "--scope", "S")
	hub := filepath.Join(work, "hub.git")
	wpGit(t, "init", "-q", "--bare", "-b", "main", hub)
	url := "file://" + hub
	wpMust(t, work, "--project", "P", "push", url)
	if got, want := wpGit(t, "--git-dir", hub, "rev-parse", "main"), wpGit(t, "--git-dir", filepath.Join(work, "P", ".lore"), "rev-parse", "main"); got != want {
		t.Fatalf("push: the hub's main is %s, P's %s", got, want)
	}
	a, b := filepath.Join(work, "A"), filepath.Join(work, "B")
	wpMust(t, work, "clone", url, "A")
	wpMust(t, work, "clone", url, "B")
	noToml := func(when string) {
		t.Helper()
		for _, dir := range []string{a, b} {
			if _, err := os.Stat(filepath.Join(dir, "deloreis.toml")); !os.IsNotExist(err) {
				t.Fatalf("%s: %s holds a deloreis.toml (stat: %v)", when, dir, err)
			}
		}
	}
	noToml("after clone")
	for _, dir := range []string{a, b} {
		if got := strings.Fields(wpMust(t, dir, "remote", "list")); !slices.Equal(got, []string{"origin"}) {
			t.Fatalf("%s: remote list %q, want origin", dir, got)
		}
		if out := wpMust(t, dir, "scope", "list"); !strings.HasPrefix(out, "S\t") || strings.Count(out, "\n") != 1 {
			t.Fatalf("%s: scope list:\n%s", dir, out)
		}
	}

	mcpA := wpStartMCP(t, "A", a)
	mcpB := wpStartMCP(t, "B", b)
	prov := map[string]any{"kind": "proposed", "origin": "session-a"}

	// T is not declared yet: A's server refuses it.
	if out, isErr := mcpA.call("author_open", map[string]any{"scope": "T"}); !isErr || wpErrorCode(out) != "unknown-scope" {
		t.Fatalf("A: open T before it was declared: error %v, %v", isErr, out)
	}

	// entityIDs lists the entities a fresh workspace over S sees.
	entityIDs := func(m *wpMCP) []string {
		t.Helper()
		ws := m.ok("author_open", map[string]any{"scope": "S"})["workspace"]
		res := m.ok("author_entities", map[string]any{"workspace": ws})
		var ids []string
		list, _ := res["entities"].([]any)
		for _, e := range list {
			e, _ := e.(map[string]any)
			id, _ := e["id"].(string)
			ids = append(ids, id)
		}
		return ids
	}
	if ids := entityIDs(mcpB); slices.Contains(ids, "percival") {
		t.Fatalf("B sees percival before anyone wrote it: %v", ids)
	}

	// A authors a person and a fact on it, and commits.
	open := mcpA.ok("author_open", map[string]any{"scope": "S"})
	ws := open["workspace"]
	if open["scope"] != "S" || ws == nil {
		t.Fatalf("A: open S: %v", open)
	}
	add := mcpA.ok("author_add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "percival", "name": "Percival", "provenance": prov})
	if add["workspace_digest"] == open["workspace_digest"] {
		t.Fatalf("A: add_entity left the digest: %v", add)
	}
	fact := mcpA.ok("author_add_fact", map[string]any{"workspace": ws, "entity": "percival", "key": "quest", "value": "the grail", "provenance": prov})
	if fs, _ := fact["findings"].([]any); len(fs) != 0 {
		t.Fatalf("A: add_fact findings: %v", fact)
	}
	mat := mcpA.ok("author_materialize", map[string]any{"workspace": ws})
	if c, _ := mat["committed"].([]any); len(c) != 2 {
		t.Fatalf("A: materialize committed %v, want the entity and the fact", mat)
	}
	headA := wpGit(t, "--git-dir", filepath.Join(a, ".lore"), "rev-parse", "main")
	if log := wpMust(t, a, "log", "--oneline"); strings.Count(log, "\n") != 3 || !strings.HasPrefix(log, headA[:7]+" materialize S: 1 entity, 1 fact\n") {
		t.Fatalf("A: log after materialize (head %s):\n%s", headA, log)
	}
	if out := wpMust(t, a, "sync"); !strings.Contains(out, "pushed main to origin: "+headA[:12]) {
		t.Fatalf("A: sync said:\n%s", out)
	}
	if got := wpGit(t, "--git-dir", hub, "rev-parse", "main"); got != headA {
		t.Fatalf("after A's sync the hub is at %s, A at %s", got, headA)
	}

	// B syncs; its running server opens on the synced head.
	if out := wpMust(t, b, "sync"); !strings.Contains(out, "fast-forward main") {
		t.Fatalf("B: sync said:\n%s", out)
	}
	if got := wpGit(t, "--git-dir", filepath.Join(b, ".lore"), "rev-parse", "main"); got != headA {
		t.Fatalf("after B's sync B is at %s, A at %s", got, headA)
	}
	if ids := entityIDs(mcpB); !slices.Contains(ids, "percival") {
		t.Fatalf("B's server does not see A's entity after the sync: %v", ids)
	}
	wsB := mcpB.ok("author_open", map[string]any{"scope": "S"})["workspace"]
	q := mcpB.ok("author_query", map[string]any{"workspace": wsB, "goal": map[string]any{"pred": "quest", "args": []any{map[string]any{"var": "X"}, map[string]any{"var": "Y"}}}})
	if answers, _ := q["answers"].([]any); len(answers) != 1 || !strings.Contains(mustJSON(t, answers[0]), `"bindings":{"X":"percival","Y":"the grail"}`) {
		t.Fatalf("B: query quest(X, Y) after the sync: %v", q)
	}
	if show := wpMust(t, b, "show", "main"); !strings.Contains(show, "percival") || !strings.Contains(show, "the grail") {
		t.Fatalf("B: show main lacks A's declarations:\n%s", show)
	}

	// B declares T and syncs; A's server refuses T until A syncs.
	wpMust(t, b, "scope", "add", "T")
	headB := wpGit(t, "--git-dir", filepath.Join(b, ".lore"), "rev-parse", "main")
	if out := wpMust(t, b, "sync"); !strings.Contains(out, "pushed main to origin: "+headB[:12]) {
		t.Fatalf("B: sync after scope add said:\n%s", out)
	}
	if out, isErr := mcpA.call("author_open", map[string]any{"scope": "T"}); !isErr || wpErrorCode(out) != "unknown-scope" {
		t.Fatalf("A: open T before A synced: error %v, %v", isErr, out)
	}
	if out := wpMust(t, a, "sync"); !strings.Contains(out, "fast-forward main") {
		t.Fatalf("A: sync said:\n%s", out)
	}
	if got := wpGit(t, "--git-dir", filepath.Join(a, ".lore"), "rev-parse", "main"); got != headB {
		t.Fatalf("after A's second sync A is at %s, B at %s", got, headB)
	}
	openT := mcpA.ok("author_open", map[string]any{"scope": "T"})
	if openT["scope"] != "T" || openT["workspace"] == nil {
		t.Fatalf("A: open T after the sync: %v", openT)
	}
	if ids := entityIDs(mcpA); !slices.Contains(ids, "percival") {
		t.Fatalf("A: S lost percival: %v", ids)
	}
	for _, dir := range []string{a, b} {
		var scopes []string
		for _, line := range strings.Split(strings.TrimSpace(wpMust(t, dir, "scope", "list")), "\n") {
			scopes = append(scopes, strings.Fields(line)[0])
		}
		if !slices.Equal(scopes, []string{"S", "T"}) {
			t.Fatalf("%s: scope list %v, want S and T", dir, scopes)
		}
	}
	noToml("at the end")
}
