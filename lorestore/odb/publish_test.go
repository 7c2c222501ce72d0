// Batch.Discard: a pack is taken back only when nobody else can rely on
// it, identical packs written by two writers included.

package odb

import (
	"os"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func writeOne(t *testing.T, db *DB, content string) (*Batch, plumbing.Hash) {
	t.Helper()
	b := db.NewBatch()
	h := b.Add(plumbing.BlobObject, []byte(content))
	if err := b.Write(); err != nil {
		t.Fatal(err)
	}
	return b, h
}

func hasObj(t *testing.T, db *DB, h plumbing.Hash) bool {
	t.Helper()
	ok, err := db.Has(h)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestDiscard(t *testing.T) {
	dir := initBare(t)
	db := openDB(t, dir, Options{AutoPackLimit: -1})
	_, kept := writeOne(t, db, "kept\n")
	b, h := writeOne(t, db, "unwanted\n")
	b.Add(plumbing.BlobObject, []byte("second write\n"))
	if err := b.Write(); err != nil { // Discard concerns the last Write only
		t.Fatal(err)
	}
	second := HashObject(plumbing.BlobObject, []byte("second write\n"))
	if err := b.Discard(); err != nil {
		t.Fatal(err)
	}
	if hasObj(t, db, second) || !hasObj(t, db, h) || !hasObj(t, db, kept) {
		t.Fatalf("Discard removed the wrong pack")
	}
	if err := b.Discard(); err != nil { // again: no-op
		t.Fatal(err)
	}
	if n := len(packFiles(t, dir, "idx")); n != 2 || len(packFiles(t, dir, "pack")) != 2 {
		t.Fatalf("%d packs after Discard, want 2", n)
	}
	fresh := openDB(t, dir, Options{})
	if hasObj(t, fresh, second) || !hasObj(t, fresh, h) {
		t.Fatalf("a fresh DB disagrees")
	}
	if err := db.NewBatch().Discard(); err != nil { // never written
		t.Fatal(err)
	}
	fsckClean(t, dir)
}

func TestDiscardIdenticalPacks(t *testing.T) {
	for _, order := range []string{"creator-discards", "adopter-discards", "both-discard"} {
		t.Run(order, func(t *testing.T) {
			dir := initBare(t)
			a := openDB(t, dir, Options{AutoPackLimit: -1})
			b := openDB(t, dir, Options{AutoPackLimit: -1}) // another writer
			ba, h := writeOne(t, a, "same objects, same pack\n")
			bb, h2 := writeOne(t, b, "same objects, same pack\n")
			if h != h2 || len(packFiles(t, dir, "pack")) != 1 {
				t.Fatalf("expected one shared pack")
			}
			switch order {
			case "creator-discards":
				ba.Discard()
			case "adopter-discards":
				bb.Discard()
			case "both-discard":
				bb.Discard()
				ba.Discard()
			}
			// Whoever lost, the other writer's objects must stay (in the
			// last case nobody can know the other is done with it).
			if !hasObj(t, openDB(t, dir, Options{}), h) {
				t.Fatalf("a shared pack was deleted")
			}
		})
	}
}

func TestDiscardAfterRollUp(t *testing.T) {
	dir := initBare(t)
	db := openDB(t, dir, Options{AutoPackLimit: -1})
	writeOne(t, db, "one\n")
	b, h := writeOne(t, db, "two\n")
	if err := db.Consolidate(); err != nil {
		t.Fatal(err)
	}
	if n := len(packFiles(t, dir, "idx")); n != 1 {
		t.Fatalf("%d packs after roll-up", n)
	}
	if err := b.Discard(); err != nil {
		t.Fatal(err)
	}
	// Rolled up: the objects stay, unreferenced and harmless.
	if !hasObj(t, db, h) {
		t.Fatalf("Discard after a roll-up removed the roll-up")
	}
}

func TestAdoptReplacesTornPack(t *testing.T) {
	dir := initBare(t)
	db := openDB(t, dir, Options{AutoPackLimit: -1})
	_, h := writeOne(t, db, "torn\n")
	base := findPackOf(t, db, h)
	// As if a power loss tore the file after its rename: same name,
	// wrong bytes, no index.
	os.Remove(base + ".idx")
	os.Chmod(base+".pack", 0o644)
	os.WriteFile(base+".pack", make([]byte, 64), 0o444)
	db2 := openDB(t, dir, Options{})
	b := db2.NewBatch()
	b.Add(plumbing.BlobObject, []byte("torn\n"))
	if err := b.Write(); err != nil {
		t.Fatalf("Write over a torn pack: %v", err)
	}
	mustRead(t, openDB(t, dir, Options{}), h, plumbing.BlobObject, []byte("torn\n"))
	fsckClean(t, dir)
}
