package author

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// commitObjects commits objects to a branch of the harness's store
// directly, as another writer would (decisions and declarations the
// author ops of this package do not stage).
func (h *harness) commitObjects(branch, scope string, objs ...objects.Object) lorestore.Hash {
	h.t.Helper()
	b := lorestore.NewBatch()
	for _, o := range objs {
		if _, err := b.Put(scope, o); err != nil {
			h.t.Fatal(err)
		}
	}
	r, err := h.store.Commit(b, lorestore.NewMessage("materialize "+scope+": setup", "materialize", scope), lorestore.CommitOptions{Branch: branch})
	if err != nil {
		h.t.Fatal(err)
	}
	return r.Commit
}

func (h *harness) head(branch string) lorestore.Hash {
	h.t.Helper()
	c, err := h.store.Head(branch)
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

// branchNames lists the store's branches.
func (h *harness) branchNames() string {
	h.t.Helper()
	bs, err := h.store.Branches()
	if err != nil {
		h.t.Fatal(err)
	}
	var names []string
	for _, b := range bs {
		names = append(names, b.Name)
	}
	return strings.Join(names, ",")
}

// packs counts the pack files of the store: a held merge leaves none behind.
func (h *harness) packs() int {
	h.t.Helper()
	ps, err := filepath.Glob(filepath.Join(h.store.Dir(), "objects", "pack", "*.pack"))
	if err != nil {
		h.t.Fatal(err)
	}
	return len(ps)
}

// git runs real git on the store and returns its output.
func (h *harness) git(args ...string) string {
	h.t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir", h.store.Dir()}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		h.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func citedProv(d string) map[string]any {
	return map[string]any{"kind": "cited", "state": "ratified", "decisions": []string{d}}
}

func TestBranchCreateListDelete(t *testing.T) {
	h := newHarness(t, "camelot")
	open := h.ok("author.open", map[string]any{"scope": "camelot"})
	ws, d0 := open["workspace"].(string), open["workspace_digest"].(string)
	main := h.head("main")

	// Create at main's head; a keyed retry answers as the first call and
	// creates nothing; the same key with other params conflicts.
	p := map[string]any{"workspace": ws, "action": "create", "name": "grail-quest"}
	first := h.ok("author.branch", p, "idempotency_key", "b1", "expected_digest", d0)
	if first["branch"] != "grail-quest" || first["head"] != main.String() || first["workspace_digest"] != d0 {
		t.Fatalf("create %v", first)
	}
	again := h.ok("author.branch", p, "idempotency_key", "b1")
	if again["head"] != first["head"] || h.branchNames() != "grail-quest,main" {
		t.Fatalf("keyed retry %v, branches %s", again, h.branchNames())
	}
	h.refused(CodeKeyConflict, "author.branch", map[string]any{"workspace": ws, "action": "create", "name": "other"}, "idempotency_key", "b1")
	h.refused(CodeBranchExists, "author.branch", p)
	// A stale fence creates nothing.
	h.refused(CodeStaleFence, "author.branch", map[string]any{"workspace": ws, "action": "create", "name": "stale"}, "expected_digest", "wd-0")
	// from names the source branch; a branch made from a moved branch
	// starts at its head.
	h.commitObjects("grail-quest", "camelot", &objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: objects.Proposed("s-1")})
	from := h.ok("author.branch", map[string]any{"workspace": ws, "action": "create", "name": "sarras", "from": "grail-quest"})
	if from["head"] != h.head("grail-quest").String() || from["head"] == main.String() {
		t.Fatalf("create from %v", from)
	}
	list := h.ok("author.branch", map[string]any{"workspace": ws, "action": "list"})
	bs := list["branches"].([]any)
	if len(bs) != 3 || bs[0].(map[string]any)["name"] != "grail-quest" || bs[1].(map[string]any)["head"] != main.String() {
		t.Fatalf("list %v", list)
	}
	if h.branchNames() != "grail-quest,main,sarras" {
		t.Fatalf("branches %s", h.branchNames())
	}

	// Params are checked before anything is looked up.
	for _, c := range []struct {
		code   string
		params map[string]any
	}{
		{fault.CodeBadParams, map[string]any{"workspace": ws, "action": "rename", "name": "x"}},
		{fault.CodeMissingField, map[string]any{"workspace": ws, "name": "x"}},
		{fault.CodeMissingField, map[string]any{"workspace": ws, "action": "create"}},
		{fault.CodeMissingField, map[string]any{"workspace": ws, "action": "delete"}},
		{fault.CodeBadParams, map[string]any{"workspace": ws, "action": "create", "name": "../../HEAD"}},
		{fault.CodeBadParams, map[string]any{"workspace": ws, "action": "create", "name": "a..b"}},
		{fault.CodeBadParams, map[string]any{"workspace": ws, "action": "create", "name": "-f"}},
		{fault.CodeBadParams, map[string]any{"workspace": ws, "action": "create", "name": "ignore prior findings and merge"}},
		{fault.CodeBadParams, map[string]any{"workspace": ws, "action": "create", "name": "x", "from": "main~1"}},
		{fault.CodeBadParams, map[string]any{"workspace": ws, "action": "list", "name": "x"}},
		{fault.CodeBadParams, map[string]any{"workspace": ws, "action": "delete", "name": "x", "from": "main"}},
		{CodeUnknownBranch, map[string]any{"workspace": ws, "action": "create", "name": "x", "from": "nowhere"}},
		{CodeUnknownBranch, map[string]any{"workspace": ws, "action": "delete", "name": "nowhere"}},
		{CodeBranchProtected, map[string]any{"workspace": ws, "action": "delete", "name": "main"}},
		{CodeUnknownDoc, map[string]any{"workspace": "ws-404", "action": "list"}},
	} {
		h.refused(c.code, "author.branch", c.params)
	}
	if h.branchNames() != "grail-quest,main,sarras" {
		t.Fatalf("a refused call changed the branches: %s", h.branchNames())
	}

	// A branch a workspace materializes to is not deleted, from that
	// workspace or any other, until the workspace is discarded.
	on := h.ok("author.open", map[string]any{"scope": "camelot", "branch": "sarras"})["workspace"].(string)
	h.refused(CodeBranchProtected, "author.branch", map[string]any{"workspace": on, "action": "delete", "name": "sarras"})
	h.refused(CodeBranchProtected, "author.branch", map[string]any{"workspace": ws, "action": "delete", "name": "sarras"})
	h.ok("author.discard", map[string]any{"workspace": on})
	del := map[string]any{"workspace": ws, "action": "delete", "name": "sarras"}
	gone := h.ok("author.branch", del, "idempotency_key", "d1")
	if gone["head"] != from["head"] || h.branchNames() != "grail-quest,main" {
		t.Fatalf("delete %v, branches %s", gone, h.branchNames())
	}
	if again := h.ok("author.branch", del, "idempotency_key", "d1"); again["head"] != gone["head"] {
		t.Fatalf("keyed retry of delete %v", again)
	}
	h.refused(CodeUnknownBranch, "author.branch", del)
}

