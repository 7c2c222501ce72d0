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
	p := cloneTwoFromAHub(t)
	p.noToml(t, "after clone")
	for _, dir := range []string{p.a, p.b} {
		if got := strings.Fields(wpMust(t, dir, "remote", "list")); !slices.Equal(got, []string{"origin"}) {
			t.Fatalf("%s: remote list %q, want origin", dir, got)
		}
		if out := wpMust(t, dir, "scope", "list"); !strings.HasPrefix(out, "S\t") || strings.Count(out, "\n") != 1 {
			t.Fatalf("%s: scope list:\n%s", dir, out)
		}
	}

	p.mcpA = wpStartMCP(t, "A", p.a)
	p.mcpB = wpStartMCP(t, "B", p.b)

	// T is not declared yet: A's server refuses it.
	if out, isErr := p.mcpA.call("author_open", map[string]any{"scope": "T"}); !isErr || wpErrorCode(out) != "unknown-scope" {
		t.Fatalf("A: open T before it was declared: error %v, %v", isErr, out)
	}
	if ids := entityIDsOverS(t, p.mcpB); slices.Contains(ids, "percival") {
		t.Fatalf("B sees percival before anyone wrote it: %v", ids)
	}

	headA := p.authorInA(t)
	p.syncB(t, headA)
	p.declareTInB(t)
	for _, dir := range []string{p.a, p.b} {
		var scopes []string
		for _, line := range strings.Split(strings.TrimSpace(wpMust(t, dir, "scope", "list")), "\n") {
			scopes = append(scopes, strings.Fields(line)[0])
		}
		if !slices.Equal(scopes, []string{"S", "T"}) {
			t.Fatalf("%s: scope list %v, want S and T", dir, scopes)
		}
	}
	p.noToml(t, "at the end")
}

// hubPair is the hub and the two clones of the collaboration, with each
// clone's running MCP server once started.
type hubPair struct {
	hub, a, b  string
	mcpA, mcpB *wpMCP
}

// cloneTwoFromAHub makes project P with scope S, pushes it to a bare hub,
// and clones the hub into A and B.
func cloneTwoFromAHub(t *testing.T) *hubPair {
	t.Helper()
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
	return &hubPair{hub: hub, a: a, b: b}
}

// noToml fails if either clone holds a deloreis.toml.
func (p *hubPair) noToml(t *testing.T, when string) {
	t.Helper()
	for _, dir := range []string{p.a, p.b} {
		if _, err := os.Stat(filepath.Join(dir, "deloreis.toml")); !os.IsNotExist(err) {
			t.Fatalf("%s: %s holds a deloreis.toml (stat: %v)", when, dir, err)
		}
	}
}

