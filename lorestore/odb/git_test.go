// Tests with real git as the referee: what we write, git reads (fsck,
// cat-file, verify-pack, count-objects); what git writes, we read.

package odb

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

type writtenObj struct {
	typ  plumbing.ObjectType
	data []byte
	hash plumbing.Hash
}

// writeHistory writes nCommits batches, each with some blobs, a subtree, a
// root tree and a commit chained to the previous one. It returns every
// object and the last commit.
func writeHistory(t testing.TB, db *DB, r *rand.Rand, nCommits, blobsPer int) ([]writtenObj, plumbing.Hash) {
	t.Helper()
	var all []writtenObj
	var parent []plumbing.Hash
	var head plumbing.Hash
	for c := 0; c < nCommits; c++ {
		b := db.NewBatch()
		add := func(typ plumbing.ObjectType, data []byte) plumbing.Hash {
			h := b.Add(typ, data)
			all = append(all, writtenObj{typ, data, h})
			return h
		}
		var sub []treeEntry
		for i := 0; i < blobsPer; i++ {
			h := add(plumbing.BlobObject, blob(r, 50+r.IntN(400)))
			sub = append(sub, treeEntry{"100644", "f" + strconv.Itoa(i) + ".txt", h})
		}
		subH := add(plumbing.TreeObject, makeTree(sub))
		root := add(plumbing.TreeObject, makeTree([]treeEntry{
			{"40000", "dir", subH},
			{"100644", "dir.txt", add(plumbing.BlobObject, []byte("same content each time\n"))},
			{"100755", "run.sh", add(plumbing.BlobObject, []byte("#!/bin/sh\necho "+strconv.Itoa(c)+"\n"))},
		}))
		head = add(plumbing.CommitObject, makeCommit(root, parent, "commit "+strconv.Itoa(c)))
		parent = []plumbing.Hash{head}
		if err := b.Write(); err != nil {
			t.Fatalf("Write: %v", err)
		}
		if b.Len() != 0 {
			t.Fatalf("batch not reset after Write")
		}
	}
	return all, head
}

func TestRealGitAgrees(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     Options
		commits  int
		blobsPer int
	}{
		{"small-fsync", Options{AutoPackLimit: -1}, 3, 5},
		{"many-blobs", Options{AutoPackLimit: -1, NoFsync: true}, 2, 3000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := initBare(t)
			db := openDB(t, dir, tc.opts)
			objs, head := writeHistory(t, db, rand.New(rand.NewPCG(1, 2)), tc.commits, tc.blobsPer)
			setRef(t, dir, "main", head)
			os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
			fsckClean(t, dir)
			// cat-file of every object, in one git process.
			var in bytes.Buffer
			for _, o := range objs {
				in.WriteString(o.hash.String() + "\n")
			}
			out := git(t, dir, in.Bytes(), "cat-file", "--batch")
			for _, o := range objs {
				hdr := o.hash.String() + " " + typeNames[o.typ] + " " + strconv.Itoa(len(o.data)) + "\n"
				if !bytes.HasPrefix(out, []byte(hdr)) {
					t.Fatalf("cat-file header for %s: got %q", o.hash, out[:min(len(out), 80)])
				}
				out = out[len(hdr):]
				if !bytes.Equal(out[:len(o.data)], o.data) || out[len(o.data)] != '\n' {
					t.Fatalf("cat-file content of %s differs", o.hash)
				}
				out = out[len(o.data)+1:]
				mustRead(t, db, o.hash, o.typ, o.data)
			}
			idxs := packFiles(t, dir, "idx")
			if len(idxs) != tc.commits {
				t.Fatalf("%d packs, want %d", len(idxs), tc.commits)
			}
			for _, idx := range idxs {
				git(t, dir, nil, "verify-pack", "-v", idx)
			}
			co := string(git(t, dir, nil, "count-objects", "-v"))
			if !strings.Contains(co, "packs: "+strconv.Itoa(tc.commits)+"\n") || !strings.Contains(co, "\ngarbage: 0\n") {
				t.Fatalf("count-objects -v:\n%s", co)
			}
			log := string(git(t, dir, nil, "log", "--format=%s", "main"))
			if strings.Count(log, "commit ") != tc.commits {
				t.Fatalf("git log:\n%s", log)
			}
		})
	}
}

func TestReadLooseFromGit(t *testing.T) {
	dir := initBare(t)
	db := openDB(t, dir, Options{})
	contents := [][]byte{nil, []byte("hello\n"), bytes.Repeat([]byte("loose object "), 5000)}
	for _, c := range contents {
		// Written after Open: found loose on the miss path.
		h := plumbing.NewHash(strings.TrimSpace(string(git(t, dir, c, "hash-object", "-w", "--stdin"))))
		if h != HashObject(plumbing.BlobObject, c) {
			t.Fatalf("HashObject disagrees with git for %q", c)
		}
		mustRead(t, db, h, plumbing.BlobObject, c)
		if ok, err := db.Has(h); !ok || err != nil {
			t.Fatalf("Has(loose) = %v, %v", ok, err)
		}
	}
	missing := HashObject(plumbing.BlobObject, []byte("never written"))
	if _, _, err := db.Read(missing); !isNotFound(err) {
		t.Fatalf("Read(missing) error = %v, want ErrNotFound", err)
	}
	if ok, err := db.Has(missing); ok || err != nil {
		t.Fatalf("Has(missing) = %v, %v", ok, err)
	}
}