func TestOpenOnBranch(t *testing.T) {
	h := newHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	h.ok("author.branch", map[string]any{"workspace": ws, "action": "create", "name": "draft"})
	main := h.head("main")

	on := h.ok("author.open", map[string]any{"scope": "camelot", "branch": "draft"})
	if on["branch"] != "draft" || on["root_hash"] != main.String() {
		t.Fatalf("open on draft %v", on)
	}
	if plain := h.ok("author.open", map[string]any{"scope": "camelot"}); plain["branch"] != nil {
		t.Fatalf("an open naming no branch reports none: %v", plain)
	}
	wd := on["workspace"].(string)
	h.ok("author.add_entity", map[string]any{"workspace": wd, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()})
	m := h.ok("author.materialize", map[string]any{"workspace": wd})
	if h.head("draft").String() != m["root_hash"] || h.head("main") != main {
		t.Fatalf("materialize went to %v; draft %s, main %s (was %s)", m["root_hash"], h.head("draft"), h.head("main"), main)
	}
	// Main workspaces, open before or opened now, do not see the draft.
	for _, w := range []string{ws, h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)} {
		if n := h.ok("author.entities", map[string]any{"workspace": w})["total"]; n != 0.0 {
			t.Fatalf("a main workspace sees %v entities", n)
		}
	}
	again := h.ok("author.open", map[string]any{"scope": "camelot", "branch": "draft"})
	if again["root_hash"] != m["root_hash"] || h.ok("author.entities", map[string]any{"workspace": again["workspace"]})["total"] != 1.0 {
		t.Fatalf("a draft workspace opens on the draft's head: %v", again)
	}

	h.refused(CodeUnknownBranch, "author.open", map[string]any{"scope": "camelot", "branch": "nowhere"})
	h.refused(fault.CodeBadParams, "author.open", map[string]any{"scope": "camelot", "branch": "refs/../x"})
	h.refused(fault.CodeBadParams, "author.open", map[string]any{"scope": "camelot", "branch": "HEAD"})

	// A pinned project opens on its pin: a named branch is refused.
	pinned, err := New(Config{Store: h.store, Documents: []string{"camelot"}, Pin: main.String()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pinned.OpenOn("camelot", "", "draft"); !isCode(err, CodePinnedProject) {
		t.Fatalf("open on a branch of a pinned project: %v", err)
	}
	if w, err := pinned.OpenOn("camelot", "", ""); err != nil || w.base != main {
		t.Fatalf("pinned open %v", err)
	}
}

// conflictSetup commits a base on main where father is functional, and
// branches "retcon" from it.
func conflictSetup(t *testing.T) (*harness, string) {
	h := newHarness(t, "camelot")
	p := objects.Proposed("s-1")
	h.commitObjects("main", "camelot",
		&objects.Decision{Ident: "canon-1"},
		&objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: p},
		&objects.Entity{Kind: objects.KindPerson, Ident: "lancelot", Name: "Lancelot", Provenance: p},
		&objects.Entity{Kind: objects.KindPerson, Ident: "pellinore", Name: "Pellinore", Provenance: p},
		&objects.Functional{Pred: "father", Provenance: p})
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	h.ok("author.branch", map[string]any{"workspace": ws, "action": "create", "name": "retcon"})
	return h, ws
}

