package worker

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// TestStoreOps: the read-only store tools, table-driven; revisions and
// scopes that are not what they should be are refused as data.
func TestStoreOps(t *testing.T) {
	h := newOpsHarness(t, false)
	runOpCases(t, h, slices.Concat(storeObjectLogCases(t, h), storeShowScopesCases(h), storeGraphDiffCases(h)))
}

// storeObjectLogCases are the calls of dli.object and dli.log.
func storeObjectLogCases(t *testing.T, h *opsHarness) []opCase {
	c0, c1 := h.commits[0], h.commits[1]
	arthurID := idOf(t, arthur)
	return []opCase{
		{"object", "dli.object", map[string]any{"id": arthurID}, "", func(t *testing.T, m map[string]any) {
			if m["object_id"] != arthurID || m["scope"] != "camelot" || m["type"] != "entity" || m["commit"] != c1 ||
				m["path"] != "scopes/camelot/claims/"+arthurID[:2]+"/"+arthurID+".json" || m["object"].(map[string]any)["name"] != "Arthur" {
				t.Errorf("object %v", m)
			}
		}},
		{"object by prefix at a revision", "dli.object", map[string]any{"id": arthurID[:10], "rev": "main~1"}, "", func(t *testing.T, m map[string]any) {
			if m["object_id"] != arthurID || m["commit"] != c0 {
				t.Errorf("object %v", m)
			}
		}},
		{"object not yet stored", "dli.object", map[string]any{"id": idOf(t, rules), "rev": c0}, author.CodeUnknownObject, nil},
		{"object id not hex", "dli.object", map[string]any{"id": "../../HEAD"}, fault.CodeBadParams, nil},
		{"object id too short", "dli.object", map[string]any{"id": "ab"}, fault.CodeBadParams, nil},
		{"log", "dli.log", nil, "", func(t *testing.T, m map[string]any) {
			cs := list(m, "commits")
			if len(cs) != 3 || cs[0].(map[string]any)["commit"] != c1 || m["more"] != false { // init, then the two
				t.Fatalf("log %v", m)
			}
			first := cs[0].(map[string]any)
			if first["author"].(map[string]any)["name"] != "Test Keeper" || len(list(first, "trailers")) != 2 || list(first, "parents")[0] != c0 {
				t.Errorf("commit %v", first)
			}
		}},
		{"log limit", "dli.log", map[string]any{"limit": 1}, "", func(t *testing.T, m map[string]any) {
			if len(list(m, "commits")) != 1 || m["more"] != true {
				t.Errorf("log %v", m)
			}
		}},
		{"log scope with no commits", "dli.log", map[string]any{"scope": "logres"}, "", func(t *testing.T, m map[string]any) {
			if len(list(m, "commits")) != 0 {
				t.Errorf("log %v", m)
			}
		}},
		{"log op", "dli.log", map[string]any{"op": "import"}, "", func(t *testing.T, m map[string]any) {
			if len(list(m, "commits")) != 0 {
				t.Errorf("log %v", m)
			}
		}},
		{"log negative limit", "dli.log", map[string]any{"limit": -1}, fault.CodeBadParams, nil},
		{"log unknown branch", "dli.log", map[string]any{"rev": "nosuch"}, author.CodeUnknownRevision, nil},
		{"log path-shaped revision", "dli.log", map[string]any{"rev": "refs/heads/../../../etc/passwd"}, author.CodeUnknownRevision, nil},
		{"log revision too long", "dli.log", map[string]any{"rev": strings.Repeat("a", 300)}, fault.CodeBadParams, nil},
		{"log scope not an id", "dli.log", map[string]any{"scope": "a/b"}, fault.CodeBadParams, nil},
	}
}

