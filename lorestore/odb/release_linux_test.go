package odb

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestReleasePages reads every object of a pack, so that its mapping is
// resident, then releases the pages: the mapping's resident size (from
// /proc/self/smaps) falls to almost nothing, and every object still reads
// back whole.
func TestReleasePages(t *testing.T) {
	dir := initBare(t)
	db := openDB(t, dir, Options{})
	hs, blobs := writeRandomBlobs(t, db, 3)
	readAll := func() {
		for i, h := range hs {
			mustRead(t, db, h, plumbing.BlobObject, blobs[i])
		}
	}
	readAll()
	s, err := db.acquire()
	if err != nil {
		t.Fatal(err)
	}
	var biggest *pack
	for _, p := range s.packs {
		if biggest == nil || len(p.data) > len(biggest.data) {
			biggest = p
		}
	}
	s.release()
	if biggest == nil || biggest.heap {
		t.Fatal("no mapped pack after a batch write")
	}
	before := mappingRSS(t, biggest.data)
	if before < int64(len(biggest.data))/2 {
		t.Fatalf("after reading every object, %d of the pack's %d bytes are resident", before, len(biggest.data))
	}
	idxBefore := mappingRSS(t, biggest.idxMap)
	if idxBefore < int64(len(biggest.idxMap))/2 {
		t.Fatalf("after reading every object, %d of the index's %d bytes are resident", idxBefore, len(biggest.idxMap))
	}
	// A long read gives back the packs' pages as it goes, not the
	// indexes' it reads on.
	db.ReleasePackPages()
	if after := mappingRSS(t, biggest.data); after > int64(len(biggest.data))/10 {
		t.Fatalf("after ReleasePackPages, %d of %d bytes are still resident (%d before)", after, len(biggest.data), before)
	}
	if after := mappingRSS(t, biggest.idxMap); after < idxBefore {
		t.Fatalf("ReleasePackPages dropped index pages: %d of %d bytes resident, %d before", after, len(biggest.idxMap), idxBefore)
	}
	readAll()
	db.ReleasePages()
	for _, m := range [][]byte{biggest.data, biggest.idxMap} {
		if after := mappingRSS(t, m); after > int64(len(m))/10 {
			t.Fatalf("after ReleasePages, %d of %d bytes are still resident", after, len(m))
		}
	}
	readAll() // faulted back in, the same bytes
}

// mappingRSS is the resident size of the mapping that starts at m's first
// byte, from /proc/self/smaps.
func mappingRSS(t *testing.T, m []byte) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start := fmt.Sprintf("%x-", uintptr(unsafe.Pointer(unsafe.SliceData(m))))
	sc := bufio.NewScanner(f)
	found := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, start) {
			found = true
			continue
		}
		if found && strings.HasPrefix(line, "Rss:") {
			kb, err := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no mapping at %s in /proc/self/smaps", start)
	return 0
}

// TestViewReleaseBetween gives back the first half of a resident pack,
// then the rest: the mapping's resident size follows, and every object
// still reads back whole.
func TestViewReleaseBetween(t *testing.T) {
	dir := initBare(t)
	db := openDB(t, dir, Options{})
	hs, blobs := writeRandomBlobs(t, db, 9)
	db.Close()
	db = openDB(t, dir, Options{}) // mapped from the file, not held from the write
	v, err := db.View()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	p := v.s.packs[0]
	for i, h := range hs {
		mustRead(t, db, h, plumbing.BlobObject, blobs[i])
	}
	size := int64(len(p.data))
	if rss := mappingRSS(t, p.data); rss < size*9/10 {
		t.Fatalf("after reading every object, %d of the pack's %d bytes are resident", rss, size)
	}
	half := Loc(size / 2)
	v.ReleaseBetween(0, half)
	if rss := mappingRSS(t, p.data); rss < size*4/10 || rss > size*6/10 {
		t.Fatalf("after releasing the first half, %d of %d bytes are resident", rss, size)
	}
	v.ReleaseBetween(half, Loc(size))
	if rss := mappingRSS(t, p.data); rss > size/10 {
		t.Fatalf("after releasing the rest, %d of %d bytes are resident", rss, size)
	}
	for i, h := range hs {
		mustRead(t, db, h, plumbing.BlobObject, blobs[i])
	}
}

// writeRandomBlobs writes 4000 random blobs of 1–2 KB to db in one pack,
// about 6 MB of it and little compressible, from the given seed, and
// returns their names and bytes.
func writeRandomBlobs(t *testing.T, db *DB, seed uint64) ([]plumbing.Hash, [][]byte) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed+1))
	b := db.NewBatch()
	var hs []plumbing.Hash
	var blobs [][]byte
	for range 4000 {
		data := blob(r, 1024+r.IntN(1024))
		hs = append(hs, b.Add(plumbing.BlobObject, data))
		blobs = append(blobs, data)
	}
	if err := b.Write(); err != nil {
		t.Fatal(err)
	}
	return hs, blobs
}