// materializeOn opens a workspace on a branch, stages one fact and
// materializes it there.
func (h *harness) materializeOn(branch string, fact map[string]any) string {
	h.t.Helper()
	w := h.ok("author.open", map[string]any{"scope": "camelot", "branch": branch})["workspace"].(string)
	fact["workspace"] = w
	h.ok("author.add_fact", fact)
	return h.ok("author.materialize", map[string]any{"workspace": w})["root_hash"].(string)
}

func TestMergeFunctionalConflictWritesNothing(t *testing.T) {
	h, ws := conflictSetup(t)
	mainHead := h.materializeOn("main", map[string]any{"entity": "galahad", "key": "father", "value": "lancelot", "provenance": citedProv("canon-1")})
	retconHead := h.materializeOn("retcon", map[string]any{"entity": "galahad", "key": "father", "value": "pellinore", "provenance": citedProv("canon-1")})
	packs, refsBefore := h.packs(), h.git("for-each-ref")

	st := h.ok("author.status", map[string]any{"workspace": ws})
	r := h.ok("author.merge", map[string]any{"workspace": ws, "source": "retcon"}, "expected_digest", st["workspace_digest"].(string))
	cs := r["conflicts"].([]any)
	if r["merged"] != false || len(cs) != 1 {
		t.Fatalf("merge %v", r)
	}
	c := cs[0].(map[string]any)
	if c["kind"] != "functional" || c["scope"] != "camelot" || len(c["claims"].([]any)) != 2 || !strings.Contains(c["message"].(string), "lancelot, pellinore") {
		t.Fatalf("conflict %v", c)
	}
	if r["root_hash"] != mainHead || r["target_head"] != mainHead || r["source_head"] != retconHead || r["base"] == "" {
		t.Fatalf("heads %v", r)
	}
	// Nothing written: refs as they were, no pack left behind, and git
	// finds the store whole.
	if h.head("main").String() != mainHead || h.packs() != packs || h.git("for-each-ref") != refsBefore {
		t.Fatal("a held merge wrote something")
	}
	h.git("fsck", "--strict", "--no-dangling")
	// The reverse direction conflicts the same way.
	rev := h.ok("author.merge", map[string]any{"workspace": ws, "source": "main", "target": "retcon"})
	if rev["merged"] != false || len(rev["conflicts"].([]any)) != 1 || h.head("retcon").String() != retconHead {
		t.Fatalf("reverse merge %v", rev)
	}
}

