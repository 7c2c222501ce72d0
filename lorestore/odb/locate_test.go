package odb

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestViewLocateReadAt locates objects in two packs and one loose: a
// packed object reads at its loc as DB.Read reads it, a loose one is not
// located, and a view's locs stay readable after the packs are rolled up
// and their files removed.
func TestViewLocateReadAt(t *testing.T) {
	dir := initBare(t)
	db := openDB(t, dir, Options{AutoPackLimit: -1})
	r := rand.New(rand.NewPCG(7, 8))
	var hs []plumbing.Hash
	var blobs [][]byte
	for range 2 {
		b := db.NewBatch()
		for range 50 {
			data := blob(r, 200+r.IntN(800))
			hs = append(hs, b.Add(plumbing.BlobObject, data))
			blobs = append(blobs, data)
		}
		if err := b.Write(); err != nil {
			t.Fatal(err)
		}
	}
	loose := []byte("only loose\n")
	hl := plumbing.NewHash(strings.TrimSpace(string(git(t, dir, loose, "hash-object", "-w", "--stdin"))))

	v, err := db.View()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.Packs() != 2 {
		t.Fatalf("view of %d packs, want 2", v.Packs())
	}
	if _, ok := v.Locate(hl); ok {
		t.Fatal("a loose object was located in a pack")
	}
	locs := make([]Loc, len(hs))
	packs := map[int]bool{}
	for i, h := range hs {
		loc, ok := v.Locate(h)
		if !ok {
			t.Fatalf("object %d not located", i)
		}
		locs[i] = loc
		packs[loc.Pack()] = true
	}
	if len(packs) != 2 {
		t.Fatalf("objects located in %d packs, want 2", len(packs))
	}
	if err := db.Consolidate(); err != nil {
		t.Fatal(err)
	}
	if n := len(packFiles(t, dir, "pack")); n != 1 {
		t.Fatalf("%d packs after a roll-up, want 1", n)
	}
	for i, loc := range locs {
		typ, data, err := v.ReadAt(loc)
		if err != nil || typ != plumbing.BlobObject || !bytes.Equal(data, blobs[i]) {
			t.Fatalf("object %d at %x: %v, %d bytes, %v", i, loc, typ, len(data), err)
		}
		mustRead(t, db, hs[i], plumbing.BlobObject, blobs[i])
	}
}
