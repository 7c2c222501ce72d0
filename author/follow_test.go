package author

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// sameWorld holds a followed world to a fresh compile of its commit:
// findings, entities, questions, and every claim's grade.
func sameWorld(t *testing.T, s *lorestore.Store, commit lorestore.Hash, scope string, got *world.World) {
	t.Helper()
	want, err := CompileAt(s, commit, scope)
	if err != nil {
		t.Fatal(err)
	}
	for _, read := range []func(*world.World) any{
		func(w *world.World) any { return w.Findings() },
		func(w *world.World) any { return w.Entities() },
		func(w *world.World) any { return w.Questions() },
	} {
		g, _ := json.Marshal(read(got))
		w, _ := json.Marshal(read(want))
		if string(g) != string(w) {
			t.Fatalf("the followed world differs from a compile:\n got  %s\n want %s", g, w)
		}
	}
	sn, err := s.SnapshotAt(commit)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := LoadScope(sn, scope)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if g, w := got.ClaimGrade(e.ID), want.ClaimGrade(e.ID); g != w {
			t.Fatalf("claim %s grades %s, a compile %s", e.ID, g, w)
		}
	}
}

// headWorld opens a workspace on the serving branch's head and returns
// the head and the workspace's base world.
func (h *harness) headWorld() (lorestore.Hash, *world.World) {
	h.t.Helper()
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	head, err := h.store.Head("main")
	if err != nil {
		h.t.Fatal(err)
	}
	return head, h.worldOf(ws)
}

// TestMaterializeThenOpenDerives: after a materialize (and after a defeat,
// whose world is filed with its records staged), the new head's world is
// derived from the old one's, never compiled, and reads as a compile.
func TestMaterializeThenOpenDerives(t *testing.T) {
	h, ws, fact := defeatWorld(t) // one compile (the first open), one materialize
	compiles, derives, settles := h.svc.cache.compileCount(), h.svc.cache.deriveCount(), h.svc.cache.settleCount()
	if compiles != 1 || derives != 1 || settles != 1 {
		t.Fatalf("open and materialize: %d compiles, %d derivations; want 1 and 1", compiles, derives)
	}
	head, w := h.headWorld()
	sameWorld(t, h.store, head, "camelot", w)
	h.ok("author.defeat", map[string]any{"workspace": ws, "claim_id": fact, "decision": "d-2", "defeated_decision": "d-1"})
	for i := range 3 {
		h.ok("author.add_fact", map[string]any{"workspace": ws, "entity": "mireth", "key": "seen", "value": fmt.Sprint("harbour-", i), "provenance": cited("provisional", "d-1")})
		h.ok("author.materialize", map[string]any{"workspace": ws})
	}
	head, w = h.headWorld()
	if st := w.EvalStats(); st.Strata > 0 && st.Reused+st.Maintained == 0 {
		t.Fatalf("the head's world evaluated every stratum from scratch: %+v", st)
	}
	if n := h.svc.cache.compileCount() - compiles; n != 0 {
		t.Fatalf("%d compiles for a defeat, three materializes and an open", n)
	}
	if n := h.svc.cache.deriveCount() - derives; n != 3 || h.svc.cache.settleCount()-settles != 3 {
		t.Fatalf("%d derivations (%d settled) for three materializes, want 3 (3)", n, h.svc.cache.settleCount()-settles)
	}
	sameWorld(t, h.store, head, "camelot", w)
	// Under a decision the committed layer is the stamped one, not the
	// staged: the cache follows the commit's diff instead.
	h.ok("author.add_fact", map[string]any{"workspace": ws, "entity": "mireth", "key": "seen", "value": "the-wall", "provenance": prop()})
	h.ok("author.materialize", map[string]any{"workspace": ws, "decision": "d-1"})
	head, w = h.headWorld()
	if h.svc.cache.compileCount() != compiles || h.svc.cache.deriveCount()-derives != 4 || h.svc.cache.settleCount()-settles != 3 {
		t.Fatalf("a stamped materialize: %d compiles, %d derivations, %d settled", h.svc.cache.compileCount()-compiles,
			h.svc.cache.deriveCount()-derives, h.svc.cache.settleCount()-settles)
	}
	sameWorld(t, h.store, head, "camelot", w)
}