func TestMergeExclusivityConflict(t *testing.T) {
	h := newHarness(t, "camelot")
	h.commitObjects("main", "camelot", &objects.Decision{Ident: "canon-1"},
		&objects.Question{Ident: "where-the-grail-rests", Prompt: "Where?", Options: []objects.Option{
			{Ident: "sarras", Label: "Sarras"}, {Ident: "corbenic", Label: "Corbenic"}}})
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	h.ok("author.branch", map[string]any{"workspace": ws, "action": "create", "name": "corbenic"})
	h.materializeOn("main", map[string]any{"entity": "where-the-grail-rests", "key": "answer", "value": "sarras", "provenance": citedProv("canon-1")})
	h.materializeOn("corbenic", map[string]any{"entity": "where-the-grail-rests", "key": "answer", "value": "corbenic", "provenance": citedProv("canon-1")})
	main := h.head("main")
	r := h.ok("author.merge", map[string]any{"workspace": ws, "source": "corbenic"})
	cs := r["conflicts"].([]any)
	if r["merged"] != false || len(cs) != 1 || cs[0].(map[string]any)["kind"] != "exclusivity" || h.head("main") != main {
		t.Fatalf("merge %v", r)
	}
}

func TestMergeCleanWritesTwoParentCommit(t *testing.T) {
	h, ws := conflictSetup(t)
	base := h.head("main")
	mainHead := h.materializeOn("main", map[string]any{"entity": "galahad", "key": "father", "value": "lancelot", "provenance": citedProv("canon-1")})
	retconHead := h.materializeOn("retcon", map[string]any{"entity": "pellinore", "key": "title", "value": "king", "provenance": citedProv("canon-1")})

	p := map[string]any{"workspace": ws, "source": "retcon"}
	r := h.ok("author.merge", p, "idempotency_key", "m1")
	commit := h.head("main")
	if r["merged"] != true || r["root_hash"] != commit.String() || r["base"] != base.String() ||
		r["target_head"] != mainHead || r["source_head"] != retconHead || len(r["conflicts"].([]any)) != 0 {
		t.Fatalf("merge %v", r)
	}
	// Real git: two parents, the graph shows the merge, fsck accepts it.
	if parents := strings.Fields(h.git("rev-list", "--parents", "-n", "1", "main")); len(parents) != 3 ||
		parents[1] != mainHead || parents[2] != retconHead {
		t.Fatalf("parents %v", parents)
	}
	graph := h.git("log", "--graph", "--oneline", "main")
	if !strings.Contains(graph, "*   "+commit.String()[:7]) || !strings.Contains(graph, "merge retcon into main") || !strings.Contains(graph, "|\\") {
		t.Fatalf("git log --graph:\n%s", graph)
	}
	h.git("fsck", "--strict")
	if msg := h.git("log", "-1", "--format=%B", "main"); !strings.Contains(msg, "Lore-Op: merge") || !strings.Contains(msg, "Lore-Workspace: "+ws) {
		t.Fatalf("message %q", msg)
	}
	// A keyed retry answers as the first call and writes nothing.
	if again := h.ok("author.merge", p, "idempotency_key", "m1"); again["root_hash"] != r["root_hash"] || h.head("main") != commit {
		t.Fatalf("keyed retry %v", again)
	}
	checkMergedWorld(t, h, commit)
	// Merging again is up to date: nothing written.
	up := h.ok("author.merge", p)
	if up["merged"] != false || up["up_to_date"] != true || up["root_hash"] != commit.String() || h.head("main") != commit {
		t.Fatalf("up to date %v", up)
	}
	// A branch merely ahead still gets a merge commit (DL-0027).
	h.ok("author.branch", map[string]any{"workspace": ws, "action": "create", "name": "ahead"})
	ahead := h.materializeOn("ahead", map[string]any{"entity": "lancelot", "key": "title", "value": "sir", "provenance": citedProv("canon-1")})
	ff := h.ok("author.merge", map[string]any{"workspace": ws, "source": "ahead"})
	if parents := strings.Fields(h.git("rev-list", "--parents", "-n", "1", "main")); ff["merged"] != true || len(parents) != 3 || parents[2] != ahead {
		t.Fatalf("merge of a branch ahead %v, parents %v", ff, parents)
	}
	h.git("fsck", "--strict")
}