// storeShowScopesCases are the calls of dli.show, dli.branches,
// dli.scopes and dli.fsck.
func storeShowScopesCases(h *opsHarness) []opCase {
	c1 := h.commits[1]
	return []opCase{
		{"show", "dli.show", map[string]any{"rev": "main"}, "", func(t *testing.T, m map[string]any) {
			ch := list(m, "changes")
			if m["commit"].(map[string]any)["commit"] != c1 || len(ch) != 2 {
				t.Fatalf("show %v", m)
			}
			var types []string
			for _, c := range ch {
				c := c.(map[string]any)
				if c["removed"] != false || c["scope"] != "camelot" || len(list(c, "rendered")) == 0 {
					t.Errorf("change %v", c)
				}
				types = append(types, c["type"].(string))
			}
			slices.Sort(types)
			if strings.Join(types, ",") != "fact,relation" {
				t.Errorf("types %v", types)
			}
		}},
		{"show empty rev", "dli.show", map[string]any{"rev": ""}, fault.CodeBadParams, nil},
		{"show unknown", "dli.show", map[string]any{"rev": "main~5"}, author.CodeUnknownRevision, nil},
		{"branches", "dli.branches", nil, "", func(t *testing.T, m map[string]any) {
			bs := list(m, "branches")
			if m["serving"] != "main" || len(bs) != 1 || bs[0].(map[string]any)["commit"] != c1 {
				t.Errorf("branches %v", m)
			}
		}},
		{"scopes", "dli.scopes", nil, "", func(t *testing.T, m map[string]any) {
			ds := list(m, "documents")
			if m["commit"] != c1 || strings.Join(strs(list(m, "scopes")), ",") != "camelot" || len(ds) != 2 {
				t.Fatalf("scopes %v", m)
			}
			cam := ds[0].(map[string]any)
			if cam["scope"] != "camelot" || cam["present"] != true || cam["source"] != "lore/camelot.dli" || ds[1].(map[string]any)["present"] != false {
				t.Errorf("documents %v", ds)
			}
		}},
		{"fsck", "dli.fsck", nil, "", func(t *testing.T, m map[string]any) {
			if m["sound"] != true || len(list(m, "problems")) != 0 {
				t.Errorf("fsck %v", m)
			}
		}},
	}
}

// storeGraphDiffCases are the calls of dli.graph, dli.diff and
// dli.project.
func storeGraphDiffCases(h *opsHarness) []opCase {
	c0, c1 := h.commits[0], h.commits[1]
	return []opCase{
		{"graph", "dli.graph", map[string]any{"scope": "camelot"}, "", func(t *testing.T, m map[string]any) {
			es, edges := list(m, "entities"), list(m, "edges")
			if len(es) != 2 || es[0].(map[string]any)["id"] != "arthur" || es[0].(map[string]any)["grade"] == "" || len(edges) != 1 {
				t.Fatalf("graph %v", m)
			}
			e := edges[0].(map[string]any)
			if e["pred"] != "rules" || e["from"] != "arthur" || e["to"] != "camelot" || e["derived"] != false {
				t.Errorf("edge %v", e)
			}
		}},
		{"graph at the first commit", "dli.graph", map[string]any{"scope": "camelot", "rev": c0[:8]}, "", func(t *testing.T, m map[string]any) {
			if len(list(m, "edges")) != 0 || m["commit"] != c0 {
				t.Errorf("graph %v", m)
			}
		}},
		{"graph unknown scope", "dli.graph", map[string]any{"scope": "avalon"}, author.CodeUnknownScope, nil},
		{"graph declared empty scope", "dli.graph", map[string]any{"scope": "logres"}, "", func(t *testing.T, m map[string]any) {
			if len(list(m, "entities")) != 0 {
				t.Errorf("graph %v", m)
			}
		}},
		{"diff", "dli.diff", map[string]any{"scope": "camelot", "from": c0, "to": "main"}, "", func(t *testing.T, m map[string]any) {
			added := list(m, "added")
			if len(added) != 2 || len(list(m, "removed")) != 0 || m["from"] != c0 || m["to"] != c1 {
				t.Fatalf("diff %v", m)
			}
			ids := []string{added[0].(map[string]any)["id"].(string), added[1].(map[string]any)["id"].(string)}
			want := []string{idOf(t, rules), idOf(t, crown)}
			slices.Sort(want)
			if !slices.Equal(ids, want) {
				t.Errorf("added %v, want %v", ids, want)
			}
		}},
		{"diff backwards", "dli.diff", map[string]any{"scope": "camelot", "from": "main", "to": "main~1"}, "", func(t *testing.T, m map[string]any) {
			if len(list(m, "added")) != 0 || len(list(m, "removed")) != 2 {
				t.Errorf("diff %v", m)
			}
		}},
		{"diff missing to", "dli.diff", map[string]any{"scope": "camelot", "from": "main"}, fault.CodeMissingField, nil},
		{"diff empty to", "dli.diff", map[string]any{"scope": "camelot", "from": "main", "to": ""}, fault.CodeBadParams, nil},
		{"project", "dli.project", nil, "", func(t *testing.T, m map[string]any) {
			if m["store"] != ".lore" || m["branch"] != "main" || m["pin"] != "" || m["commit"] != c1 || len(list(m, "documents")) != 2 {
				t.Errorf("project %v", m)
			}
			for _, v := range []any{m["store"], list(m, "documents")[0].(map[string]any)["source"]} {
				if strings.Contains(v.(string), h.dir) {
					t.Errorf("an absolute path in the reply: %v", v)
				}
			}
		}},
	}
}

