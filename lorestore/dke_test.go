// Tests of the dke/ namespace: names refused with nothing written, adds,
// replacements and removals across commits as real git reads them, the
// batch's later-call-wins rule, and both kinds of batch.

package lorestore

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// moduleJSON is a module envelope for name (not canonical: key order and
// spacing are the store's to fix).
func moduleJSON(name, source string) []byte {
	return []byte(fmt.Sprintf(`{ "source": %q, "name": %q }`, source, name))
}

// claimJSON is claim n of kind.
func claimJSON(kind string, n int) []byte {
	return []byte(fmt.Sprintf(`{"kind":%q,"subject":"s%d","attribute":"room","value":"kitchen %d","source":"survey","at":%d}`, kind, n%1000, n, n))
}

// batchMakers are the two kinds of batch every write test runs with.
var batchMakers = []struct {
	name string
	make func(s *Store) *Batch
}{
	{"memory", func(*Store) *Batch { return NewBatch() }},
	{"streaming", func(s *Store) *Batch { return s.NewBatch() }},
}

func commitBatch(t testing.TB, s *Store, b *Batch, summary string) CommitResult {
	t.Helper()
	res, err := s.Commit(b, NewMessage(summary, "dke.run", ""), CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestDKEBadNamesChangeNothing(t *testing.T) {
	good := claimJSON("Sensor", 1)
	tests := []struct {
		name string
		call func(b *Batch) error
		want any // a pointer to the error type expected
	}{
		{"store-slash", func(b *Batch) error { return b.PutModule("a/b", "m", moduleJSON("m", "")) }, new(*NameError)},
		{"store-dotdot", func(b *Batch) error { return b.PutModule("..", "m", moduleJSON("m", "")) }, new(*NameError)},
		{"store-empty", func(b *Batch) error { _, err := b.PutDKEClaim("", "Sensor", good); return err }, new(*NameError)},
		{"store-control", func(b *Batch) error { return b.RemoveModule("de\x01fault", "m") }, new(*NameError)},
		{"store-dot", func(b *Batch) error { return b.RemoveDKEStore("a.b") }, new(*NameError)},
		{"module-dot", func(b *Batch) error { return b.PutModule("default", "a.b", moduleJSON("a.b", "")) }, new(*NameError)},
		{"module-hyphen", func(b *Batch) error { return b.PutModule("default", "a-b", moduleJSON("a-b", "")) }, new(*NameError)},
		{"module-underscore-start", func(b *Batch) error { return b.PutModule("default", "_m", moduleJSON("_m", "")) }, new(*NameError)},
		{"module-digit-start", func(b *Batch) error { return b.RemoveModule("default", "1m") }, new(*NameError)},
		{"module-not-nfc", func(b *Batch) error { return b.PutModule("default", "lage\u0301r", moduleJSON("lage\u0301r", "")) }, new(*NameError)},
		{"module-name-mismatch", func(b *Batch) error { return b.PutModule("default", "m", moduleJSON("other", "")) }, new(*DataError)},
		{"module-no-name", func(b *Batch) error { return b.PutModule("default", "m", []byte(`{"source":""}`)) }, new(*DataError)},
		{"module-not-json", func(b *Batch) error { return b.PutModule("default", "m", []byte(`{"name":"m",}`)) }, new(*DataError)},
		{"module-array", func(b *Batch) error { return b.PutModule("default", "m", []byte(`["m"]`)) }, new(*DataError)},
		{"kind-slash", func(b *Batch) error { _, err := b.PutDKEClaim("default", "Sen/sor", good); return err }, new(*NameError)},
		{"kind-dotdot", func(b *Batch) error { return b.RemoveDKEClaim("default", "..", objects.ID{}) }, new(*NameError)},
		{"kind-space", func(b *Batch) error { _, err := b.PutDKEClaim("default", "Sen sor", good); return err }, new(*NameError)},
		{"claim-kind-mismatch", func(b *Batch) error { _, err := b.PutDKEClaim("default", "Room", good); return err }, new(*DataError)},
		{"claim-duplicate-key", func(b *Batch) error {
			_, err := b.PutDKEClaim("default", "Sensor", []byte(`{"kind":"Sensor","kind":"Sensor"}`))
			return err
		}, new(*DataError)},
		{"path-outside", func(b *Batch) error { return b.Remove("README") }, new(*NameError)},
		{"path-traversal", func(b *Batch) error { return b.Remove("dke/../lore.json") }, new(*NameError)},
		{"path-header", func(b *Batch) error { return b.Remove("lore.json") }, new(*NameError)},
		{"path-wrong-shard", func(b *Batch) error {
			return b.Remove("dke/default/claims/Sensor/zz/" + strings.Repeat("ab", 32) + ".json")
		}, new(*NameError)},
		{"path-other-shard", func(b *Batch) error {
			return b.Remove("dke/default/claims/Sensor/cd/" + strings.Repeat("ab", 32) + ".json")
		}, new(*NameError)},
		{"path-module-bad", func(b *Batch) error { return b.Remove("dke/default/modules/a-b.json") }, new(*NameError)},
		{"path-too-deep", func(b *Batch) error { return b.Remove("dke/default/modules/x/m.json") }, new(*NameError)},
		{"path-scope-bad", func(b *Batch) error { return b.Remove("scopes/a b/decisions/" + strings.Repeat("ab", 32) + ".json") }, new(*NameError)},
		{"path-scope-not-id", func(b *Batch) error { return b.Remove("scopes/camelot/decisions/readme.json") }, new(*NameError)},
	}
	for _, mk := range batchMakers {
		for _, tc := range tests {
			t.Run(mk.name+"/"+tc.name, func(t *testing.T) {
				s, dir := newStore(t)
				s.WaitBackground()
				before := dirState(t, dir)
				b := mk.make(s)
				err := tc.call(b)
				if err == nil || !errors.As(err, tc.want) {
					t.Fatalf("got %v, want a %T", err, tc.want)
				}
				var ne *NameError
				if errors.As(err, &ne) != errors.Is(err, ErrInvalidName) {
					t.Fatalf("%v: a NameError must match ErrInvalidName", err)
				}
				if b.Len() != 0 {
					t.Fatalf("a refused call left %d files in the batch", b.Len())
				}
				res, err := s.Commit(b, NewMessage("nothing", "dke.run", ""), CommitOptions{})
				if err != nil || !res.Empty {
					t.Fatalf("commit of the batch: %+v, %v; want an empty result", res, err)
				}
				s.WaitBackground()
				sameState(t, before, dirState(t, dir))
			})
		}
	}
}

func TestDKEGoodNames(t *testing.T) {
	b := NewBatch()
	for _, store := range []string{"default", "store-2", "Ærø_1"} {
		for _, mod := range []string{"inventory", "lager_ø", "Watch2", "été"} {
			if err := b.PutModule(store, mod, moduleJSON(mod, "")); err != nil {
				t.Fatalf("module %q in %q: %v", mod, store, err)
			}
		}
		for _, kind := range []string{"Sensor", "sensor", "_Private", "Sensør", "Κατηγορία"} {
			if _, err := b.PutDKEClaim(store, kind, claimJSON(kind, 1)); err != nil {
				t.Fatalf("kind %q in %q: %v", kind, store, err)
			}
		}
	}
	s, dir := newStore(t)
	commitBatch(t, s, b, "names")
	s.WaitBackground()
	fsckClean(t, dir)
	if ps, err := s.Fsck(); err != nil || len(ps) != 0 {
		t.Fatalf("fsck: %v %v", ps, err)
	}
	sn, _ := s.Snapshot("main")
	kinds, err := sn.ClaimKinds("Ærø_1")
	if err != nil || len(kinds) != 5 {
		t.Fatalf("kinds %v, %v", kinds, err)
	}
}

// dkeFixture is what the add/remove/re-add test writes, by commit.
type dkeFixture struct {
	claims [4][]byte // Sensor claims 0..2, Room claim 3
	ids    [4]objects.ID
}

func TestDKEAddRemoveReadd(t *testing.T) {
	for _, mk := range batchMakers {
		t.Run(mk.name, func(t *testing.T) { testAddRemoveReadd(t, mk.make) })
	}
}

func testAddRemoveReadd(t *testing.T, newBatch func(*Store) *Batch) {
	s, dir := newStore(t)
	var fx dkeFixture
	b := newBatch(s)
	for i := range fx.claims {
		kind := "Sensor"
		if i == 3 {
			kind = "Room"
		}
		id, err := b.PutDKEClaim("default", kind, claimJSON(kind, i))
		if err != nil {
			t.Fatal(err)
		}
		fx.ids[i] = id
	}
	must(t, b.PutModule("default", "inventory", moduleJSON("inventory", "v1")))
	must(t, b.PutModule("default", "watch", moduleJSON("watch", "w1")))
	c1 := commitBatch(t, s, b, "dke compile inventory")

	b = newBatch(s)
	must(t, b.RemoveDKEClaim("default", "Sensor", fx.ids[0]))
	must(t, b.PutModule("default", "inventory", moduleJSON("inventory", "v2")))
	c2 := commitBatch(t, s, b, "dke forget Sensor.s0.room")

	b = newBatch(s)
	if _, err := b.PutDKEClaim("default", "Sensor", claimJSON("Sensor", 0)); err != nil {
		t.Fatal(err)
	}
	must(t, b.RemoveModule("default", "watch"))
	must(t, b.Remove(dkeClaimFile("Room", fx.ids[3])))
	c3 := commitBatch(t, s, b, "dke remember Sensor.s0.room again")

	wantAt := []struct {
		commit  Hash
		modules map[string]string // name -> source
		claims  map[string][]objects.ID
	}{
		{c1.Commit, map[string]string{"inventory": "v1", "watch": "w1"}, map[string][]objects.ID{"Room": {fx.ids[3]}, "Sensor": fx.ids[:3]}},
		{c2.Commit, map[string]string{"inventory": "v2", "watch": "w1"}, map[string][]objects.ID{"Room": {fx.ids[3]}, "Sensor": fx.ids[1:3]}},
		{c3.Commit, map[string]string{"inventory": "v2"}, map[string][]objects.ID{"Sensor": fx.ids[:3]}},
	}
	for i, w := range wantAt {
		checkDKESnapshot(t, s, w.commit, w.modules, w.claims, fmt.Sprintf("c%d", i+1))
	}

	checkGitHistory(t, s, dir, fx, c1.Commit, c2.Commit, c3.Commit)
}

// checkGitHistory reads the add/remove/re-add history with real git: the
// log of the removed-and-restored claim file names the three commits, the
// removed values are still in the old commits, and emptied folders are
// gone; DKEChanges agrees.
func checkGitHistory(t *testing.T, s *Store, dir string, fx dkeFixture, c1, c2, c3 Hash) {
	t.Helper()
	s.WaitBackground()
	fsckClean(t, dir)
	path := dkeClaimFile("Sensor", fx.ids[0])
	log := strings.Fields(strings.ReplaceAll(git(t, dir, "log", "--format=%s", "--", path), " ", "_"))
	want := []string{"dke_remember_Sensor.s0.room_again", "dke_forget_Sensor.s0.room", "dke_compile_inventory"}
	if !slices.Equal(log, want) {
		t.Fatalf("git log -- %s = %v, want %v", path, log, want)
	}
	canon, _ := canonicalEnvelope("", claimJSON("Sensor", 0), "kind", "Sensor")
	if got := git(t, dir, "show", c1.String()+":"+path); got != string(canon) {
		t.Fatalf("git show c1:%s = %q, want %q", path, got, canon)
	}
	if out, err := gitErr(dir, "show", c2.String()+":"+path); err == nil {
		t.Fatalf("c2 still holds %s: %q", path, out)
	}
	if got := git(t, dir, "show", c1.String()+":dke/default/modules/watch.json"); !strings.Contains(got, `"w1"`) {
		t.Fatalf("the removed module's old value: %q", got)
	}
	// The Room kind lost its last claim: no empty folder is left.
	if got := git(t, dir, "ls-tree", "-r", "--name-only", c3.String(), "dke/default/claims/Room"); got != "" {
		t.Fatalf("an emptied kind is still in the tree: %q", got)
	}
	if got := git(t, dir, "ls-tree", "-d", "--name-only", c3.String(), "dke/default/claims/"); strings.TrimSpace(got) != "dke/default/claims/Sensor" {
		t.Fatalf("claim kinds at c3: %q", got)
	}
	if ps, err := s.Fsck(); err != nil || len(ps) != 0 {
		t.Fatalf("fsck: %v %v", ps, err)
	}

	changes, err := s.DKEChanges(c2)
	if err != nil {
		t.Fatal(err)
	}
	wantChanges := []DKEChange{
		{Store: "default", Kind: "Sensor", ID: fx.ids[0], Removed: true},
		{Store: "default", Module: "inventory", Replaced: true},
	}
	if !slices.Equal(changes, wantChanges) {
		t.Fatalf("changes of c2 = %+v, want %+v", changes, wantChanges)
	}
	changes, err = s.DKEChanges(c3)
	must(t, err)
	wantChanges = []DKEChange{
		{Store: "default", Kind: "Room", ID: fx.ids[3], Removed: true},
		{Store: "default", Kind: "Sensor", ID: fx.ids[0]},
		{Store: "default", Module: "watch", Removed: true},
	}
	if !slices.Equal(changes, wantChanges) {
		t.Fatalf("changes of c3 = %+v, want %+v", changes, wantChanges)
	}
	if sc, err := s.Changes(c2); err != nil || len(sc) != 0 {
		t.Fatalf("scope changes of a DKE commit: %v %v", sc, err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// dkeClaimFile is the path of a claim of the default store.
func dkeClaimFile(kind string, id objects.ID) string {
	return "dke/default/claims/" + kind + "/" + id.String()[:2] + "/" + id.String() + ".json"
}

// checkDKESnapshot compares the default store at commit with modules
// (name -> source) and claims (kind -> ids).
func checkDKESnapshot(t *testing.T, s *Store, commit Hash, modules map[string]string, claims map[string][]objects.ID, label string) {
	t.Helper()
	sn, err := s.SnapshotAt(commit)
	if err != nil {
		t.Fatal(err)
	}
	if stores, err := sn.DKEStores(); err != nil || !slices.Equal(stores, []string{"default"}) {
		t.Fatalf("%s: stores %v, %v", label, stores, err)
	}
	names, err := sn.ModuleNames("default")
	must(t, err)
	all, err := sn.Modules("default")
	must(t, err)
	if len(names) != len(modules) || len(all) != len(modules) {
		t.Fatalf("%s: modules %v, want %v", label, names, modules)
	}
	for _, n := range names {
		data, err := sn.Module("default", n)
		if err != nil || string(data) != string(all[n]) {
			t.Fatalf("%s: module %s: %q, %v", label, n, data, err)
		}
		want, _ := canonicalEnvelope("", moduleJSON(n, modules[n]), "name", n)
		if string(data) != string(want) {
			t.Fatalf("%s: module %s = %s, want %s", label, n, data, want)
		}
	}
	if _, err := sn.Module("default", "nosuch"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("%s: a missing module: %v", label, err)
	}
	kinds, err := sn.ClaimKinds("default")
	must(t, err)
	if len(kinds) != len(claims) {
		t.Fatalf("%s: kinds %v, want %v", label, kinds, claims)
	}
	every, err := sn.DKEClaims("default", "")
	must(t, err)
	n := 0
	for _, k := range kinds {
		want := slices.Clone(claims[k])
		slices.SortFunc(want, func(a, b objects.ID) int { return strings.Compare(a.String(), b.String()) })
		ids, err := sn.DKEClaimIDs("default", k)
		if err != nil || !slices.Equal(ids, want) {
			t.Fatalf("%s: %s ids %v, want %v (%v)", label, k, ids, want, err)
		}
		for _, id := range ids {
			data, err := sn.DKEClaim("default", k, id)
			if err != nil || objects.ID(sumID(data)) != id || every[n].ID != id || every[n].Kind != k || string(every[n].Data) != string(data) {
				t.Fatalf("%s: claim %s: %v", label, id, err)
			}
			n++
		}
	}
	if n != len(every) {
		t.Fatalf("%s: DKEClaims read %d claims, the kinds hold %d", label, len(every), n)
	}
	if _, err := sn.DKEClaim("default", "Sensor", objects.ID{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("%s: a missing claim: %v", label, err)
	}
}

// TestDKEHeader: a store's header is put, replaced and read back; a
// header naming another store is refused with the batch unchanged; real
// git and our fsck accept it, and a header arriving by merge is verified.
func TestDKEHeader(t *testing.T) {
	s, dir := newStore(t)
	b := NewBatch()
	must(t, b.PutDKEHeader("default", []byte(`{"store":"default","clock":0,"created":"2026-12-01T12:00:00Z"}`)))
	if err := b.PutDKEHeader("default", []byte(`{"store":"other"}`)); err == nil {
		t.Fatal("a header naming another store was taken")
	}
	if err := b.PutDKEHeader("../x", []byte(`{"store":"../x"}`)); !errors.Is(err, ErrInvalidName) {
		t.Fatalf("a bad store id: %v", err)
	}
	c1 := commitBatch(t, s, b, "dke store create default")
	b = NewBatch()
	must(t, b.PutDKEHeader("default", []byte(`{"store":"default","clock":7,"created":"2026-12-01T12:00:00Z"}`)))
	commitBatch(t, s, b, "dke clock")
	s.WaitBackground()
	fsckClean(t, dir)
	if ps, err := s.Fsck(); err != nil || len(ps) != 0 {
		t.Fatalf("fsck: %v %v", ps, err)
	}
	for _, c := range []struct {
		rev  string
		want string
	}{{c1.Commit.String(), `"clock":0`}, {"main", `"clock":7`}} {
		sn, err := s.Snapshot(c.rev)
		if err != nil {
			t.Fatal(err)
		}
		h, err := sn.DKEHeader("default")
		if err != nil || !strings.Contains(string(h), c.want) {
			t.Errorf("header at %s: %s %v", c.rev, h, err)
		}
		if stores, _ := sn.DKEStores(); len(stores) != 1 || stores[0] != "default" {
			t.Errorf("stores at %s: %v", c.rev, stores)
		}
	}
	sn, _ := s.Snapshot("main")
	if _, err := sn.DKEHeader("nostore"); !errors.Is(err, ErrNotFound) {
		t.Errorf("header of a store that is not there: %v", err)
	}
}
