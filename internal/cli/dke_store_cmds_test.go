package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/keys"
	"github.com/deloreis/deloreis/internal/testenv"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/mcpserve"
)

// fillDKEStore commits a module and n claims into DKE store id, as the
// service would, straight through lorestore.
func fillDKEStore(t *testing.T, dir, id string, from, n int) {
	t.Helper()
	s, err := lorestore.Open(dir, lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := lorestore.NewBatch()
	if err := b.PutModule(id, "inventory", []byte(`{"name":"inventory","source":"x = 1\n"}`)); err != nil {
		t.Fatal(err)
	}
	for i := from; i < from+n; i++ {
		if _, err := b.PutDKEClaim(id, "Item", []byte(`{"kind":"Item","n":`+strconv.Itoa(i)+`}`)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Commit(b, lorestore.NewMessage("fill "+id, "dke-run", ""), lorestore.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestDKEStoreLifecycle: create, snapshot, delete and restore are commits
// (or a ref) that real git reads; a restore makes dke/ID/ equal to the
// snapshot's tree again while history keeps what came between; refusals
// change nothing.
func TestDKEStoreLifecycle(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s.lore")
	t.Setenv("DELOREIS_COMMIT_DATE", "2026-12-01T12:00:00Z")
	mustRun(t, "--store", dir, "init")
	st := func(args ...string) []string { return append([]string{"--store", dir, "dke", "store"}, args...) }

	if out := mustRun(t, st("create", "alpha")...); !strings.HasPrefix(out, "dke store create alpha (commit ") {
		t.Fatalf("create said %q", out)
	}
	header := mustGit(t, dir, "show", "main:dke/alpha/store.json")
	if header != `{"clock":0,"created":"2026-12-01T12:00:00Z","store":"alpha"}` {
		t.Fatalf("header %s", header)
	}
	fillDKEStore(t, dir, "alpha", 1, 3)
	snapTree := mustGit(t, dir, "rev-parse", "main:dke/alpha")
	mustRun(t, st("snapshot", "alpha", "three")...)
	if out := mustRun(t, st("snapshot", "alpha")...); !strings.HasPrefix(out, "snapshot 20261201-120000 of DKE store alpha") {
		t.Fatalf("a default snapshot name: %q", out)
	}
	fillDKEStore(t, dir, "alpha", 4, 2)

	// HEAD, packed-refs and every ref, snapshots included (DL-0431).
	branches := testenv.Branches(t, dir)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{st("create", "alpha"), 1, "exists already"},
		{st("create", "../x"), 2, "store id"},
		{st("delete", "alpha"), 2, "--confirm"},
		{st("delete", "nosuch", "--confirm"), 1, "no DKE store nosuch"},
		{st("snapshot", "alpha", "three"), 1, "already exists"},
		{st("snapshot", "alpha", "a/b"), 2, "snapshot name"},
		{st("snapshot", "nosuch"), 1, "no DKE store nosuch"},
		{st("restore", "alpha", "never"), 1, "no such snapshot"},
		{st("restore", "alpha", "../x"), 1, "snapshot name"},
	} {
		_, errs, code := deloreis(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("%q: exit %d (want %d), stderr %q (want %q)", tc.args[3:], code, tc.code, errs, tc.msg)
		}
	}
	testenv.SameBranches(t, "a refused command", branches, testenv.Branches(t, dir))

	mustRun(t, st("delete", "alpha", "--confirm")...)
	if _, err := gitErr(dir, "rev-parse", "main:dke/alpha"); err == nil {
		t.Fatal("dke/alpha is still at main after delete")
	}
	if out := mustRun(t, st("list")...); out != "alpha (deleted on main)\n  snapshot 20261201-120000 "+snapTree[:0]+short(t, dir, "refs/dke-snapshots/alpha/20261201-120000")+"\n  snapshot three "+short(t, dir, "refs/dke-snapshots/alpha/three")+"\n" {
		t.Fatalf("list after delete:\n%s", out)
	}
	mustRun(t, st("restore", "alpha", "three")...)
	if got := mustGit(t, dir, "rev-parse", "main:dke/alpha"); got != snapTree {
		t.Fatalf("restored tree %s, snapshot's %s", got, snapTree)
	}
	if out := mustRun(t, st("restore", "alpha", "three")...); !strings.Contains(out, "nothing changed, no commit") {
		t.Fatalf("a second restore: %q", out)
	}
	log := mustGit(t, dir, "log", "--format=%s", "main")
	want := "dke store restore alpha from three\ndke store delete alpha\nfill alpha\nfill alpha\ndke store create alpha\ninit lorestore\n"
	if log != want {
		t.Fatalf("git log:\n%s\nwant:\n%s", log, want)
	}
	// The removed claims are in history: the delete's parent holds five.
	if n := strings.Count(mustGit(t, dir, "ls-tree", "-r", "--name-only", "main~1^", "dke/alpha/claims"), "\n"); n != 5 {
		t.Fatalf("history keeps %d claims before the delete, want 5", n)
	}
	if out := mustRun(t, st("list")...); !strings.HasPrefix(out, "alpha  created 2026-12-01T12:00:00Z  clock 0  1 module\n") {
		t.Fatalf("list after restore:\n%s", out)
	}
	if trailers := mustGit(t, dir, "log", "-1", "--format=%(trailers)", "main"); !strings.Contains(trailers, "Lore-Op: dke-store-restore") || !strings.Contains(trailers, "Lore-DKE-Store: alpha") {
		t.Fatalf("restore trailers:\n%s", trailers)
	}
}

func short(t *testing.T, dir, rev string) string {
	return strings.TrimSpace(mustGit(t, dir, "rev-parse", rev))[:7]
}

func gitErr(dir string, args ...string) (string, error) {
	out, err := exec.Command("git", append([]string{"--git-dir", dir}, args...)...).CombinedOutput()
	return string(out), err
}

// TestDKEKeyCommands: a key is printed once and works; the list shows
// hashes, never keys; revoke needs a prefix naming one key.
func TestDKEKeyCommands(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s.lore")
	mustRun(t, "--store", dir, "init")
	mustRun(t, "--store", dir, "dke", "store", "create", "alpha")
	k := func(args ...string) []string { return append([]string{"--store", dir, "dke", "key"}, args...) }
	out, errs, code := deloreis(t, k("create", "--store-id", "alpha", "--read")...)
	key := strings.TrimSpace(out)
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.HasPrefix(key, "dke_r_") || !strings.Contains(errs, "shown only this once") {
		t.Fatalf("key create: exit %d, %q, %q", code, out, errs)
	}
	ring := keys.Open(dir)
	g, err := ring.Lookup(key)
	if err != nil || g.Store != "alpha" || g.Mode != keys.Read {
		t.Fatalf("the printed key grants %+v, %v", g, err)
	}
	_, errs = mustRun2(t, k("create", "--store-id", "beta", "--write")...)
	if !strings.Contains(errs, "no DKE store beta yet") {
		t.Errorf("a key for a store main does not hold: %q", errs)
	}
	list := mustRun(t, k("list")...)
	if strings.Count(list, "\n") != 2 || !strings.HasPrefix(list, g.Hash[:12]+"  alpha  read  ") || strings.Contains(list, key) {
		t.Fatalf("key list:\n%s", list)
	}
	data, _ := os.ReadFile(filepath.Join(dir, keys.FileName))
	if strings.Contains(string(data), key) {
		t.Fatal("the keyring holds the key itself")
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{k("create", "--store-id", "alpha"), 2},
		{k("create", "--store-id", "alpha", "--read", "--write"), 2},
		{k("create", "--store-id", "../x", "--read"), 2},
		{k("revoke", "abc"), 2},
		{k("revoke", "not-hex-digits"), 2},
		{k("revoke", "00000000"), 1},
	} {
		if _, errs, code := deloreis(t, tc.args...); code != tc.code {
			t.Errorf("%q: exit %d, want %d (%s)", tc.args[3:], code, tc.code, errs)
		}
	}
	if _, err := ring.Lookup(key); err != nil {
		t.Fatal("a refused revoke removed the key")
	}
	mustRun(t, k("revoke", g.Hash[:10])...)
	if _, err := ring.Lookup(key); err == nil {
		t.Fatal("the revoked key still works")
	}
	if list := mustRun(t, k("list")...); strings.Count(list, "\n") != 1 || strings.Contains(list, "alpha") {
		t.Fatalf("key list after revoke:\n%s", list)
	}
}

func mustRun2(t *testing.T, args ...string) (string, string) {
	t.Helper()
	out, errs, code := deloreis(t, args...)
	if code != 0 {
		t.Fatalf("deloreis %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	return out, errs
}

// TestDKELifecycleUnderRunningService: a service that stays open sees
// what the lifecycle commands (another process's commits) did to its
// store: a restore brings the snapshot's claims back, a delete empties
// the store.
func TestDKELifecycleUnderRunningService(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s.lore")
	mustRun(t, "--store", dir, "init")
	mustRun(t, "--store", dir, "dke", "store", "create", "alpha")
	s, err := lorestore.Open(dir, lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	reg, err := (&globals{}).dkeRegistry(s)
	if err != nil {
		t.Fatal(err)
	}
	call := func(tool string, params map[string]any) string {
		t.Helper()
		params["store_id"] = "alpha"
		args, _ := json.Marshal(params)
		line, e := mcpserve.Envelope(tool, "t-1", args)
		if e != nil {
			t.Fatal(e)
		}
		resp := reg.Dispatch(context.Background(), line)
		if !resp.OK() {
			t.Fatalf("%s: %v", tool, resp.Err)
		}
		var r struct{ Text string }
		json.Unmarshal(resp.Result, &r)
		return r.Text
	}
	counts := func() string { return strings.SplitN(call("checkup", map[string]any{}), "\n", 2)[0] }
	call("run", map[string]any{"source": "remember(Widget.w1.stock, 1, \"count\")\n"})
	mustRun(t, "--store", dir, "dke", "store", "snapshot", "alpha", "one")
	call("run", map[string]any{"source": "remember(Widget.w2.stock, 2, \"count\")\nremember(Widget.w3.stock, 3, \"count\")\n"})
	for _, step := range []struct {
		args []string
		want string
	}{
		{nil, "checkup: 3 claims, 1 kind, 0 modules, 0 rules, 0 constraints"},
		{[]string{"restore", "alpha", "one"}, "checkup: 1 claim, 1 kind, 0 modules, 0 rules, 0 constraints"},
		{[]string{"delete", "alpha", "--confirm"}, "checkup: 0 claims, 0 kinds, 0 modules, 0 rules, 0 constraints"},
		{[]string{"restore", "alpha", "one"}, "checkup: 1 claim, 1 kind, 0 modules, 0 rules, 0 constraints"},
	} {
		if step.args != nil {
			mustRun(t, append([]string{"--store", dir, "dke", "store"}, step.args...)...)
		}
		if got := counts(); got != step.want {
			t.Fatalf("after %v: %q, want %q", step.args, got, step.want)
		}
	}
}
