package author

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// bareRemote makes an empty bare git repository whose HEAD names head.
func bareRemote(t *testing.T, head string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "lore.git")
	cmd := exec.Command("git", "init", "-q", "--bare", "-b", head, dir)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return dir
}

// replica is a harness over a clone's store, serving camelot.
func replica(t *testing.T, store string) *harness {
	t.Helper()
	clock := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	s, err := lorestore.Open(store, lorestore.Options{Now: func() time.Time { clock = clock.Add(time.Second); return clock }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	svc, err := New(Config{Store: s, Documents: []string{"camelot"}})
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, store: s, svc: svc}
}

// setFather materializes galahad's father on main.
func (h *harness) setFather(father string) string {
	h.t.Helper()
	w := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	h.ok("author.add_fact", map[string]any{"workspace": w, "entity": "galahad", "key": "father", "value": father,
		"provenance": map[string]any{"kind": "cited", "state": "ratified", "decisions": []string{"canon-1"}}})
	return h.ok("author.materialize", map[string]any{"workspace": w})["root_hash"].(string)
}

func mainHead(t *testing.T, s *lorestore.Store) string {
	t.Helper()
	h, err := s.Head(lorestore.DefaultBranch)
	if err != nil {
		t.Fatal(err)
	}
	return h.String()
}

func TestRemotesAddListRemove(t *testing.T) {
	h := newHarness(t)
	for _, r := range [][2]string{{"origin", "/srv/lore/a.git"}, {"backup", "https://example.invalid/b.git"}} {
		if err := h.svc.AddRemote(r[0], r[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.svc.AddRemote("origin", "/elsewhere"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("a second origin: %v", err)
	}
	rs, err := h.svc.Remotes()
	if err != nil || len(rs) != 2 || rs[0].Name != "backup" || rs[1].Name != "origin" || rs[1].URLs[0] != "/srv/lore/a.git" {
		t.Fatalf("remotes %+v, %v", rs, err)
	}
	if err := h.svc.RemoveRemote("origin"); err != nil {
		t.Fatal(err)
	}
	if err := h.svc.RemoveRemote("nosuch"); err == nil {
		t.Fatal("removing a missing remote succeeded")
	}
	if rs, _ := h.svc.Remotes(); len(rs) != 1 || rs[0].Name != "backup" {
		t.Fatalf("after remove: %+v", rs)
	}
	none, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := none.Remotes(); err == nil {
		t.Fatal("a service with no store listed remotes")
	}
}

// TestPushCloneFetchPullSync moves one history between two replicas
// through a bare remote: push, clone (a project folder with no
// deloreis.toml), fetch, a fast-forward pull, a merging pull that reports
// its world conflict, and a sync each way.
func TestPushCloneFetchPullSync(t *testing.T) {
	r := &remoteTrip{ctx: context.Background(), p: objects.Proposed("s-1")}
	r.push(t)
	r.clone(t)
	r.pullFastForward(t)
	r.pullMerging(t)
	r.syncBothWays(t)
}

// remoteTrip is the state TestPushCloneFetchPullSync's phases share: the
// replica A that pushes first, the bare remote, and the replica B cloned
// from it.
type remoteTrip struct {
	ctx    context.Context
	p      *objects.Provenance
	a, b   *harness
	remote string
}

// push commits a first history on A and pushes it to a new bare remote.
func (r *remoteTrip) push(t *testing.T) {
	t.Helper()
	r.a = newHarness(t, "camelot")
	p := r.p
	r.a.commitRemote("camelot",
		&objects.Decision{Ident: "canon-1"},
		&objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: p},
		&objects.Entity{Kind: objects.KindPerson, Ident: "lancelot", Name: "Lancelot", Provenance: p},
		&objects.Entity{Kind: objects.KindPerson, Ident: "pellinore", Name: "Pellinore", Provenance: p},
		&objects.Functional{Pred: "father", Provenance: p})
	r.remote = bareRemote(t, "main")
	if err := r.a.svc.AddRemote("origin", r.remote); err != nil {
		t.Fatal(err)
	}
	var stages int
	pushed, err := r.a.svc.Push(r.ctx, PushOptions{Progress: func(string, int, int) { stages++ }})
	if err != nil {
		t.Fatal(err)
	}
	if len(pushed.Updates) != 1 || !pushed.Updates[0].Created() || pushed.Updates[0].New != mainHead(t, r.a.store) || pushed.DanglingHead {
		t.Fatalf("push %+v", pushed)
	}
	if stages == 0 {
		t.Error("push reported no progress")
	}
}

// clone clones the remote into a new project folder, B, and checks clones
// into a full folder and from nothing fail.
func (r *remoteTrip) clone(t *testing.T) {
	t.Helper()
	ctx, remote := r.ctx, r.remote
	// Clone makes the project folder and its store, and nothing else.
	work := t.TempDir()
	copyDir := filepath.Join(work, "copy")
	cl, err := Clone(ctx, CloneOptions{URL: "file://" + remote, Dir: copyDir})
	if err != nil {
		t.Fatal(err)
	}
	if cl.Dir != copyDir || cl.Store != filepath.Join(copyDir, DefaultStoreDir) {
		t.Fatalf("clone %+v", cl)
	}
	if entries, _ := os.ReadDir(copyDir); len(entries) != 1 || entries[0].Name() != DefaultStoreDir {
		t.Fatalf("the project folder holds %v", entries)
	}
	opened, err := Open(OpenOptions{Dir: copyDir})
	if err != nil {
		t.Fatal(err)
	}
	opened.Close()
	if _, err := Clone(ctx, CloneOptions{URL: "file://" + remote, Dir: copyDir}); err == nil || !strings.Contains(err.Error(), "exists and is not empty") {
		t.Fatalf("clone into a full folder: %v", err)
	}
	missing := filepath.Join(work, "missing")
	if _, err := Clone(ctx, CloneOptions{URL: "file://" + filepath.Join(work, "nowhere.git"), Dir: missing}); err == nil {
		t.Fatal("clone of nothing succeeded")
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Fatalf("a failed clone left its folder: %v", err)
	}
	r.b = replica(t, cl.Store)
}

// pullFastForward is the fetch and fast-forward pull phase, and the
// pulls after it that have nothing to do.
func (r *remoteTrip) pullFastForward(t *testing.T) {
	t.Helper()
	ctx, a, b := r.ctx, r.a, r.b
	// A moves on; B fetches it, then pulls it as a fast-forward.
	a.commitRemote("camelot", &objects.Entity{Kind: objects.KindPerson, Ident: "percival", Name: "Percival", Provenance: r.p})
	aHead := mainHead(t, a.store)
	if _, err := a.svc.Push(ctx, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	f, err := b.svc.Fetch(ctx, FetchOptions{})
	if err != nil || len(f.Updates) != 1 || f.Updates[0].Ref != "refs/remotes/origin/main" || f.Updates[0].New != aHead || f.Updates[0].UpToDate() {
		t.Fatalf("fetch %+v, %v", f, err)
	}
	fetched := 0
	pl, err := b.svc.Pull(ctx, PullOptions{Fetched: func() { fetched++ }})
	if err != nil || !pl.FastForward || pl.Merged || pl.Head != aHead || pl.Into != "main" || pl.Remote != "origin" || fetched != 1 {
		t.Fatalf("fast-forward pull %+v, %v (fetched %d)", pl, err, fetched)
	}
	if pl, err := b.svc.Pull(ctx, PullOptions{}); err != nil || !pl.UpToDate {
		t.Fatalf("second pull %+v, %v", pl, err)
	}
	if _, err := b.svc.Pull(ctx, PullOptions{Branch: "nowhere"}); err == nil || !strings.Contains(err.Error(), "no branch nowhere") {
		t.Fatalf("pull of a missing branch: %v", err)
	}
}

// pullMerging is the merging pull phase, and the conflict it reports.
func (r *remoteTrip) pullMerging(t *testing.T) {
	t.Helper()
	ctx, a, b := r.ctx, r.a, r.b
	// Both name another father: the merging pull writes the merge and
	// reports the functional conflict it brought.
	b.setFather("pellinore")
	a.setFather("lancelot")
	if _, err := a.svc.Push(ctx, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	heard := map[string]bool{}
	hear := func(stage string, _, _ int) { heard[stage] = true }
	pl, err := b.svc.Pull(ctx, PullOptions{Progress: hear})
	if err != nil || !pl.Merged || pl.Head != mainHead(t, b.store) || len(pl.Updates) != 1 {
		t.Fatalf("merging pull %+v, %v", pl, err)
	}
	if !heard["checking the merge for world conflicts"] {
		t.Errorf("the merging pull reported %v", heard)
	}
	if len(pl.Conflicts) != 1 || pl.Conflicts[0].Scope != "camelot" || pl.Conflicts[0].Kind != "functional" {
		t.Fatalf("merging pull's conflicts %+v", pl.Conflicts)
	}
}

// syncBothWays is the sync phase: B's merge up, then down to A.
func (r *remoteTrip) syncBothWays(t *testing.T) {
	t.Helper()
	ctx, a, b := r.ctx, r.a, r.b
	// B syncs its merge up; A syncs it down, and hears of the conflict as
	// fetched.
	rep, err := b.svc.Sync(ctx, SyncOptions{})
	if err != nil || !rep.Pushed || rep.Remote != "origin" || rep.Branch != "main" || rep.Head != mainHead(t, b.store) || len(rep.Merged) != 0 {
		t.Fatalf("sync up %+v, %v", rep, err)
	}
	var checks [][2]int
	rep, err = a.svc.Sync(ctx, SyncOptions{Remote: "origin", Progress: func(stage string, done, total int) {
		if stage == "checking merges for world conflicts" {
			checks = append(checks, [2]int{done, total})
		}
	}})
	if err != nil || !rep.FastForward || rep.Head != mainHead(t, b.store) {
		t.Fatalf("sync down %+v, %v", rep, err)
	}
	if fmt.Sprint(checks) != "[[0 1] [1 1]]" {
		t.Errorf("sync down's conflict checks reported %v", checks)
	}
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Origin != "fetched" || rep.Conflicts[0].Merge != rep.Head || len(rep.Conflicts[0].Claims) != 2 {
		t.Fatalf("sync down's conflicts %+v", rep.Conflicts)
	}
}

func TestPushToDanglingHead(t *testing.T) {
	h := newHarness(t, "camelot")
	h.commitRemote("camelot", &objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: objects.Proposed("s-1")})
	remote := bareRemote(t, "trunk")
	res, err := h.svc.Push(context.Background(), PushOptions{Remote: remote})
	if err != nil {
		t.Fatal(err)
	}
	if !res.DanglingHead || res.URL != remote || res.HeadBranch != "main" {
		t.Fatalf("push %+v", res)
	}
}

// commitRemote commits objects to main directly, as another writer would.
func (h *harness) commitRemote(scope string, objs ...objects.Object) {
	h.t.Helper()
	b := lorestore.NewBatch()
	for _, o := range objs {
		if _, err := b.Put(scope, o); err != nil {
			h.t.Fatal(err)
		}
	}
	if _, err := h.store.Commit(b, lorestore.NewMessage("materialize "+scope+": setup", "materialize", scope), lorestore.CommitOptions{}); err != nil {
		h.t.Fatal(err)
	}
}