// entityIDsOverS lists the entities a fresh workspace over S sees.
func entityIDsOverS(t *testing.T, m *wpMCP) []string {
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

// authorInA has A's server stage a person and a fact on it and commit,
// checks A's log, syncs A to the hub, and returns A's head.
func (p *hubPair) authorInA(t *testing.T) string {
	prov := map[string]any{"kind": "proposed", "origin": "session-a"}
	// A authors a person and a fact on it, and commits.
	open := p.mcpA.ok("author_open", map[string]any{"scope": "S"})
	ws := open["workspace"]
	if open["scope"] != "S" || ws == nil {
		t.Fatalf("A: open S: %v", open)
	}
	add := p.mcpA.ok("author_add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "percival", "name": "Percival", "provenance": prov})
	if add["workspace_digest"] == open["workspace_digest"] {
		t.Fatalf("A: add_entity left the digest: %v", add)
	}
	fact := p.mcpA.ok("author_add_fact", map[string]any{"workspace": ws, "entity": "percival", "key": "quest", "value": "the grail", "provenance": prov})
	if fs, _ := fact["findings"].([]any); len(fs) != 0 {
		t.Fatalf("A: add_fact findings: %v", fact)
	}
	mat := p.mcpA.ok("author_materialize", map[string]any{"workspace": ws})
	if c, _ := mat["committed"].([]any); len(c) != 2 {
		t.Fatalf("A: materialize committed %v, want the entity and the fact", mat)
	}
	headA := wpGit(t, "--git-dir", filepath.Join(p.a, ".lore"), "rev-parse", "main")
	if log := wpMust(t, p.a, "log", "--oneline"); strings.Count(log, "\n") != 3 || !strings.HasPrefix(log, headA[:7]+" materialize S: 1 entity, 1 fact\n") {
		t.Fatalf("A: log after materialize (head %s):\n%s", headA, log)
	}
	if out := wpMust(t, p.a, "sync"); !strings.Contains(out, "pushed main to origin: "+headA[:12]) {
		t.Fatalf("A: sync said:\n%s", out)
	}
	if got := wpGit(t, "--git-dir", p.hub, "rev-parse", "main"); got != headA {
		t.Fatalf("after A's sync the hub is at %s, A at %s", got, headA)
	}
	return headA
}

// syncB syncs B and checks that B's running server, and B's show, see
// what A committed at headA.
func (p *hubPair) syncB(t *testing.T, headA string) {
	// B syncs; its running server opens on the synced head.
	if out := wpMust(t, p.b, "sync"); !strings.Contains(out, "fast-forward main") {
		t.Fatalf("B: sync said:\n%s", out)
	}
	if got := wpGit(t, "--git-dir", filepath.Join(p.b, ".lore"), "rev-parse", "main"); got != headA {
		t.Fatalf("after B's sync B is at %s, A at %s", got, headA)
	}
	if ids := entityIDsOverS(t, p.mcpB); !slices.Contains(ids, "percival") {
		t.Fatalf("B's server does not see A's entity after the sync: %v", ids)
	}
	wsB := p.mcpB.ok("author_open", map[string]any{"scope": "S"})["workspace"]
	q := p.mcpB.ok("author_query", map[string]any{"workspace": wsB, "goal": map[string]any{"pred": "quest", "args": []any{map[string]any{"var": "X"}, map[string]any{"var": "Y"}}}})
	if answers, _ := q["answers"].([]any); len(answers) != 1 || !strings.Contains(mustJSON(t, answers[0]), `"bindings":{"X":"percival","Y":"the grail"}`) {
		t.Fatalf("B: query quest(X, Y) after the sync: %v", q)
	}
	if show := wpMust(t, p.b, "show", "main"); !strings.Contains(show, "percival") || !strings.Contains(show, "the grail") {
		t.Fatalf("B: show main lacks A's declarations:\n%s", show)
	}
}

// declareTInB has B declare scope T and sync, and checks that A's server
// refuses T until A syncs, and opens it after.
func (p *hubPair) declareTInB(t *testing.T) {
	// B declares T and syncs; A's server refuses T until A syncs.
	wpMust(t, p.b, "scope", "add", "T")
	headB := wpGit(t, "--git-dir", filepath.Join(p.b, ".lore"), "rev-parse", "main")
	if out := wpMust(t, p.b, "sync"); !strings.Contains(out, "pushed main to origin: "+headB[:12]) {
		t.Fatalf("B: sync after scope add said:\n%s", out)
	}
	if out, isErr := p.mcpA.call("author_open", map[string]any{"scope": "T"}); !isErr || wpErrorCode(out) != "unknown-scope" {
		t.Fatalf("A: open T before A synced: error %v, %v", isErr, out)
	}
	if out := wpMust(t, p.a, "sync"); !strings.Contains(out, "fast-forward main") {
		t.Fatalf("A: sync said:\n%s", out)
	}
	if got := wpGit(t, "--git-dir", filepath.Join(p.a, ".lore"), "rev-parse", "main"); got != headB {
		t.Fatalf("after A's second sync A is at %s, B at %s", got, headB)
	}
	openT := p.mcpA.ok("author_open", map[string]any{"scope": "T"})
	if openT["scope"] != "T" || openT["workspace"] == nil {
		t.Fatalf("A: open T after the sync: %v", openT)
	}
	if ids := entityIDsOverS(t, p.mcpA); !slices.Contains(ids, "percival") {
		t.Fatalf("A: S lost percival: %v", ids)
	}
}
