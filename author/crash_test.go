package author

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/lorestore/crashtest"
	"github.com/deloreis/deloreis/objects"
)

// recordedHarness is a harness over the store at dir, opened through rec.
func recordedHarness(t *testing.T, dir string, rec *crashtest.Recorder, branch string) *harness {
	t.Helper()
	clock := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	s, err := lorestore.Open(dir, lorestore.Options{FS: rec, Now: func() time.Time { clock = clock.Add(time.Second); return clock }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	svc, err := New(Config{Store: s, Documents: []string{"camelot"}, Branch: branch})
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, store: s, svc: svc}
}

// materialize stages one person in a new workspace and materializes it,
// returning the commit.
func (h *harness) materializePerson(id string) string {
	h.t.Helper()
	w := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	h.ok("author.add_entity", map[string]any{"workspace": w, "kind": "person", "id": id, "name": id, "provenance": prop()})
	return h.ok("author.materialize", map[string]any{"workspace": w})["root_hash"].(string)
}

// TestCrashMaterializeMergeSync replays every crash of a default
// (durable) project through author's use cases: materializes on main and
// on a branch, a merge, a push to a bare hub, and on a clone a sync that
// fetches, merges and pushes. After each crash both stores open, pass
// lorestore's fsck and git fsck --strict, and hold every commit a call
// returned. Fails with objects/pack's flush in publishFiles removed (a
// branch names a pack the crash lost).
func TestCrashMaterializeMergeSync(t *testing.T) {
	ctx := context.Background()
	dirA := filepath.Join(t.TempDir(), "a.lore")
	s, err := lorestore.Init(dirA, lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seed, err := New(Config{Store: s, Documents: []string{"camelot"}})
	if err != nil {
		t.Fatal(err)
	}
	p := objects.Proposed("s-1")
	(&harness{t: t, store: s, svc: seed}).commitRemote("camelot",
		&objects.Decision{Ident: "canon-1"},
		&objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: p},
		&objects.Entity{Kind: objects.KindPerson, Ident: "lancelot", Name: "Lancelot", Provenance: p},
		&objects.Functional{Pred: "father", Provenance: p})
	hub := bareRemote(t, "main")
	if err := seed.AddRemote("origin", hub); err != nil {
		t.Fatal(err)
	}
	if _, err := seed.Push(ctx, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	cl, err := Clone(ctx, CloneOptions{URL: "file://" + hub, Dir: filepath.Join(t.TempDir(), "b")})
	if err != nil {
		t.Fatal(err)
	}

	rec, err := crashtest.Record(dirA, cl.Store)
	if err != nil {
		t.Fatal(err)
	}
	ack := func(store, branch, commit, what string) {
		rec.Ack(crashtest.Ack{Store: store, Branch: branch, Commit: commit, What: what})
	}
	a := recordedHarness(t, dirA, rec, "")
	ack(dirA, "main", a.setFather("lancelot"), "materialize")
	if _, err := a.svc.CreateBranch("side", "main", false); err != nil {
		t.Fatal(err)
	}
	side := recordedHarness(t, dirA, rec, "side")
	ack(dirA, "side", side.materializePerson("percival"), "materialize on side")
	ack(dirA, "main", a.materializePerson("bors"), "materialize")
	w := a.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	merged := a.ok("author.merge", map[string]any{"workspace": w, "source": "side"})
	if merged["merged"] != true {
		t.Fatalf("merge: %v", merged)
	}
	ack(dirA, "main", merged["root_hash"].(string), "merge")
	if _, err := a.svc.Push(ctx, PushOptions{}); err != nil {
		t.Fatal(err)
	}

	b := recordedHarness(t, cl.Store, rec, "")
	ack(cl.Store, "main", b.materializePerson("ector"), "materialize on the clone")
	rep, err := b.svc.Sync(ctx, SyncOptions{})
	if err != nil || !rep.Pushed {
		t.Fatalf("sync: %+v, %v", rep, err)
	}
	ack(cl.Store, "main", rep.Head, "sync")
	ack(cl.Store, "main", merged["root_hash"].(string), "sync (the hub's merge)")
	for _, h := range []*harness{a, side, b} {
		h.store.WaitBackground()
	}
	t.Log(rec.Replay(t))
}
