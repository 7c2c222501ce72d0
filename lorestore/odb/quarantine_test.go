package odb

import (
	"bytes"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// objectFiles lists every file under dir/objects, so a test can tell
// that a call left nothing behind.
func objectFiles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(dir, "objects"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// quarantineSetup is a receiver holding deltaRepo's history up to
// main~10, and the thin pack that brings the rest: the new objects are
// deltas against objects the receiver has.
func quarantineSetup(t *testing.T) (src, dir string, db *DB, thin []byte, fresh []plumbing.Hash) {
	t.Helper()
	src = deltaRepo(t)
	dir = initBare(t)
	db = openDB(t, dir, Options{})
	old := git(t, src, []byte("main~10\n"), "pack-objects", "--revs", "--stdout", "-q")
	if err := db.IngestPack(bytes.NewReader(old), nil); err != nil {
		t.Fatal(err)
	}
	thin = git(t, src, []byte("main\n^main~10\n"), "pack-objects", "--revs", "--thin", "--threads=1", "--stdout", "-q")
	for _, h := range allObjects(t, src) {
		if ok, err := db.Has(h); err != nil {
			t.Fatal(err)
		} else if !ok {
			fresh = append(fresh, h)
		}
	}
	if len(fresh) < 10 {
		t.Fatalf("only %d objects are new; the test would prove little", len(fresh))
	}
	return src, dir, db, thin, fresh
}

// TestQuarantineReadsThenDiscards: a received pack is readable through its
// quarantine (over the database, which completes it) and invisible to the
// database; discarding it leaves the object directory as it was.
func TestQuarantineReadsThenDiscards(t *testing.T) {
	src, dir, db, thin, fresh := quarantineSetup(t)
	before := objectFiles(t, dir)
	q, err := db.Receive(bytes.NewReader(thin), nil)
	if err != nil {
		t.Fatal(err)
	}
	if q.Len() < len(fresh) {
		t.Fatalf("the quarantine holds %d objects, want at least %d", q.Len(), len(fresh))
	}
	compareWithGit(t, q, src, allObjects(t, src))
	for _, h := range fresh {
		if ok, err := q.Has(h); !ok || err != nil {
			t.Fatalf("quarantine Has(%s) = %v, %v", h, ok, err)
		}
		if ok, err := db.Has(h); ok || err != nil {
			t.Fatalf("the database sees quarantined %s: %v, %v", h, ok, err)
		}
		if _, _, err := db.Read(h); !errors.Is(err, ErrNotFound) {
			t.Fatalf("the database reads quarantined %s: %v", h, err)
		}
	}
	if n := len(packFiles(t, dir, "idx")); n != 1 {
		t.Fatalf("%d pack indexes while quarantined, want 1", n)
	}
	// Another handle on the repository (another process) sees nothing.
	other := openDB(t, dir, Options{})
	if ok, _ := other.Has(fresh[0]); ok {
		t.Fatal("another handle sees a quarantined object")
	}
	q.Discard()
	if !slices.Equal(before, objectFiles(t, dir)) {
		t.Fatalf("discard left files:\nbefore %v\nafter  %v", before, objectFiles(t, dir))
	}
	if _, _, err := q.Read(fresh[0]); !errors.Is(err, ErrQuarantineEnded) {
		t.Fatalf("read after discard: %v", err)
	}
	if err := q.Publish(); !errors.Is(err, ErrQuarantineEnded) {
		t.Fatalf("publish after discard: %v", err)
	}
	for _, h := range fresh {
		if ok, _ := db.Has(h); ok {
			t.Fatalf("%s is in the database after discard", h)
		}
	}
}

// TestQuarantinePublishes: a published quarantine is a pack like any
// IngestPack stores, which real git reads and checks.
func TestQuarantinePublishes(t *testing.T) {
	src, dir, db, thin, _ := quarantineSetup(t)
	q, err := db.Receive(bytes.NewReader(thin), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Publish(); err != nil {
		t.Fatal(err)
	}
	q.Discard() // no effect once published
	compareWithGit(t, db, src, allObjects(t, src))
	compareWithGit(t, openDB(t, dir, Options{}), src, allObjects(t, src))
	for _, idx := range packFiles(t, dir, "idx") {
		git(t, dir, nil, "verify-pack", idx)
	}
	setRef(t, dir, "main", plumbing.NewHash(strings.TrimSpace(string(git(t, src, nil, "rev-parse", "main")))))
	fsckClean(t, dir)
}

// TestQuarantineWriterKeepsItsObjects: a writer that stores what the
// database lacks while a pack holding the same object is quarantined
// writes its own copy, so discarding the quarantine takes nothing from it.
func TestQuarantineWriterKeepsItsObjects(t *testing.T) {
	src, _, db, thin, fresh := quarantineSetup(t)
	q, err := db.Receive(bytes.NewReader(thin), nil)
	if err != nil {
		t.Fatal(err)
	}
	typ, data, err := q.Read(fresh[0])
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	if ok, err := db.Has(fresh[0]); err != nil || ok {
		t.Fatalf("Has of a quarantined object: %v, %v", ok, err)
	}
	if h := b.Add(typ, data); h != fresh[0] {
		t.Fatalf("wrote %s, want %s", h, fresh[0])
	}
	if err := b.Write(); err != nil {
		t.Fatal(err)
	}
	q.Discard()
	compareWithGit(t, db, src, fresh[:1])
	if ok, _ := db.Has(fresh[1]); ok {
		t.Fatal("an object only the discarded pack held is in the database")
	}
}

// TestQuarantineRefusesBadPacks: a corrupt or unresolvable pack fails to
// be received and leaves no file behind.
func TestQuarantineRefusesBadPacks(t *testing.T) {
	_, dir, db, thin, _ := quarantineSetup(t)
	before := objectFiles(t, dir)
	flipped := append([]byte(nil), thin...)
	flipped[len(flipped)/2] ^= 0x55
	for name, tc := range map[string]struct {
		db   *DB
		dir  string
		pack []byte
	}{
		"flipped byte":             {db, dir, flipped},
		"cut short":                {db, dir, thin[:len(thin)-30]},
		"thin into an empty store": {},
	} {
		t.Run(name, func(t *testing.T) {
			if tc.db == nil {
				tc.dir = initBare(t)
				tc.db = openDB(t, tc.dir, Options{})
				tc.pack = thin
			}
			want := objectFiles(t, tc.dir)
			if tc.dir == dir {
				want = before
			}
			if q, err := tc.db.Receive(bytes.NewReader(tc.pack), nil); err == nil {
				q.Discard()
				t.Fatal("a bad pack was received")
			}
			if got := objectFiles(t, tc.dir); !slices.Equal(want, got) {
				t.Fatalf("a refused pack left files:\nbefore %v\nafter  %v", want, got)
			}
		})
	}
}
