package odb

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestBulkPack writes packs through BulkPack, with and without repeated
// objects, in one sorted run or many, and checks them against real git:
// git fsck --strict accepts the repository, git index-pack writes the
// same index bytes for the pack, and every object reads back.
func TestBulkPack(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		repeat  int // every repeat-th object is added again (0: never)
		runRecs int // records per sorted run
	}{
		{"unique-one-run", 3000, 0, 1 << 20},
		{"unique-many-runs", 3000, 0, 97},
		{"repeats-one-run", 3000, 7, 1 << 20},
		{"repeats-many-runs", 3000, 5, 101},
		{"all-repeated", 500, 1, 64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old := bulkRunRecords
			bulkRunRecords = tc.runRecs
			defer func() { bulkRunRecords = old }()
			dir := initBare(t)
			db := openDB(t, dir, Options{})
			bp, err := db.NewBulkPack()
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, uint64(tc.n)))
			var blobs [][]byte
			var tree []treeEntry
			for i := range tc.n {
				data := blob(r, 50+r.IntN(400))
				h := bp.Add(plumbing.BlobObject, data)
				if tc.repeat > 0 && i%tc.repeat == 0 {
					if again := bp.Add(plumbing.BlobObject, data); again != h {
						t.Fatalf("the same blob named %s, then %s", h, again)
					}
				}
				blobs = append(blobs, data)
				tree = append(tree, treeEntry{"100644", h.String(), h})
			}
			th := bp.Add(plumbing.TreeObject, makeTree(tree))
			ch := bp.Add(plumbing.CommitObject, makeCommit(th, nil, "bulk"))
			if err := bp.Finish(); err != nil {
				t.Fatal(err)
			}
			setRef(t, dir, "main", ch)
			fsckClean(t, dir)
			if tmp := leftovers(t, dir); len(tmp) > 0 {
				t.Fatalf("temporary files left: %v", tmp)
			}
			packs := packFiles(t, dir, "pack")
			if len(packs) != 1 {
				t.Fatalf("%d packs, want 1", len(packs))
			}
			ours, err := os.ReadFile(strings.TrimSuffix(packs[0], ".pack") + ".idx")
			if err != nil {
				t.Fatal(err)
			}
			theirs := filepath.Join(t.TempDir(), "git.idx")
			git(t, dir, nil, "index-pack", "-o", theirs, packs[0])
			if want, _ := os.ReadFile(theirs); !bytes.Equal(ours, want) {
				t.Fatalf("our index (%d bytes) differs from git index-pack's (%d bytes)", len(ours), len(want))
			}
			fresh := openDB(t, dir, Options{})
			for _, data := range blobs {
				mustRead(t, fresh, plumbing.ComputeHash(plumbing.BlobObject, data), plumbing.BlobObject, data)
			}
		})
	}
}

// TestBulkPackAbort: an aborted bulk pack leaves no file behind, and a
// discarded one takes its pack back.
func TestBulkPackAbort(t *testing.T) {
	for _, finish := range []bool{false, true} {
		dir := initBare(t)
		db := openDB(t, dir, Options{})
		old := bulkRunRecords
		bulkRunRecords = 50
		bp, err := db.NewBulkPack()
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(2, 2))
		var h plumbing.Hash
		for range 2000 {
			h = bp.Add(plumbing.BlobObject, blob(r, 300))
		}
		if finish {
			if err := bp.Finish(); err != nil {
				t.Fatal(err)
			}
			if ok, _ := db.Has(h); !ok {
				t.Fatal("a finished bulk pack's object is not readable")
			}
			if err := bp.Discard(); err != nil {
				t.Fatal(err)
			}
		} else {
			bp.Abort()
		}
		bulkRunRecords = old
		if ok, _ := db.Has(h); ok {
			t.Fatalf("finish=%v: the object is still readable", finish)
		}
		if tmp := leftovers(t, dir); len(tmp) > 0 {
			t.Fatalf("finish=%v: temporary files left: %v", finish, tmp)
		}
		if ps := packFiles(t, dir, "*"); len(ps) > 0 {
			t.Fatalf("finish=%v: pack files left: %v", finish, ps)
		}
	}
}

// leftovers lists our temporary files of any kind that hold anything (an empty one is
// a spare a writer keeps ready).
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, d := range []string{"objects", "objects/pack"} {
		es, err := os.ReadDir(filepath.Join(dir, d))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if info, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), "tmp_") && info.Size() > 0 {
				out = append(out, e.Name())
			}
		}
	}
	return out
}

// TestNamerAndAddNamed: a Namer names every type of object as git does
// (HashObject, held to git in the git tests), reused from one object to
// the next, and the index of a bulk pack of objects added with their
// names (which it lists with their places) is byte for byte Add's.
func TestNamerAndAddNamed(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	var n Namer
	var objs [][]byte
	for i := range 300 {
		data := make([]byte, r.IntN(3000))
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		objs = append(objs, data)
		typ := []plumbing.ObjectType{plumbing.BlobObject, plumbing.TreeObject, plumbing.CommitObject}[i%3]
		if got, want := n.Name(typ, data), HashObject(typ, data); got != want {
			t.Fatalf("object %d (%v, %d bytes): Namer %s, HashObject %s", i, typ, len(data), got, want)
		}
	}
	packOf := func(named bool) []byte {
		dir := initBare(t)
		db := openDB(t, dir, Options{})
		b, err := db.NewBulkPack()
		if err != nil {
			t.Fatal(err)
		}
		for _, data := range objs {
			if named {
				b.AddNamed(plumbing.BlobObject, data, n.Name(plumbing.BlobObject, data))
			} else {
				b.Add(plumbing.BlobObject, data)
			}
		}
		if err := b.Finish(); err != nil {
			t.Fatal(err)
		}
		idxs, err := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.idx"))
		if err != nil || len(idxs) != 1 {
			t.Fatalf("indexes %v, %v: want one", idxs, err)
		}
		data, err := os.ReadFile(idxs[0])
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	if !bytes.Equal(packOf(true), packOf(false)) {
		t.Fatal("the index of a pack of objects added with their names differs from Add's")
	}
}
