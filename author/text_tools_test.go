package author

import (
	"testing"

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
