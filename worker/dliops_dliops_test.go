package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/project"
)

// opsHarness is the dli.* ops over a fresh project, driven through the
// registry as a transport drives it.
type opsHarness struct {
	t       *testing.T
	dir     string
	store   *lorestore.Store
	reg     *Registry
	commits []string // the setup commits, oldest first
	n       *atomic.Int64
}

var prov = objects.Proposed("session-1a0")

// setup objects: two commits to camelot, nothing yet in logres.
var (
	arthur  = &objects.Entity{Kind: objects.KindPerson, Ident: "arthur", Name: "Arthur", Provenance: prov}
	camelot = &objects.Entity{Kind: objects.KindPlace, Ident: "camelot", Name: "Camelot", Provenance: prov}
	rules   = &objects.Relation{Relation: "rules", From: "arthur", To: "camelot", Provenance: prov}
	crown   = &objects.Fact{Entity: "arthur", Key: "title", Value: "king", Provenance: prov}
)

// newHarness makes a project declaring camelot and logres; pin, when
// given, pins it to that revision of the setup ("" for none).
func newOpsHarness(t *testing.T, pinned bool) *opsHarness {
	t.Helper()
	dir := t.TempDir()
	clock := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	s, err := lorestore.Init(filepath.Join(dir, lorestore.DefaultDir), lorestore.Options{
		StoreID: "5eed5eed5eed5eed5eed5eed5eed5eed",
		Now:     func() time.Time { clock = clock.Add(time.Minute); return clock },
		Author:  lorestore.Signature{Name: "Test Keeper", Email: "keeper@deloreis.invalid"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	h := &opsHarness{t: t, dir: dir, store: s, n: new(atomic.Int64)}
	for _, batch := range [][]objects.Object{{arthur, camelot}, {rules, crown}} {
		b := lorestore.NewBatch()
		for _, o := range batch {
			if _, err := b.Put("camelot", o); err != nil {
				t.Fatal(err)
			}
		}
		res, err := s.Commit(b, lorestore.NewMessage(fmt.Sprintf("materialize camelot: %d objects", len(batch)), "materialize", "camelot"), lorestore.CommitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		h.commits = append(h.commits, res.Commit.String())
	}
	p := &project.Project{Dir: dir, Store: filepath.Join(dir, lorestore.DefaultDir), Branch: "main",
		Documents: []project.Document{{Scope: "logres"}, {Scope: "camelot", Source: filepath.Join(dir, "lore", "camelot.dli")}}}
	if pinned {
		p.Pin = h.commits[0]
	}
	svc, err := author.ForProject(s, p)
	if err != nil {
		t.Fatal(err)
	}
	h.reg = NewRegistry()
	RegisterDLI(h.reg, svc, "9.9.9-test")
	return h
}

// call dispatches one request and decodes the response.
func (h *opsHarness) call(op string, params any) map[string]any {
	h.t.Helper()
	req := map[string]any{"dli": "2.0.0", "id": fmt.Sprintf("rq-%d", h.n.Add(1)), "op": op}
	if params != nil {
		req["params"] = params
	}
	line, _ := json.Marshal(req)
	out, err := json.Marshal(h.reg.Dispatch(context.Background(), line))
	if err != nil {
		h.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		h.t.Fatal(err)
	}
	return m
}

// in is the opsHarness reporting to a subtest.
func (h *opsHarness) in(t *testing.T) *opsHarness {
	c := *h
	c.t = t
	return &c
}

func (h *opsHarness) ok(op string, params any) map[string]any {
	h.t.Helper()
	m := h.call(op, params)
	if m["ok"] != true {
		h.t.Fatalf("%s %v: %v", op, params, m["error"])
	}
	return m
}

func (h *opsHarness) refused(code, op string, params any) map[string]any {
	h.t.Helper()
	m := h.call(op, params)
	e, _ := m["error"].(map[string]any)
	if m["ok"] != false || e["code"] != code {
		h.t.Fatalf("%s %v: want error %s, got %v", op, params, code, m)
	}
	return e
}

// head is the main branch's head now.
func (h *opsHarness) head() string {
	h.t.Helper()
	c, err := h.store.Head("main")
	if err != nil {
		h.t.Fatal(err)
	}
	return c.String()
}

func idOf(t *testing.T, o objects.Object) string {
	t.Helper()
	id, err := o.ID()
	if err != nil {
		t.Fatal(err)
	}
	return id.String()
}

func list(m map[string]any, key string) []any {
	l, _ := m[key].([]any)
	return l
}

// dliOps are the ops this package serves, exactly.
var dliOps = []string{"dli.branches", "dli.check", "dli.declare_scope", "dli.diff", "dli.errors", "dli.export", "dli.findings", "dli.fmt", "dli.fsck",
	"dli.graph", "dli.hello", "dli.import", "dli.killed", "dli.log", "dli.object", "dli.ops", "dli.parse", "dli.project",
	"dli.render", "dli.schema", "dli.scopes", "dli.show", "dli.validate", "dli.version"}

// TestRegistered: the 24 ops, none mutating, only dli.hello in the
// fiction profile.
func TestRegistered(t *testing.T) {
	h := newOpsHarness(t, false)
	ops := h.reg.Ops(ProfileExtended)
	if len(ops) != len(dliOps) {
		t.Fatalf("%d ops, want %d", len(ops), len(dliOps))
	}
	for i, op := range ops {
		if op.Name != dliOps[i] {
			t.Errorf("op %d is %s, want %s", i, op.Name, dliOps[i])
		}
		if op.Mutating {
			t.Errorf("%s is mutating", op.Name)
		}
		if op.Fiction != (op.Name == "dli.hello") {
			t.Errorf("%s: fiction %v", op.Name, op.Fiction)
		}
		if op.Summary == "" || !strings.HasSuffix(op.Summary, ".") {
			t.Errorf("%s: summary %q", op.Name, op.Summary)
		}
	}
	// No result field sits where the response's own are.
	for _, op := range ops {
		props, _ := op.ResultSchema()["properties"].(map[string]any)
		for _, k := range []string{"id", "ok", "error"} {
			if _, clash := props[k]; clash {
				t.Errorf("%s: result field %q clashes with the response's own", op.Name, k)
			}
		}
	}
	// A mutation-law field on a dli op is refused before the handler runs.
	line := `{"dli":"2.0.0","id":"x","op":"dli.import","expected_digest":"wd-1","params":{"text":"","scope":"camelot","materialize":true}}`
	if r := h.reg.Dispatch(context.Background(), []byte(line)); r.Err == nil || r.Err.Code != CodeNotMutating {
		t.Fatalf("fenced dli.import: %+v", r)
	}
}
