package cli

import (
	"fmt"
	"sync"
	"testing"

	"github.com/deloreis/deloreis/lorestore"
)

func entity(ws, id string) map[string]any {
	return map[string]any{"workspace": ws, "kind": "person", "id": id, "name": "N " + id,
		"provenance": map[string]any{"kind": "proposed", "origin": "live-test"}}
}

func mustOK(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	if m["ok"] != true {
		t.Fatalf("call failed: %v", m)
	}
	return m
}

func entityIDs(t *testing.T, s *server, ws string) map[string]bool {
	t.Helper()
	r := mustOK(t, s.callJSON("e", "author.entities", map[string]any{"workspace": ws, "limit": 1000}))
	out := map[string]bool{}
	for _, e := range r["entities"].([]any) {
		out[e.(map[string]any)["id"].(string)] = true
	}
	return out
}

// TestTwoServersOneProject (issue 9 acceptance 3): a workspace opened
// after another server materialized starts from its commit; one already
// open keeps its base; two servers materializing at once lose nothing.
func TestTwoServersOneProject(t *testing.T) {
	dir := specProject(t)
	a := startServer(t, "--project", dir)
	b := startServer(t, "--project", dir)

	aOld := mustOK(t, a.callJSON("1", "author.open", map[string]any{"scope": "storybook"}))["workspace"].(string)
	aw := mustOK(t, a.callJSON("2", "author.open", map[string]any{"scope": "storybook"}))["workspace"].(string)
	mustOK(t, a.callJSON("3", "author.add_entity", entity(aw, "from-a")))
	root := mustOK(t, a.callJSON("4", "author.materialize", map[string]any{"workspace": aw}))["root_hash"]

	bw := mustOK(t, b.callJSON("1", "author.open", map[string]any{"scope": "storybook"}))
	if bw["root_hash"] != root {
		t.Fatalf("B opened on %v, A committed %v", bw["root_hash"], root)
	}
	if !entityIDs(t, b, bw["workspace"].(string))["from-a"] {
		t.Fatal("B does not see A's entity")
	}
	if entityIDs(t, a, aOld)["from-a"] {
		t.Fatal("A's workspace opened before the commit moved onto it")
	}
	st := mustOK(t, a.callJSON("5", "author.status", map[string]any{"workspace": aOld}))
	if st["root_hash"] == root {
		t.Fatal("an open workspace's base moved")
	}

	// Both materialize at once, again and again: nothing is lost.
	const rounds = 8
	for r := 0; r < rounds; r++ {
		var wg sync.WaitGroup
		for i, s := range []*server{a, b} {
			ws := mustOK(t, s.callJSON("o", "author.open", map[string]any{"scope": "storybook"}))["workspace"].(string)
			mustOK(t, s.callJSON("e", "author.add_entity", entity(ws, fmt.Sprintf("r%d-s%d", r, i))))
			wg.Add(1)
			go func(s *server, ws string) {
				defer wg.Done()
				m := s.callJSON("m", "author.materialize", map[string]any{"workspace": ws})
				if m["ok"] != true {
					t.Errorf("concurrent materialize failed: %v", m)
				}
			}(s, ws)
		}
		wg.Wait()
	}
	st2, err := lorestore.Open(dir+"/.lore", lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	ws := mustOK(t, a.callJSON("f", "author.open", map[string]any{"scope": "storybook"}))["workspace"].(string)
	have := entityIDs(t, a, ws)
	for r := 0; r < rounds; r++ {
		for i := 0; i < 2; i++ {
			if id := fmt.Sprintf("r%d-s%d", r, i); !have[id] {
				t.Errorf("entity %s was lost", id)
			}
		}
	}
	log, err := st2.Log(lorestore.LogOptions{Op: "materialize"})
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 2+2*rounds { // the seed, A's first, and two a round
		t.Errorf("%d materialize commits, want %d", len(log), 2+2*rounds)
	}
}
