package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dliops"
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
	reg, err := buildRegistry(s, p)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestOpsDoc: docs/ops.md is the op reference generated from the full
// registry serve builds; it fails when the file is stale (go test -update
// regenerates it).
func TestOpsDoc(t *testing.T) {
	reg := fullRegistry(t)
	doc := string(worker.OpsDoc(reg, dliops.ErrorCodes()))
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
