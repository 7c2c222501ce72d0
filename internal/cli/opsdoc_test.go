package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/project"
	"github.com/deloreis/deloreis/worker"
)

// fullRegistry is the registry serve builds, over an empty project.
func fullRegistry(t *testing.T) *worker.Registry {
	t.Helper()
	dir := t.TempDir()
	s, err := lorestore.Init(filepath.Join(dir, lorestore.DefaultDir), lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p := &project.Project{Dir: dir, Store: filepath.Join(dir, lorestore.DefaultDir), Branch: lorestore.DefaultBranch,
		Documents: []project.Document{{Scope: "camelot"}}}
	svc, err := author.ForProject(s, p)
	if err != nil {
		t.Fatal(err)
	}
	return worker.ProjectRegistry(svc, version)
}

// TestOpsDoc: docs/ops.md is the op reference generated from the full
// registry serve builds; it fails when the file is stale (go test -update
// regenerates it).
func TestOpsDoc(t *testing.T) {
	reg := fullRegistry(t)
	doc := string(worker.OpsDoc(reg, worker.DLIErrorCodes()))
	for _, op := range reg.Ops(worker.ProfileExtended) {
		if !strings.Contains(doc, "\n## "+op.Name+"\n") {
			t.Errorf("no section for %s", op.Name)
		}
	}
	goldenFile(t, filepath.Join("..", "..", "docs", "ops.md"), doc)
}

// TestNoResultFieldClash: no op of the full registry has a result field
// where the response keeps its own (id, ok, error): the result's fields
// sit beside them in one object (DL-0143).
func TestNoResultFieldClash(t *testing.T) {
	for _, op := range fullRegistry(t).Ops(worker.ProfileExtended) {
		props, _ := op.ResultSchema()["properties"].(map[string]any)
		for _, k := range []string{"id", "ok", "error"} {
			if _, clash := props[k]; clash {
				t.Errorf("%s: result field %q clashes with the response's own", op.Name, k)
			}
		}
	}
}

// surface is the 2.0.0 op inventory: the spec counts 63 operations,
// author.* and dli.* together (DL-0102 lists how they divide), and the
// project adds one, dli.declare_scope: the servers' path to declaring a
// scope in the lore (DL-0407).
var surface = []string{
	// workspace
	"author.open", "author.status", "author.diff", "author.discard", "author.materialize",
	// claims
	"author.add_entity", "author.add_fact", "author.add_relation", "author.add_event", "author.add_before",
	"author.open_question", "author.add_option", "author.add_hypothesis", "author.suppose",
	// reads besides status and diff
	"author.query", "author.why", "author.check", "author.entities", "author.history", "author.questions",
	// standing
	"author.record_decision", "author.record_decisions", "author.set_standing", "author.defeat",
	// declarations
	"author.declare_functional", "author.assert_same_as", "author.add_rule", "author.declare_inertial", "author.assert_predicate_same_as",
	// expert lane
	"author.add_state", "author.add_dialect", "author.add_word", "author.add_name", "author.add_derivation",
	"author.add_transition", "author.add_ledger_entry",
	// branch and merge
	"author.branch", "author.merge",
	// worker ops
	"dli.hello", "dli.version", "dli.ops", "dli.schema", "dli.errors", "dli.findings", "dli.killed",
	"dli.check", "dli.fmt", "dli.parse", "dli.render", "dli.import", "dli.validate", "dli.canon", "dli.name.check",
	"dli.object", "dli.log", "dli.show", "dli.branches", "dli.scopes", "dli.export", "dli.fsck", "dli.graph",
	"dli.diff", "dli.project",
	// the project in the lore
	"dli.declare_scope",
}

// TestOpInventory: serve's registry serves exactly the 63 operations of
// the 2.0.0 surface and dli.declare_scope, and the fiction profile is a
// subset of them.
func TestOpInventory(t *testing.T) {
	if len(surface) != 64 {
		t.Fatalf("the inventory lists %d ops, want the spec's 63 and dli.declare_scope", len(surface))
	}
	want := append([]string(nil), surface...)
	sort.Strings(want)
	reg := fullRegistry(t)
	var got []string
	for _, op := range reg.Ops(worker.ProfileExtended) {
		got = append(got, op.Name)
	}
	sort.Strings(got)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("served ops differ from the 2.0.0 surface:\n got  %v\n want %v", got, want)
	}
	for _, op := range reg.Ops(worker.ProfileFiction) {
		if !slices.Contains(want, op.Name) {
			t.Errorf("fiction op %s is not in the surface", op.Name)
		}
	}
}

// TestEveryOpHasAGoldenSession: each served op is called by at least one
// golden stdio session (issue 10, acceptance 1).
func TestEveryOpHasAGoldenSession(t *testing.T) {
	files, err := filepath.Glob("testdata/serve/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no sessions: %v", err)
	}
	var all strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	for _, op := range fullRegistry(t).Ops(worker.ProfileExtended) {
		if !strings.Contains(all.String(), `"op":"`+op.Name+`"`) {
			t.Errorf("no golden session calls %s", op.Name)
		}
	}
}
