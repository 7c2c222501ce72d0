package service

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/dke/keys"
)

// TestOpenOwnsStore: Init makes a lorestore and Open opens one, each
// with the service owning it; Close releases it, so that the store opens
// again.
func TestOpenOwnsStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s.lore")
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	o := OpenOptions{StoreDir: dir, StoreOptions: StoreOptions{Now: func() time.Time { return at }}}
	svc, err := Init(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateStore("alpha"); err != nil {
		t.Fatal(err)
	}
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	svc, err = Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	recs, err := svc.ListStores()
	if err != nil {
		t.Fatal(err)
	}
	// The store's clock is the store options' when OpenOptions.Now is nil.
	if len(recs) != 1 || recs[0].ID != "alpha" || recs[0].Created != "2026-12-01T12:00:00Z" || svc.Branch() != "main" {
		t.Fatalf("stores %+v on %s", recs, svc.Branch())
	}
	if _, err := Open(OpenOptions{StoreDir: filepath.Join(t.TempDir(), "none")}); err == nil {
		t.Fatal("opened a lorestore that is not there")
	}
}

// TestStoreAdmin: create, snapshot, delete, restore and list, as the
// command line calls them.
func TestStoreAdmin(t *testing.T) {
	f := newFixture(t)
	svc := f.svc
	c, err := svc.CreateStore("alpha")
	if err != nil || c.Summary != "dke store create alpha" || c.Empty || c.Commit != f.head() {
		t.Fatalf("create: %+v, %v", c, err)
	}
	if _, err := svc.CreateStore("alpha"); !errors.Is(err, ErrStoreExists) || err.Error() != "DKE store alpha exists already" {
		t.Fatalf("a second create: %v", err)
	}
	f.mustOK(t.Context(), "run", map[string]any{"source": "remember(A.a.x, 1, \"s\")\n", "store_id": "alpha"})
	sn, err := svc.SnapshotStore("alpha", "one")
	if err != nil || sn.Name != "one" || sn.Commit != f.head() {
		t.Fatalf("snapshot: %+v, %v", sn, err)
	}
	if _, err := svc.SnapshotStore("alpha", "one"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("a taken name: %v", err)
	}
	if sn, err := svc.SnapshotStore("alpha", ""); err != nil || !strings.HasPrefix(sn.Name, "2026") {
		t.Fatalf("a snapshot named by the time: %+v, %v", sn, err)
	}
	if _, err := svc.SnapshotStore("nosuch", ""); !errors.Is(err, ErrNoStore) || err.Error() != "no DKE store nosuch on main" {
		t.Fatalf("snapshot of no store: %v", err)
	}
	f.mustOK(t.Context(), "run", map[string]any{"source": "remember(A.b.x, 2, \"s\")\n", "store_id": "alpha"})
	if _, err := svc.DeleteStore("alpha"); err != nil {
		t.Fatal(err)
	}
	recs, err := svc.ListStores()
	if err != nil || len(recs) != 1 || recs[0].Live || len(recs[0].Snapshots) != 2 || recs[0].Snapshots[1].Name != "one" {
		t.Fatalf("list after delete: %+v, %v", recs, err)
	}
	if c, err := svc.RestoreStore("alpha", "one"); err != nil || c.Empty || c.Summary != "dke store restore alpha from one" {
		t.Fatalf("restore: %+v, %v", c, err)
	}
	// The service sees the restored store: one claim again.
	if got := f.mustOK(t.Context(), "checkup", map[string]any{"store_id": "alpha"}); !strings.HasPrefix(got, "checkup: 1 claim,") {
		t.Fatalf("checkup after restore: %q", got)
	}
	if c, err := svc.RestoreStore("alpha", "one"); err != nil || !c.Empty || c.Commit != "" {
		t.Fatalf("a second restore: %+v, %v", c, err)
	}
	if _, err := svc.RestoreStore("alpha", "never"); err == nil {
		t.Fatal("restored a snapshot that is not there")
	}
	recs, err = svc.ListStores()
	if err != nil || len(recs) != 1 || !recs[0].Live || recs[0].Clock != 1 || recs[0].Created == "" {
		t.Fatalf("list after restore: %+v, %v", recs, err)
	}
	if ok, err := svc.HasStore("alpha"); !ok || err != nil {
		t.Fatalf("HasStore: %v, %v", ok, err)
	}
}

// TestKeyAdmin: a key is shown once and named by its hash after; a
// revoke needs a prefix exactly one key has.
func TestKeyAdmin(t *testing.T) {
	f := newFixture(t)
	var hashes []string
	for range 2 {
		key, g, err := f.svc.CreateKey("alpha", keys.Write)
		if err != nil || !strings.HasPrefix(key, "dke_") || g.Store != "alpha" || !g.CanWrite() {
			t.Fatalf("create: %q %+v %v", key, g, err)
		}
		hashes = append(hashes, g.Hash)
	}
	es, err := f.svc.Keys()
	if err != nil || len(es) != 2 {
		t.Fatalf("keys: %+v, %v", es, err)
	}
	if err := f.svc.RevokeKey("ffffffffffffff"); err == nil || !strings.Contains(err.Error(), "no key's hash") {
		t.Fatalf("an unknown prefix: %v", err)
	}
	if err := f.svc.RevokeKey(hashes[0]); err != nil {
		t.Fatal(err)
	}
	if es, _ := f.svc.Keys(); len(es) != 1 || es[0].Hash != hashes[1] {
		t.Fatalf("keys after revoke: %+v", es)
	}
}

// TestStoreNames: a store id that differs from an existing one only by
// case, or that is not in NFC, is refused (DL-0437); before, "Alpha"
// was created beside "alpha" and both listed.
func TestStoreNames(t *testing.T) {
	f := newFixture(t)
	if _, err := f.svc.CreateStore("alpha"); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"Alpha": "only by case", "ALPHA": "only by case", "cafe\u0301": "NFC"} {
		before := f.head()
		if _, err := f.svc.CreateStore(id); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("create %q: %v, want a refusal naming %q", id, err, want)
		}
		if f.head() != before {
			t.Fatalf("create %q: refused yet the branch moved", id)
		}
	}
}
