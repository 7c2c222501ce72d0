package author

import (
	"context"
	"testing"
)

// TestWorkspacesList: the list names every open workspace in number order
// with its staged count, its blocking findings and a change time that
// moves on a mutation; a discarded workspace leaves the list.
func TestWorkspacesList(t *testing.T) {
	h := newHarness(t, "camelot")
	var ids []string
	for range 10 {
		ids = append(ids, h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string))
	}
	list := func() []WorkspaceSummary {
		t.Helper()
		l, err := h.svc.Workspaces(context.Background(), &Empty{})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	before := list()
	h.ok("author.add_entity", map[string]any{"workspace": ids[0], "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()})
	h.ok("author.add_relation", map[string]any{"workspace": ids[0], "relation": "serves", "from": "mireth", "to": "nobody-here", "provenance": prop()})
	h.ok("author.discard", map[string]any{"workspace": ids[1]})
	after := list()
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"count before", len(before), 10},
		{"count after a discard", len(after), 9},
		{"order (ws-10 last)", after[len(after)-1].Workspace, "ws-10"},
		{"second is ws-3", after[1].Workspace, "ws-3"},
		{"staged", after[0].Staged, 2},
		{"blocking (the unknown entity)", after[0].Blocking > 0, true},
		{"scope", after[0].Scope, "camelot"},
		{"changed moved", after[0].Changed.After(before[0].Changed), true},
		{"untouched did not move", after[1].Changed.Equal(before[2].Changed), true},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}
