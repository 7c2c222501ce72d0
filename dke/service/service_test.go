package service

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/keys"
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/reference"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
)

func TestGrants(t *testing.T) {
	f := newFixture(t)
	bg := context.Background()
	f.mustOK(bg, "run", map[string]any{"source": "remember(Sensor.s1.room, \"kitchen\", \"survey\")\n"})
	read := WithGrant(bg, keys.Grant{Store: "default", Mode: keys.Read})
	write := WithGrant(bg, keys.Grant{Store: "default", Mode: keys.Write})
	other := WithGrant(bg, keys.Grant{Store: "storeA", Mode: keys.Write})
	cases := []struct {
		name string
		ctx  context.Context
		tool string
		args map[string]any
		code string // "" when allowed
	}{
		{"read run", read, "run", map[string]any{"source": "remember(Sensor.s2.room, \"hall\", \"x\")\n"}, CodeReadOnly},
		{"read compile", read, "compile", map[string]any{"name": "m", "source": "remember(Sensor.s3.room, \"hall\", \"x\")\n"}, CodeReadOnly},
		{"read forget_module", read, "forget_module", map[string]any{"name": "m", "confirm": true}, CodeReadOnly},
		{"read checkup", read, "checkup", map[string]any{}, ""},
		{"read stores", read, "stores", map[string]any{}, ""},
		{"read list", read, "list", map[string]any{"target": "kinds"}, ""},
		{"store A on store B", other, "checkup", map[string]any{"store_id": "default"}, CodeWrongStore},
		{"store A on default", other, "run", map[string]any{"source": "print(1)\n"}, CodeWrongStore},
		{"store A on A", other, "run", map[string]any{"source": "print(1)\n", "store_id": "storeA"}, ""},
		{"write run", write, "run", map[string]any{"source": "print(1)\n"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := f.head()
			resp, _ := f.call(c.ctx, c.tool, c.args)
			switch {
			case c.code == "" && !resp.OK():
				t.Fatalf("refused: %v", resp.Err)
			case c.code != "" && (resp.OK() || resp.Err.Code != c.code):
				t.Fatalf("want %s, got %+v", c.code, resp)
			case c.code != "":
				// The refusal's _meta: TestDKERefusalMeta (mcpserve).
				if resp.Err.Class != fault.Refused {
					t.Errorf("class %s, want %s", resp.Err.Class, fault.Refused)
				}
				if after := f.head(); after != before {
					t.Errorf("a refused call committed: %s → %s", before, after)
				}
			}
		})
	}
	if got := f.mustOK(read, "checkup", map[string]any{}); !strings.HasPrefix(got, "checkup: 1 claim,") {
		t.Errorf("checkup under a read grant: %q", got)
	}
}

// TestRealGit checks the store with git itself: fsck is clean and the log
// reads as DKE history with its trailers.
func TestRealGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for this test")
	}
	f := newFixture(t)
	bg := context.Background()
	f.mustOK(bg, "compile", map[string]any{"name": "inventory", "source": "def restock(id: string):\n    remember(Widget[id].stock, 10, \"restock\")\n"})
	f.mustOK(bg, "run", map[string]any{"source": "import inventory\ninventory.restock(\"w1\")\nremember(Widget.w2.stock, 3, \"count\")\n"})
	f.mustOK(bg, "run", map[string]any{"source": "forget(Widget.w1.stock)\n"})
	if out, err := exec.Command("git", "-C", f.dir, "fsck", "--strict").CombinedOutput(); err != nil {
		t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
	out, err := exec.Command("git", "-C", f.dir, "log", "--format=%s%n%b").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"dke compile inventory", "dke run: 2 claims written, 0 removed", "dke run: 0 claims written, 1 removed", "Lore-Op: dke-run", "Lore-Op: dke-compile", "Lore-DKE-Store: default"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("git log lacks %q:\n%s", want, out)
		}
	}
	ls, err := exec.Command("git", "-C", f.dir, "ls-tree", "-r", "--name-only", "main", "dke/default").Output()
	if err != nil {
		t.Fatal(err)
	}
	names := string(ls)
	if !strings.Contains(names, "dke/default/modules/inventory.json") || !strings.Contains(names, "dke/default/store.json") || strings.Count(names, "/claims/Widget/") != 1 {
		t.Errorf("tree:\n%s", names)
	}
}

