// Index encoding and decoding, including the large-offset table.

package odb

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"strings"
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

// TestIdxFindShapes holds the interpolating find to a plain search over
// names spread evenly, bunched in one bucket, sharing their first eight
// bytes, and growing geometrically: every name is found where it lies,
// and the names beside each (one more, one less) only where they exist.
func TestIdxFindShapes(t *testing.T) {
	put := func(hi uint64, rest uint32) plumbing.Hash {
		var h plumbing.Hash
		binary.BigEndian.PutUint64(h[:8], hi)
		binary.BigEndian.PutUint32(h[16:], rest)
		return h
	}
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := []struct {
		name string
		hash func(i int) plumbing.Hash
	}{
		{"even", func(i int) plumbing.Hash {
			return plumbing.Hash(sha1.Sum([]byte{byte(i), byte(i >> 8), byte(i >> 16)}))
		}},
		{"one bucket", func(i int) plumbing.Hash { return put(0x42<<56|rng.Uint64()>>8, 0) }},
		{"one key", func(i int) plumbing.Hash { return put(0x42<<56, uint32(i)*3) }},
		{"geometric", func(i int) plumbing.Hash { return put(0x42<<56|1<<(i%56)|uint64(i/56), uint32(i)) }},
		{"two clumps", func(i int) plumbing.Hash { return put(0x42<<56|uint64(i%2)<<55|uint64(i), 0) }},
	}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			seen := map[plumbing.Hash]bool{}
			var entries []idxEntry
			for i := 0; len(entries) < 20000; i++ {
				h := sh.hash(i)
				if !seen[h] {
					seen[h] = true
					entries = append(entries, idxEntry{hash: h, offset: uint64(12 + i)})
				}
			}
			var buf bytes.Buffer
			if _, err := writeIdx(&buf, entries, make([]byte, 20)); err != nil {
				t.Fatal(err)
			}
			ix, err := parseIdx("test.idx", buf.Bytes(), true)
			if err != nil {
				t.Fatal(err)
			}
			for i := range ix.n {
				h := plumbing.Hash(ix.name(i))
				if got := ix.find(&h); got != i {
					t.Fatalf("name %d (%s) found at %d", i, h, got)
				}
				for _, d := range []int{-1, 1} {
					n := neighbour(h, d)
					want := -1
					if j := i + d; j >= 0 && j < ix.n && plumbing.Hash(ix.name(j)) == n {
						want = j
					}
					if got := ix.find(&n); got != want {
						t.Fatalf("neighbour %s of name %d found at %d", n, i, got)
					}
				}
			}
		})
	}
}

// neighbour is h plus d (±1) as a 160-bit number, wrapping.
func neighbour(h plumbing.Hash, d int) plumbing.Hash {
	for i := len(h) - 1; i >= 0; i-- {
		old := h[i]
		h[i] += byte(d)
		if (d > 0 && h[i] > old) || (d < 0 && h[i] < old) {
			break
		}
	}
	return h
}

// TestIdxFindUnsorted runs the find over an index whose names are out of
// order (a trusted index gone bad): it must end, in range, whatever it
// answers.
func TestIdxFindUnsorted(t *testing.T) {
	var entries []idxEntry
	for i := range 5000 {
		var h plumbing.Hash
		binary.BigEndian.PutUint64(h[:8], 0x42<<56|uint64(i)*0x9E3779B97F4A7C15>>8)
		entries = append(entries, idxEntry{hash: h, offset: uint64(12 + i)})
	}
	var buf bytes.Buffer
	if _, err := writeIdx(&buf, entries, make([]byte, 20)); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	names := data[idxHeaderLen+fanoutLen : idxHeaderLen+fanoutLen+len(entries)*hashLen]
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range len(entries) {
		j := rng.IntN(len(entries))
		var tmp [hashLen]byte
		copy(tmp[:], names[i*hashLen:])
		copy(names[i*hashLen:(i+1)*hashLen], names[j*hashLen:(j+1)*hashLen])
		copy(names[j*hashLen:], tmp[:])
	}
	ix, err := parseIdx("bad.idx", data, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ix.n {
		h := plumbing.Hash(ix.name(i))
		if got := ix.find(&h); got >= ix.n || (got >= 0 && plumbing.Hash(ix.name(got)) != h) {
			t.Fatalf("name %d: find answered %d", i, got)
		}
	}
}

// BenchmarkIdxFind finds names in an index of 4M against a plain
// halving search of the same names (the find before DL-0372).
func BenchmarkIdxFind(b *testing.B) {
	const n = 4 << 20
	entries := make([]idxEntry, n)
	for i := range entries {
		entries[i] = idxEntry{hash: plumbing.Hash(sha1.Sum([]byte{byte(i), byte(i >> 8), byte(i >> 16), byte(i >> 24)})), offset: uint64(12 + i)}
	}
	var buf bytes.Buffer
	if _, err := writeIdx(&buf, entries, make([]byte, 20)); err != nil {
		b.Fatal(err)
	}
	ix, err := parseIdx("bench.idx", buf.Bytes(), false)
	if err != nil {
		b.Fatal(err)
	}
	probe := make([]plumbing.Hash, 1<<16)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range probe {
		probe[i] = plumbing.Hash(ix.name(rng.IntN(n)))
	}
	halve := func(h *plumbing.Hash) int {
		lo, hi := 0, int(binary.BigEndian.Uint32(ix.fanout[int(h[0])*4:]))
		if h[0] > 0 {
			lo = int(binary.BigEndian.Uint32(ix.fanout[(int(h[0])-1)*4:]))
		}
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			switch c := bytes.Compare(ix.name(m), h[:]); {
			case c == 0:
				return m
			case c < 0:
				lo = m + 1
			default:
				hi = m
			}
		}
		return -1
	}
	for _, c := range []struct {
		name string
		find func(*plumbing.Hash) int
	}{{"interpolate", ix.find}, {"halve", halve}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if c.find(&probe[i%len(probe)]) < 0 {
					b.Fatal("not found")
				}
			}
		})
	}
}

// TestParseIdxFanoutMismatch: an index whose names are sorted and whose
// checksum holds, but whose fanout table counts a name under another
// first byte, is corrupt when verified: find would miss that name. Before,
// verification passed it (FuzzParseIdx found such an index, kept as its
// seed bce448652537478d).
func TestParseIdxFanoutMismatch(t *testing.T) {
	entries := []idxEntry{{hash: plumbing.Hash{0x01}, offset: 12}, {hash: plumbing.Hash{0x80}, offset: 40}}
	var buf bytes.Buffer
	sum := sha1.Sum(nil)
	if _, err := writeIdx(&buf, entries, sum[:]); err != nil {
		t.Fatal(err)
	}
	if _, err := parseIdx("good.idx", buf.Bytes(), true); err != nil {
		t.Fatalf("the index as written: %v", err)
	}
	data := bytes.Clone(buf.Bytes())
	// Count both names under first byte 0x00, still monotonic; then seal
	// the index with a checksum that holds.
	for b := 0; b < 256; b++ {
		binary.BigEndian.PutUint32(data[idxHeaderLen+b*4:], 2)
	}
	seal := sha1.Sum(data[:len(data)-hashLen])
	copy(data[len(data)-hashLen:], seal[:])
	_, err := parseIdx("bad.idx", data, true)
	var ce *CorruptError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "fanout") {
		t.Fatalf("parseIdx = %v, want a CorruptError naming the fanout", err)
	}
}
