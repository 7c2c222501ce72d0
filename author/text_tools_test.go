package author

import (
	"testing"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/project"
)

// TestStagerKept: the text tools' stager (and the base worlds it
// compiled) serves every check while the branch head stands, and is made
// again when an import moves it.
func TestStagerKept(t *testing.T) {
	h := newHarness(t, "camelot")
	svc, err := ForProject(h.store, &project.Project{Dir: t.TempDir(), Branch: "main", Documents: []project.Document{{Scope: "camelot"}}})
	if err != nil {
		t.Fatal(err)
	}
	h.svc = svc
	const text = "scope camelot\nperson galahad \"Galahad\" proposed s\n"
	h.ok("dli.check", map[string]any{"text": text})
	first := svc.textStager
	h.ok("dli.check", map[string]any{"text": text})
	if svc.textStager != first || first == nil {
		t.Fatal("a second check over the same head made a new stager")
	}
	h.ok("dli.import", map[string]any{"text": text, "scope": "camelot", "materialize": true})
	head, err := h.store.Head("main")
	if err != nil {
		t.Fatal(err)
	}
	m := h.ok("dli.check", map[string]any{"text": text})
	if svc.textStager == first || m["base"] != head.String() {
		t.Fatalf("the check after an import did not see the new head: base %v, head %s", m["base"], head)
	}
}

// TestDialectsKeepTheCache: reading the project as served (Project) keeps
// the compiled worlds while the dialects stay what they were compiled
// with, and drops them when the lore brings other dialects.
func TestDialectsKeepTheCache(t *testing.T) {
	h := newHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()})
	h.ok("author.materialize", map[string]any{"workspace": ws})
	// The serving commit moved: Project reads the declaration again, and
	// the dialects are what they were.
	if _, err := h.svc.Project(); err != nil {
		t.Fatal(err)
	}
	h.svc.cache.mu.Lock()
	kept := len(h.svc.cache.entries)
	h.svc.cache.mu.Unlock()
	if kept == 0 {
		t.Fatal("reading an unchanged project dropped the compiled worlds")
	}
	d := &objects.Dialect{Ident: "river-speech", Consonants: []string{"l", "r"}, Vowels: []string{"a"}, Shapes: []string{"CV"},
		MinSyllables: 1, MaxSyllables: 3}
	data, err := project.EncodeDialect(d)
	if err != nil {
		t.Fatal(err)
	}
	b := lorestore.NewBatch()
	if err := b.PutProjectDialect(d.Ident, data); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.Commit(b, lorestore.NewMessage("dialect", "declare", ""), lorestore.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.Project(); err != nil {
		t.Fatal(err)
	}
	h.svc.cache.mu.Lock()
	defer h.svc.cache.mu.Unlock()
	if len(h.svc.cache.dialects) != 1 || len(h.svc.cache.entries) != 0 {
		t.Fatalf("after the lore brought a dialect the cache compiles with %d dialects and keeps %d worlds", len(h.svc.cache.dialects), len(h.svc.cache.entries))
	}
}