// TestIndexAdvances checks that a write made here advances the claim index
// instead of re-reading the store, and that a head moved elsewhere is a
// conflict for a change set made before it.
func TestIndexAdvances(t *testing.T) {
	f := newFixture(t)
	bg := context.Background()
	f.mustOK(bg, "run", map[string]any{"source": "remember(A.a.x, 1, \"s\")\n"})
	cs := f.svc.stores["default"]
	mem := cs.mem
	f.mustOK(bg, "run", map[string]any{"source": "remember(A.a.x, 2, \"s\")\nforget(A.a.x)\n"})
	if cs.mem != mem {
		t.Error("the index was re-read after a write made through it")
	}
	snap, err := cs.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Claims(claims.Cell{Kind: "A", Subject: "a", Attr: "x"}); len(got) != 0 {
		t.Errorf("claims after forget: %v", got)
	}
	// Another writer moves the branch: the old snapshot's change set
	// conflicts, and the next snapshot sees the new head.
	b := lorestore.NewBatch()
	if err := b.PutDKEHeader("other", []byte(`{"store":"other","clock":0}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ls.Commit(b, lorestore.NewMessage("elsewhere", "test", ""), lorestore.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	tx := claims.NewTx(snap)
	tx.Remember(claims.Cell{Kind: "A", Subject: "b", Attr: "x"}, claims.Int(1), "s")
	if _, err := cs.Commit(tx.Changes()); !errors.Is(err, claims.ErrConflict) {
		t.Errorf("stale commit: %v, want ErrConflict", err)
	}
	snap2, err := cs.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if snap2.Version() != f.head() || snap2.Clock() != snap.Clock() {
		t.Errorf("snapshot after reload: version %s clock %d", snap2.Version(), snap2.Clock())
	}
}

func TestStoreLifecycle(t *testing.T) {
	f := newFixture(t)
	if _, err := f.svc.CreateStore("lab"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.CreateStore("lab"); !errors.Is(err, ErrStoreExists) {
		t.Errorf("a second create: %v", err)
	}
	if _, err := f.svc.CreateStore("../x"); err == nil {
		t.Error("a bad id was created")
	}
	got := f.mustOK(context.Background(), "stores", map[string]any{"store_id": "lab"})
	if !strings.HasPrefix(got, "lab  0 claims, 0 modules  created 2026-") {
		t.Errorf("stores: %q", got)
	}
	f.mustOK(context.Background(), "run", map[string]any{"source": "remember(A.a.x, 1, \"s\")\n", "store_id": "lab"})
	if _, err := f.svc.DeleteStore("lab"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.DeleteStore("lab"); !errors.Is(err, lorestore.ErrNotFound) || !errors.Is(err, ErrNoStore) {
		t.Errorf("second delete: %v", err)
	}
	got = f.mustOK(context.Background(), "checkup", map[string]any{"store_id": "lab"})
	if got != "checkup: 0 claims, 0 kinds, 0 modules, 0 rules, 0 constraints\n" {
		t.Errorf("checkup of a deleted store: %q", got)
	}
}

func TestSpec(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, reference.Full(keywords.Eng)},
		{map[string]any{"edition": "nob"}, reference.Full(keywords.Nob)},
		{map[string]any{"topic": "verbs"}, must(reference.Topic(keywords.Eng, "verbs"))},
	} {
		if got := f.mustOK(context.Background(), "spec", c.args); got != c.want || got == "" {
			t.Errorf("spec %v: %d bytes, want %d", c.args, len(got), len(c.want))
		}
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

// TestDeterministic runs the same calls over two fresh stores: the
// transcripts are byte-identical.
func TestDeterministic(t *testing.T) {
	src := "for i in [\"b\", \"a\", \"c\"]:\n    remember(K[i].v, i, \"s\")\nfor s in list subjects of K:\n    print(s)\n"
	var outs []string
	for range 2 {
		f := newFixture(t)
		outs = append(outs, f.mustOK(context.Background(), "run", map[string]any{"source": src})+f.mustOK(context.Background(), "run", map[string]any{"source": src}))
	}
	if outs[0] != outs[1] {
		t.Errorf("transcripts differ:\n%s\n%s", outs[0], outs[1])
	}
}

// TestOtherStoreWrites checks that a write to one store leaves another
// store's index in place (adopted, not reloaded).
func TestOtherStoreWrites(t *testing.T) {
	f := newFixture(t)
	bg := context.Background()
	f.mustOK(bg, "run", map[string]any{"source": "remember(A.a.x, 1, \"s\")\n"})
	a := f.svc.stores["default"]
	mem := a.mem
	f.mustOK(bg, "run", map[string]any{"source": "remember(A.a.x, 2, \"s\")\n", "store_id": "b"})
	f.mustOK(bg, "compile", map[string]any{"name": "m", "source": "def f():\n    print(1)\n"})
	if got := f.mustOK(bg, "run", map[string]any{"source": "print(current(A.a.x).value)\n"}); got != "OK program: 0 claims written, 0 claims removed, 1 line printed\nprint: 1\n" {
		t.Errorf("default after a write to b: %q", got)
	}
	if a.mem != mem {
		t.Error("a write to store b reloaded store default's index")
	}
}

// TestRecompile checks version and updated across compiles: identical
// content writes no commit and leaves updated; an omitted version is
// kept; a new label is a change.
func TestRecompile(t *testing.T) {
	f := newFixture(t)
	bg := context.Background()
	src := "def f():\n    print(1)\n"
	info := func() ModuleInfoResult {
		r, err := f.svc.InfoModule(bg, &NameParams{Name: "m"})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	f.mustOK(bg, "compile", map[string]any{"name": "m", "source": src, "version": "1.0"})
	first, head := info(), f.head()
	f.mustOK(bg, "compile", map[string]any{"name": "m", "source": src})
	if got := info(); got.Updated != first.Updated || got.Version != "1.0" || f.head() != head {
		t.Errorf("identical recompile: %+v, head moved %v", got, f.head() != head)
	}
	f.mustOK(bg, "compile", map[string]any{"name": "m", "source": src, "version": "0.9"})
	if got := info(); got.Updated == first.Updated || got.Version != "0.9" || got.Created != first.Created {
		t.Errorf("relabel: %+v", got)
	}
	f.mustOK(bg, "compile", map[string]any{"name": "m", "source": "def g():\n    print(2)\n"})
	if got := info(); got.Version != "0.9" || strings.Join(got.Scripts, ",") != "m.g" {
		t.Errorf("edit without version: %+v", got)
	}
}

// TestForeignModuleWrite checks that a module written to the lorestore by
// another writer is seen by the next call (the module cache follows the
// head).
func TestForeignModuleWrite(t *testing.T) {
	f := newFixture(t)
	bg := context.Background()
	f.mustOK(bg, "compile", map[string]any{"name": "m", "source": "def f():\n    print(1)\n"})
	if got := f.mustOK(bg, "list", map[string]any{}); got != "m.f()\n" {
		t.Fatalf("list: %q", got)
	}
	sn, err := f.ls.Snapshot("main")
	if err != nil {
		t.Fatal(err)
	}
	data, err := sn.Module("default", "m")
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	rec["name"] = "n"
	data, _ = json.Marshal(rec)
	b := lorestore.NewBatch()
	if err := b.PutModule("default", "n", data); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ls.Commit(b, lorestore.NewMessage("foreign module", "test", ""), lorestore.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := f.mustOK(bg, "list", map[string]any{}); got != "m.f()\nn.f()\n" {
		t.Errorf("list after a foreign module write: %q", got)
	}
	if got := f.mustOK(bg, "run", map[string]any{"source": "import n\nn.f()\n"}); !strings.HasSuffix(got, "print: 1\n") {
		t.Errorf("run: %q", got)
	}
}

// TestConcurrentCalls runs writers and readers at once: the service
// serializes them, every write lands, and -race finds nothing shared.
func TestConcurrentCalls(t *testing.T) {
	f := newFixture(t)
	bg := context.Background()
	done := make(chan error)
	for g := range 4 {
		go func() {
			for i := range 10 {
				src := "remember(K.s" + string(rune('a'+g)) + string(rune('a'+i)) + ".v, 1, \"w\")\n"
				if _, err := f.svc.Run(bg, &RunParams{Source: src}); err != nil {
					done <- err
					return
				}
				if _, err := f.svc.Checkup(bg, &StoreParams{}); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if got := f.mustOK(bg, "checkup", map[string]any{}); !strings.HasPrefix(got, "checkup: 40 claims, 1 kind,") {
		t.Errorf("checkup: %q", got)
	}
}

// TestVerdictCommits checks acceptance 2's rules against the lorestore's
// history: which calls commit, and what git shows of a forget.
func TestVerdictCommits(t *testing.T) {
	f := newFixture(t)
	bg := context.Background()
	run := func(src string) string { return f.mustOK(bg, "run", map[string]any{"source": src}) }
	run("remember(S.s1.room, \"kitchen\", \"survey\")\n")
	h := f.head()
	run("remember(S.s1.room, \"kitchen\", \"survey\")\n")
	if f.head() != h {
		t.Error("an idempotent remember committed")
	}
	run("update(S.s1.room, \"kitchen\", \"survey\")\nupdate(S.s1.room, \"hall\", \"audit\")\n")
	if got := run("forget(S.s1.room)\n"); !strings.Contains(got, "forget S.s1.room: 3 claims removed") {
		t.Errorf("forget of three: %q", got)
	}
	out, err := exec.Command("git", "-C", f.dir, "show", "--format=%s", "--name-status", "main").Output()
	if err != nil {
		t.Fatal(err)
	}
	if lines := string(out); !strings.HasPrefix(lines, "dke run: 0 claims written, 3 removed\n") || strings.Count(lines, "\nD\tdke/default/claims/S/") != 3 {
		t.Errorf("git show of the forget:\n%s", lines)
	}
	h = f.head()
	if got := run("branch:\n    update(S.s2.room, \"hall\", \"x\")\n    rollback\n"); !strings.HasPrefix(got, "OK program: 0 claims written") {
		t.Errorf("rolled-back branch: %q", got)
	}
	if f.head() != h {
		t.Error("a rolled-back branch committed")
	}
	if got := run("remember(S.s3.room, \"attic\", \"x\")\nx = current(S.s9.room).value\n"); !strings.HasPrefix(got, "error: program failed") {
		t.Errorf("failed run: %q", got)
	}
	if got := run("print(current(S.s3.room).value)\n"); !strings.HasSuffix(got, "print: attic\n") {
		t.Errorf("the failed run's write did not persist: %q", got)
	}
}

// TestReopen checks that everything a call needs is in the lorestore: a
// new Service over the same store (as each CLI command makes) lists,
// imports and calls what an earlier one compiled, with its pins.
func TestReopen(t *testing.T) {
	f := newFixture(t)
	bg := context.Background()
	inv := "class Widget:\n    stock: int\n\ndef restock(id: string):\n    remember(Widget[id].stock, 10, \"restock\")\n\ndef count_on_hand(id: string) -> int:\n    c = current(Widget[id].stock)\n    if c.found:\n        return c.value\n    return 0\n"
	f.mustOK(bg, "compile", map[string]any{"name": "inventory", "source": inv, "version": "2.1.0", "language": "eng"})
	f.mustOK(bg, "compile", map[string]any{"name": "shop", "source": "import inventory\n\ndef fill(id: string):\n    inventory.restock(id)\n"})
	// inventory moves on; shop keeps calling the body it was compiled with.
	f.mustOK(bg, "compile", map[string]any{"name": "inventory", "source": strings.Replace(inv, "10,", "99,", 1)})
	want := map[string]string{}
	for _, tool := range []string{"list", "list_modules", "checkup"} {
		want[tool] = f.mustOK(bg, tool, map[string]any{})
	}
	wantInfo := f.mustOK(bg, "info_module", map[string]any{"name": "inventory"})

	svc, err := New(Config{Store: f.ls, Now: f.svc.cfg.Now, Authority: "test"})
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
	for tool, w := range want {
		if got := f.mustOK(bg, tool, map[string]any{}); got != w {
			t.Errorf("%s after reopening:\n%s\nwant\n%s", tool, got, w)
		}
	}
	if got := f.mustOK(bg, "info_module", map[string]any{"name": "inventory"}); got != wantInfo {
		t.Errorf("info_module after reopening:\n%s\nwant\n%s", got, wantInfo)
	}
	got := f.mustOK(bg, "run", map[string]any{"source": "import shop\nimport inventory\nshop.fill(\"a\")\ninventory.restock(\"b\")\nprint(inventory.count_on_hand(\"a\"), inventory.count_on_hand(\"b\"))\n"})
	if !strings.HasSuffix(got, "print: 10 99\n") {
		t.Errorf("pinned call after reopening: %q", got)
	}
}
