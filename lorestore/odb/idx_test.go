// Index encoding and decoding, including the large-offset table.

package odb

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func TestIdxRoundTrip(t *testing.T) {
	var entries []idxEntry
	for i := 0; i < 1000; i++ {
		h := plumbing.Hash(sha1.Sum([]byte{byte(i), byte(i >> 8)}))
		off := uint64(12 + i*100)
		if i%3 == 0 {
			off = 1<<31 + uint64(i)<<20 // needs the large-offset table
		}
		entries = append(entries, idxEntry{hash: h, offset: off, crc: uint32(i) * 7})
	}
	want := map[plumbing.Hash]idxEntry{}
	for _, e := range entries {
		want[e.hash] = e
	}
	packSum := sha1.Sum([]byte("pack"))
	var buf bytes.Buffer
	if _, err := writeIdx(&buf, entries, packSum[:]); err != nil {
		t.Fatal(err)
	}
	ix, err := parseIdx("test.idx", buf.Bytes(), true)
	if err != nil {
		t.Fatal(err)
	}
	if ix.n != len(want) || len(ix.large) != 8*334 || !bytes.Equal(ix.packChecksum(), packSum[:]) {
		t.Fatalf("n=%d large=%d", ix.n, len(ix.large)/8)
	}
	for h, e := range want {
		i := ix.find(&h)
		if i < 0 {
			t.Fatalf("%s not found", h)
		}
		off, ok := ix.offset(i)
		if !ok || off != e.offset || ix.crc(i) != e.crc {
			t.Fatalf("%s: offset %d crc %d, want %d %d", h, off, ix.crc(i), e.offset, e.crc)
		}
	}
	missing := plumbing.Hash(sha1.Sum([]byte("missing")))
	if ix.find(&missing) >= 0 {
		t.Fatalf("found a missing name")
	}
	// Duplicates are refused.
	entries = append(entries, entries[0])
	if _, err := writeIdx(&bytes.Buffer{}, entries, packSum[:]); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("duplicate names: %v", err)
	}
}
