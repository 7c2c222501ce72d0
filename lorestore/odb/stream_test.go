// A big batch streams into its pack as objects are added: the heap holds
// names, offsets and CRCs, not the objects (issue 8 item 7).

package odb

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// tempFiles lists our temporary pack files in objects/ and objects/pack/
// that hold anything (a writer keeps an empty spare ready in objects/).
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, d := range []string{"objects", "objects/pack"} {
		es, err := os.ReadDir(filepath.Join(dir, d))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			info, err := e.Info()
			if err == nil && strings.HasPrefix(e.Name(), tmpPackPrefix) && info.Size() > 0 {
				out = append(out, e.Name())
			}
		}
	}
	return out
}

func TestBatchStreams(t *testing.T) {
	tests := []struct {
		name    string
		objects int
		size    int
		// heapMB bounds what the open batch may hold; 0: not checked.
		heapMB uint64
	}{
		{"one-chunk", 20, 300, 0},
		{"a-few-chunks", 3000, 300, 0},
		{"48MB", 24_000, 2048, 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := initBare(t)
			db := openDB(t, dir, Options{AutoPackLimit: -1})
			r := rand.New(rand.NewPCG(7, uint64(tc.objects)))
			base := liveHeap()
			b := db.NewBatch()
			var hs []plumbing.Hash
			var sample [][]byte
			for i := 0; i < tc.objects; i++ {
				data := blob(r, tc.size)
				hs = append(hs, b.Add(plumbing.BlobObject, data))
				if i%997 == 0 {
					sample = append(sample, data)
				}
			}
			b.Add(plumbing.BlobObject, []byte("again")) // a repeat is stored once
			b.Add(plumbing.BlobObject, []byte("again"))
			if held := liveHeap(); tc.heapMB > 0 && held > base+tc.heapMB<<20 {
				t.Fatalf("an open batch of %d MB holds %d MB of heap, want at most %d MB",
					tc.objects*tc.size>>20, (held-base)>>20, tc.heapMB)
			}
			runtime.KeepAlive(b)
			if b.Len() != tc.objects+1 {
				t.Fatalf("Len = %d, want %d", b.Len(), tc.objects+1)
			}
			if err := b.Write(); err != nil {
				t.Fatal(err)
			}
			for i, data := range sample {
				mustRead(t, db, hs[i*997], plumbing.BlobObject, data)
			}
			if ts := tempFiles(t, dir); len(ts) != 0 {
				t.Fatalf("temporary files left: %v", ts)
			}
			if n := len(packFiles(t, dir, "pack")); n != 1 {
				t.Fatalf("%d packs, want 1", n)
			}
			out := string(git(t, dir, nil, "count-objects", "-v"))
			if !strings.Contains(out, "in-pack: "+strconv.Itoa(tc.objects+1)+"\n") {
				t.Fatalf("git count-objects:\n%s", out)
			}
			fsckClean(t, dir)
		})
	}
}

// TestBatchAbort: a batch dropped before Write leaves no file behind, and
// what it held is not stored.
func TestBatchAbort(t *testing.T) {
	for _, n := range []int{1, 5000} {
		dir := initBare(t)
		db := openDB(t, dir, Options{})
		b := db.NewBatch()
		var h plumbing.Hash
		for i := 0; i < n; i++ {
			h = b.Add(plumbing.BlobObject, []byte(strings.Repeat("x", 200)+strconv.Itoa(i)))
		}
		b.Abort()
		b.Abort() // again: no-op
		if ts := tempFiles(t, dir); len(ts) != 0 {
			t.Fatalf("n=%d: temporary files left: %v", n, ts)
		}
		if hasObj(t, db, h) {
			t.Fatalf("n=%d: an aborted object is stored", n)
		}
		if err := b.Write(); err != nil { // an aborted batch is empty
			t.Fatal(err)
		}
		if got := len(packFiles(t, dir, "pack")); got != 0 {
			t.Fatalf("n=%d: %d packs after an aborted batch", n, got)
		}
	}
}