func strs(l []any) []string {
	out := make([]string, len(l))
	for i, v := range l {
		out[i], _ = v.(string)
	}
	return out
}

// TestExportPaging: pages of any size together are every object of the
// scope once, in order; a cursor keeps its commit when the branch moves;
// a cursor tampered with, or for another scope, is refused.
func TestExportPaging(t *testing.T) {
	h := newOpsHarness(t, false)
	// A decision too: export reads every section.
	b := lorestore.NewBatch()
	if _, err := b.Put("camelot", &objects.Decision{Ident: "canon-1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.Commit(b, lorestore.NewMessage("record canon-1", "record_decision", "camelot"), lorestore.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	all := h.ok("dli.export", map[string]any{"scope": "camelot"})
	if all["total"] != float64(5) || len(list(all, "objects")) != 5 || all["next_cursor"] != "" {
		t.Fatalf("export %v", all)
	}
	var want []string
	for _, o := range list(all, "objects") {
		want = append(want, o.(map[string]any)["id"].(string))
	}
	if last := list(all, "objects")[4].(map[string]any); last["type"] != "decision" {
		t.Errorf("the decision is not last (claims first): %v", last)
	}
	for _, size := range []int{1, 2, 4} {
		var got []string
		cursor := ""
		for pages := 0; ; pages++ {
			params := map[string]any{"scope": "camelot", "limit": size, "rev": all["commit"]}
			if cursor != "" {
				delete(params, "rev")
				params["cursor"] = cursor
			}
			m := h.ok("dli.export", params)
			for _, o := range list(m, "objects") {
				got = append(got, o.(map[string]any)["id"].(string))
			}
			cursor, _ = m["next_cursor"].(string)
			if cursor == "" {
				break
			}
			if pages == 1 && size == 2 {
				// The branch moves mid-way: the cursor keeps its commit.
				h.ok("dli.import", map[string]any{"text": "person kay \"Kay\" proposed s\n", "scope": "camelot", "materialize": true})
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("pages of %d: %v, want %v", size, got, want)
		}
	}
	first := h.ok("dli.export", map[string]any{"scope": "camelot", "limit": 2, "rev": "main~1"})
	cur := first["next_cursor"].(string)
	raw, _ := base64.RawURLEncoding.DecodeString(cur)
	for name, params := range map[string]map[string]any{
		"other scope":     {"scope": "logres", "cursor": cur},
		"not base64":      {"scope": "camelot", "cursor": "!!"},
		"tampered offset": {"scope": "camelot", "cursor": base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), "/2", "/-2", 1)))},
		"past the end":    {"scope": "camelot", "cursor": base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), "/2", "/99", 1)))},
		"other rev":       {"scope": "camelot", "cursor": cur, "rev": "main"},
	} {
		t.Run(name, func(t *testing.T) { h.in(t).refused(author.CodeBadCursor, "dli.export", params) })
	}
	h.refused(author.CodeUnknownScope, "dli.export", map[string]any{"scope": "avalon"})
	h.refused(fault.CodeBadParams, "dli.export", map[string]any{"scope": "camelot", "limit": 5001})
	// The cursor's own commit, named as the rev, is accepted.
	h.ok("dli.export", map[string]any{"scope": "camelot", "cursor": cur, "rev": first["commit"]})
}

// TestNoStore: without a store, the store tools refuse and the text
// tools check standalone.
func TestNoStore(t *testing.T) {
	svc, err := author.New(author.Config{})
	if err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	RegisterDLI(reg, svc, "x")
	h := &opsHarness{t: t, reg: reg, n: newOpsHarness(t, false).n}
	for _, op := range []string{"dli.log", "dli.branches", "dli.fsck", "dli.scopes"} {
		h.refused(author.CodeNoStore, op, nil)
	}
	h.refused(author.CodeNoStore, "dli.import", map[string]any{"text": "", "scope": "camelot"})
	m := h.ok("dli.check", map[string]any{"text": looseText})
	if m["base"] != "" || len(list(m, "findings")) != 1 {
		t.Fatalf("check without a store %v", m)
	}
	if p := h.ok("dli.project", nil); p["store"] != "" || p["commit"] != "" || len(list(p, "documents")) != 0 {
		t.Fatalf("project %v", p)
	}
}