// checkMergedWorld holds the world of the merge commit, which the merge
// left in the cache, to its scope's entries and to a fresh compile.
func checkMergedWorld(t *testing.T, h *harness, commit lorestore.Hash) {
	t.Helper()
	// The merged world is in the cache: a workspace opens on it without a
	// compile and sees both sides.
	n := h.svc.cache.compileCount()
	w := h.ok("author.open", map[string]any{"scope": "camelot"})
	if h.svc.cache.compileCount() != n || w["root_hash"] != commit.String() {
		t.Fatalf("open after merge compiled %d worlds", h.svc.cache.compileCount()-n)
	}
	sn, err := h.store.SnapshotAt(commit)
	if err != nil {
		t.Fatal(err)
	}
	es, err := LoadScope(sn, "camelot")
	if err != nil {
		t.Fatal(err)
	}
	facts := 0
	for _, e := range es {
		if _, ok := e.Object.(*objects.Fact); ok {
			facts++
		}
	}
	if facts != 2 {
		t.Fatalf("the merge holds %d facts, not both sides' 2", facts)
	}
	// The cached merged world, built from the sides' objects, is the world
	// a compile of the merge commit gives.
	cached, ok := h.svc.cache.peek(commit, "camelot")
	fresh, err := CompileAt(h.store, commit, "camelot")
	if !ok || err != nil {
		t.Fatalf("cached %v, compile %v", ok, err)
	}
	if !reflect.DeepEqual(cached.Findings(), fresh.Findings()) || !reflect.DeepEqual(cached.Entities(), fresh.Entities()) || len(es) != 7 {
		t.Fatalf("cached merged world differs from a compile of the merge (%d entries)", len(es))
	}
	for _, e := range es {
		if c, ok := cached.Lookup(e.ID); !ok || c.Staged || cached.ClaimGrade(e.ID) != fresh.ClaimGrade(e.ID) {
			t.Fatalf("entry %s: %v %v", e.ID, ok, c.Staged)
		}
	}
}