// TestFollowCommitsMadeElsewhere: commits another writer made (or a sync
// fetched) are followed from the last cached world, within maxFollow
// first parents or, past that, by ancestry; with nothing cached the head
// is compiled.
func TestFollowCommitsMadeElsewhere(t *testing.T) {
	h := newHarness(t, "camelot")
	h.headWorld()
	commitElsewhere := func(tag string, n int) {
		for i := range n {
			b := lorestore.NewBatch()
			for _, o := range []objects.Object{
				&objects.Entity{Kind: objects.KindPerson, Ident: fmt.Sprint(tag, i), Name: "P", Provenance: objects.Proposed("other")},
				&objects.Fact{Entity: fmt.Sprint(tag, i), Key: "knows", Value: fmt.Sprint(tag, i/2), Provenance: objects.Proposed("other")},
			} {
				if _, err := b.Put("camelot", o); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := h.store.Commit(b, lorestore.NewMessage("elsewhere", "materialize", "camelot"), lorestore.CommitOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := []struct {
		name, tag         string
		commits           int
		empty             bool // open with an empty cache
		compiles, derives int
	}{
		{"a few commits", "a", 5, false, 0, 1},
		{"as many as are followed", "b", maxFollow, false, 0, 1},
		{"more than are followed: by ancestry", "c", maxFollow + 1, false, 0, 1},
		{"nothing cached", "d", 1, true, 1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.empty { // nothing cached, in memory or in world files
				h.svc.cache = newWorldCache(16)
				h.store.WaitBackground()
				os.RemoveAll(filepath.Join(h.store.Dir(), worldsDir))
			}
			compiles, derives := h.svc.cache.compileCount(), h.svc.cache.deriveCount()
			commitElsewhere(tc.tag, tc.commits)
			head, w := h.headWorld()
			if c, d := h.svc.cache.compileCount()-compiles, h.svc.cache.deriveCount()-derives; c != tc.compiles || d != tc.derives {
				t.Fatalf("%d compiles and %d derivations, want %d and %d", c, d, tc.compiles, tc.derives)
			}
			sameWorld(t, h.store, head, "camelot", w)
		})
	}
}

// TestMergeDerives: the merged world of author.merge is the target's world
// advanced by what the merge brought in, with no compile, and reads as a
// compile of the merge commit.
func TestMergeDerives(t *testing.T) {
	h, ws := conflictSetup(t)
	h.materializeOn("main", map[string]any{"entity": "galahad", "key": "father", "value": "lancelot", "provenance": citedProv("canon-1")})
	h.materializeOn("retcon", map[string]any{"entity": "pellinore", "key": "title", "value": "king", "provenance": citedProv("canon-1")})
	compiles, derives := h.svc.cache.compileCount(), h.svc.cache.deriveCount()
	if r := h.ok("author.merge", map[string]any{"workspace": ws, "source": "retcon"}); r["merged"] != true {
		t.Fatalf("merge %v", r)
	}
	head, w := h.headWorld()
	if n := h.svc.cache.compileCount() - compiles; n != 0 {
		t.Fatalf("%d compiles for a merge and an open on it", n)
	}
	if h.svc.cache.deriveCount() == derives {
		t.Fatal("nothing was derived for the merge")
	}
	sameWorld(t, h.store, head, "camelot", w)
	id, err := (&objects.Fact{Entity: "pellinore", Key: "title", Value: "king", Provenance: objects.Cited(objects.CitedRatified, "canon-1")}).ID()
	if err != nil {
		t.Fatal(err)
	}
	if w.ClaimGrade(id) != datalog.Certain {
		t.Fatal("the merged world lacks the source's fact")
	}
}

// TestScopeConflictsDerives: the conflicts a store merge reports, from a
// compiled base and three derived worlds, are those of four compiles.
func TestScopeConflictsDerives(t *testing.T) {
	h, _ := conflictSetup(t)
	h.materializeOn("main", map[string]any{"entity": "galahad", "key": "father", "value": "lancelot", "provenance": citedProv("canon-1")})
	h.materializeOn("retcon", map[string]any{"entity": "galahad", "key": "father", "value": "pellinore", "provenance": citedProv("canon-1")})
	r, err := h.store.Merge("retcon", lorestore.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ScopeConflicts(h.store, r.Base, r.Target, r.Source, r.Commit)
	if err != nil {
		t.Fatal(err)
	}
	var ws [4]*world.World
	for i, c := range []lorestore.Hash{r.Base, r.Target, r.Source, r.Commit} {
		if ws[i], err = CompileAt(h.store, c, "camelot"); err != nil {
			t.Fatal(err)
		}
	}
	want := world.MergeConflicts(ws[0], ws[1], ws[2], ws[3])
	if len(want) == 0 {
		t.Fatal("the seeded conflict is no conflict")
	}
	g, _ := json.Marshal(got["camelot"])
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Fatalf("conflicts:\n got  %s\n want %s", g, w)
	}
	sameWorld(t, h.store, r.Commit, "camelot", mustMergeWorld(t, h, r))
}

func mustMergeWorld(t *testing.T, h *harness, r lorestore.MergeResult) *world.World {
	t.Helper()
	ws, err := mergeWorlds(h.store, r.Base, r.Target, r.Source, r.Commit, "camelot")
	if err != nil {
		t.Fatal(err)
	}
	return ws[3]
}

// TestFollowRandomHistory: over random histories of materializes (plain
// and under a decision), defeats and commits another writer made, the
// head's world a workspace opens on is always a compile's, and only the
// first open compiles.
func TestFollowRandomHistory(t *testing.T) {
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 21))
		h, ws, fact := defeatWorld(t)
		compiles := h.svc.cache.compileCount()
		for step := range 14 {
			switch r.IntN(5) {
			case 0, 1:
				for i := range 1 + r.IntN(3) {
					h.ok("author.add_fact", map[string]any{"workspace": ws, "entity": "mireth", "key": fmt.Sprint("k", r.IntN(3)),
						"value": fmt.Sprint("v", step, "-", i), "provenance": cited("provisional", "d-1")})
				}
				h.ok("author.materialize", map[string]any{"workspace": ws})
			case 2:
				h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": fmt.Sprint("x", step), "name": "X", "provenance": prop()})
				h.ok("author.materialize", map[string]any{"workspace": ws, "decision": "d-1"})
			case 3:
				h.ok("author.defeat", map[string]any{"workspace": ws, "claim_id": fact, "decision": fmt.Sprint("d-", step+2), "defeated_decision": "d-1"})
			case 4:
				b := lorestore.NewBatch()
				if _, err := b.Put("camelot", &objects.Fact{Entity: "mireth", Key: "seen", Value: fmt.Sprint("w", step), Provenance: objects.Cited(objects.CitedProvisional, "d-1")}); err != nil {
					t.Fatal(err)
				}
				if _, err := h.store.Commit(b, lorestore.NewMessage("elsewhere", "materialize", "camelot"), lorestore.CommitOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			head, w := h.headWorld()
			sameWorld(t, h.store, head, "camelot", w)
		}
		if n := h.svc.cache.compileCount() - compiles; n != 0 {
			t.Fatalf("seed %d: %d compiles after the first open", seed, n)
		}
	}
}

// TestFollowSecondParent: a head whose first parents never meet a cached
// world, but which merged one in as a second parent (a sync's fast-forward
// to another replica's merge), follows it by ancestry.
func TestFollowSecondParent(t *testing.T) {
	h := newHarness(t, "camelot")
	root := h.head("main")
	h.commitObjects("main", "camelot", &objects.Entity{Kind: objects.KindPerson, Ident: "ours", Name: "O", Provenance: prop0})
	ours, _ := h.headWorld() // compiled and cached
	if _, err := h.store.CreateBranch("replica", root.String()); err != nil {
		t.Fatal(err)
	}
	h.commitObjects("replica", "camelot", &objects.Entity{Kind: objects.KindPerson, Ident: "theirs", Name: "T", Provenance: prop0})
	r, err := h.store.Merge("main", lorestore.MergeOptions{Target: "replica"})
	if err != nil {
		t.Fatal(err)
	}
	if first, _, _ := h.store.FirstParent(r.Commit); first == ours {
		t.Fatal("the merge's first parent is ours: nothing to find by ancestry")
	}
	if _, err := h.store.Merge("replica", lorestore.MergeOptions{FastForward: true}); err != nil {
		t.Fatal(err)
	}
	compiles, derives := h.svc.cache.compileCount(), h.svc.cache.deriveCount()
	head, w := h.headWorld()
	if head != r.Commit || w == nil {
		t.Fatalf("main is at %s, not the replica's merge %s", head, r.Commit)
	}
	if c, d := h.svc.cache.compileCount()-compiles, h.svc.cache.deriveCount()-derives; c != 0 || d != 1 {
		t.Fatalf("%d compiles, %d derivations; want 0 and 1", c, d)
	}
	sameWorld(t, h.store, head, "camelot", w)
}

var prop0 = objects.Proposed("s-0")