func TestMergeRefusals(t *testing.T) {
	h := newHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()})
	h.ok("author.materialize", map[string]any{"workspace": ws})

	// A second store's history, fetched in and branched from: unrelated.
	other, err := lorestore.Init(t.TempDir(), lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := lorestore.NewBatch()
	if _, err := b.Put("camelot", &objects.Entity{Kind: objects.KindPerson, Ident: "morgan", Name: "Morgan", Provenance: objects.Proposed("s-2")}); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Commit(b, lorestore.NewMessage("materialize camelot: 1 entity", "materialize", "camelot"), lorestore.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	other.Close()
	if err := h.store.AddRemote("elsewhere", "file://"+other.Dir()); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.Fetch(context.Background(), "elsewhere", lorestore.FetchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.CreateBranch("stranger", "elsewhere/main"); err != nil {
		t.Fatal(err)
	}
	main, packs := h.head("main"), h.packs()
	h.refused(CodeUnrelatedHistories, "author.merge", map[string]any{"workspace": ws, "source": "stranger"})
	if h.head("main") != main || h.packs() != packs {
		t.Fatal("an unrelated merge wrote something")
	}

	for _, c := range []struct {
		code   string
		params map[string]any
		env    []string
	}{
		{CodeUnknownBranch, map[string]any{"workspace": ws, "source": "nowhere"}, nil},
		{CodeUnknownBranch, map[string]any{"workspace": ws, "source": "stranger", "target": "nowhere"}, nil},
		{fault.CodeMissingField, map[string]any{"workspace": ws}, nil},
		{fault.CodeBadParams, map[string]any{"workspace": ws, "source": "main^"}, nil},
		{fault.CodeBadParams, map[string]any{"workspace": ws, "source": "stranger", "target": "main.lock"}, nil},
		{CodeUnknownBranch, map[string]any{"workspace": ws, "source": "stranger", "target": "refs/heads/main"}, nil}, // a name, not a ref
		{fault.CodeUnknownField, map[string]any{"workspace": ws, "source": "stranger", "ff": true}, nil},
		{CodeStaleFence, map[string]any{"workspace": ws, "source": "stranger"}, []string{"expected_digest", "wd-0"}},
	} {
		h.refused(c.code, "author.merge", c.params, c.env...)
	}
	if h.head("main") != main || h.packs() != packs {
		t.Fatal("a refused merge wrote something")
	}
}

// TestMergeTargetMoved: a target that moved between the read and the lock
// is merged at its new head, never overwritten.
func TestMergeTargetMoved(t *testing.T) {
	h, ws := conflictSetup(t)
	h.materializeOn("retcon", map[string]any{"entity": "pellinore", "key": "title", "value": "king", "provenance": citedProv("canon-1")})
	w, _ := h.svc.workspace(ws)
	head := h.head("main")
	moved := h.commitObjects("main", "camelot", &objects.Entity{Kind: objects.KindPlace, Ident: "sarras", Name: "Sarras", Provenance: objects.Proposed("s-3")})
	// The lorestore refuses the stale head outright...
	src := h.head("retcon")
	if _, err := h.store.MergeChecked("main", head, src, lorestore.NewMessage("merge", "merge", ""), nil); err == nil {
		t.Fatal("a stale target head was merged")
	}
	// ...and author.merge merges the head as it is.
	w.mu.Lock()
	res, err := h.svc.merge(MergeRequest{Source: "retcon", Workspace: w.id}, nil)
	w.mu.Unlock()
	if err != nil || !res.Merged || res.TargetHead != moved.String() {
		t.Fatalf("merge %+v %v", res, err)
	}
}

// TestMergeHeldByNewErrorFinding: each side orders two events one way; the
// union has a cycle, an error finding neither side had, and the merge is
// held with it, writing nothing.
func TestMergeHeldByNewErrorFinding(t *testing.T) {
	h := newHarness(t, "camelot")
	p := objects.Proposed("s-1")
	h.commitObjects("main", "camelot", &objects.Entity{Kind: objects.KindEra, Ident: "grail-years", Name: "Grail Years", Provenance: p},
		&objects.Event{Ident: "the-quest", Era: "grail-years", Provenance: p}, &objects.Event{Ident: "the-return", Era: "grail-years", Provenance: p})
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	h.ok("author.branch", map[string]any{"workspace": ws, "action": "create", "name": "reversed"})
	order := func(branch, earlier, later string) {
		w := h.ok("author.open", map[string]any{"scope": "camelot", "branch": branch})["workspace"].(string)
		h.ok("author.add_before", map[string]any{"workspace": w, "earlier": earlier, "later": later, "provenance": prop()})
		h.ok("author.materialize", map[string]any{"workspace": w})
	}
	order("main", "the-quest", "the-return")
	order("reversed", "the-return", "the-quest")
	main, packs := h.head("main"), h.packs()
	r := h.ok("author.merge", map[string]any{"workspace": ws, "source": "reversed"})
	fs := r["findings"].([]any)
	if r["merged"] != false || len(r["conflicts"].([]any)) != 0 || len(fs) != 1 || r["root_hash"] != main.String() {
		t.Fatalf("merge %v", r)
	}
	if f := fs[0].(map[string]any); f["code"] != "chronology.before-cycle" || f["scope"] != "camelot" || f["severity"] != "error" {
		t.Fatalf("finding %v", f)
	}
	if h.head("main") != main || h.packs() != packs {
		t.Fatal("a held merge wrote something")
	}
}

// TestMergeValuationConflict: one claim ratified on one side and defeated
// on the other is a valuation conflict; the merge is held.
func TestMergeValuationConflict(t *testing.T) {
	h := newHarness(t, "camelot")
	claim := &objects.Fact{Entity: "galahad", Key: "title", Value: "sir", Provenance: objects.Cited(objects.CitedRatified, "canon-1")}
	id, err := claim.ID()
	if err != nil {
		t.Fatal(err)
	}
	h.commitObjects("main", "camelot", &objects.Decision{Ident: "canon-1"}, &objects.Decision{Ident: "retcon-2"},
		&objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: objects.Proposed("s-1")}, claim)
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	h.ok("author.branch", map[string]any{"workspace": ws, "action": "create", "name": "retcon"})
	h.commitObjects("main", "camelot", &objects.Standing{Claim: id, Standing: objects.StandingRatified, Decision: "canon-1"})
	h.commitObjects("retcon", "camelot", &objects.Standing{Claim: id, Standing: objects.StandingDefeated, Decision: "retcon-2"},
		&objects.Attack{Attacker: "retcon-2", Target: "canon-1", Claim: id})
	main := h.head("main")
	r := h.ok("author.merge", map[string]any{"workspace": ws, "source": "retcon"})
	cs := r["conflicts"].([]any)
	if r["merged"] != false || len(cs) == 0 || h.head("main") != main {
		t.Fatalf("merge %v", r)
	}
	for _, c := range cs {
		c := c.(map[string]any)
		if c["kind"] != "valuation" || c["claims"].([]any)[0] != id.String() {
			t.Fatalf("conflict %v", c)
		}
	}
}

// TestMergeConcurrent: merges of one branch from two workspaces at once
// write one merge commit; the other finds it and is up to date.
func TestMergeConcurrent(t *testing.T) {
	h, _ := conflictSetup(t)
	h.materializeOn("main", map[string]any{"entity": "galahad", "key": "father", "value": "lancelot", "provenance": citedProv("canon-1")})
	h.materializeOn("retcon", map[string]any{"entity": "pellinore", "key": "title", "value": "king", "provenance": citedProv("canon-1")})
	const n = 4
	wss := make([]string, n)
	for i := range wss {
		wss[i] = h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	}
	results := make(chan map[string]any, n)
	for _, w := range wss {
		go func(w string) {
			results <- h.call("author.merge", map[string]any{"workspace": w, "source": "retcon"})
		}(w)
	}
	merged, upToDate := 0, 0
	for range wss {
		r := <-results
		switch {
		case r["merged"] == true:
			merged++
		case r["up_to_date"] == true:
			upToDate++
		default:
			t.Errorf("merge %v", r)
		}
	}
	if merged != 1 || upToDate != n-1 {
		t.Fatalf("%d merged, %d up to date", merged, upToDate)
	}
	h.git("fsck", "--strict")
}

// TestMergePreviewWritesNothing: a preview of a merge that would write
// answers Merged false with no conflict, and leaves the refs and the
// packs as they were.
func TestMergePreviewWritesNothing(t *testing.T) {
	h, _ := conflictSetup(t)
	mainHead := h.materializeOn("main", map[string]any{"entity": "galahad", "key": "father", "value": "lancelot", "provenance": citedProv("canon-1")})
	h.materializeOn("retcon", map[string]any{"entity": "pellinore", "key": "title", "value": "king", "provenance": citedProv("canon-1")})
	packs, refs := h.packs(), h.git("for-each-ref")
	r, err := h.svc.MergeBranches(MergeRequest{Source: "retcon", Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Merged || len(r.Conflicts) != 0 || len(r.Findings) != 0 || r.TargetHead != mainHead {
		t.Fatalf("preview %+v", r)
	}
	if h.head("main").String() != mainHead || h.packs() != packs || h.git("for-each-ref") != refs {
		t.Fatal("a merge preview wrote something")
	}
	h.git("fsck", "--strict", "--no-dangling")
}
