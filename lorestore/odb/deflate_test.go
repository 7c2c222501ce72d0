// The small-object zlib encoder must produce streams that compress/zlib
// (and, in the git tests, real git) inflate to the input.

package odb

import (
	"bytes"
	"compress/zlib"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func checkRoundTrip(t *testing.T, f *fastDeflater, src []byte) {
	t.Helper()
	checkRoundTripOf(t, f.appendSmallZlib, src)
	checkRoundTripOf(t, f.appendFixedZlib, src)
}

func checkRoundTripOf(t *testing.T, appendZlib func(dst, src []byte) []byte, src []byte) {
	t.Helper()
	z := appendZlib([]byte("prefix"), src)
	if !bytes.HasPrefix(z, []byte("prefix")) {
		t.Fatalf("dst prefix lost")
	}
	zr, err := zlib.NewReader(bytes.NewReader(z[6:]))
	if err != nil {
		t.Fatalf("zlib header: %v", err)
	}
	got, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(got, src) {
		t.Fatalf("round trip of %d bytes: err %v, equal %v", len(src), err, bytes.Equal(got, src))
	}
	// And through our own inflate, which checks the exact stream length.
	got, n, err := inflate(z[6:], uint64(len(src)))
	if err != nil || n != len(z)-6 || !bytes.Equal(got, src) {
		t.Fatalf("inflate: %v, consumed %d of %d", err, n, len(z)-6)
	}
}

func TestSmallZlibRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	f := &fastDeflater{}
	cases := [][]byte{
		nil, {0}, []byte("a"), []byte("abcd"), []byte("abcdabcdabcd"),
		bytes.Repeat([]byte{'z'}, 300),           // long runs, max-length matches
		bytes.Repeat([]byte("0123456789"), 1638), // near smallObject
		make([]byte, smallObject),
	}
	for i := 0; i < 300; i++ {
		n := r.IntN(smallObject + 1)
		b := blob(r, n)
		if i%3 == 0 { // repetitive text with far matches
			for j := 0; j+64 < len(b); j += 64 + r.IntN(4000) {
				copy(b[j:j+64], b[r.IntN(j+1):])
			}
		}
		if i%5 == 0 {
			for j := range b {
				b[j] = byte(r.Uint32())
			}
		}
		cases = append(cases, b)
	}
	for _, c := range cases {
		checkRoundTrip(t, f, c)
	}
}

func FuzzSmallZlib(f *testing.F) {
	f.Add([]byte("hello hello hello"))
	f.Add(bytes.Repeat([]byte{1, 2, 3}, 200))
	fd := &fastDeflater{}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > smallObject {
			src = src[:smallObject]
		}
		checkRoundTrip(t, fd, src)
	})
}

// TestAppendDeflateRoundTrip covers both sides of smallObject and of a
// stored block's most bytes, for trees (stored blocks) and blobs.
func TestAppendDeflateRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	d := deflaters.Get().(*deflater)
	defer deflaters.Put(d)
	for _, size := range []int{0, 1, smallObject - 1, smallObject, smallObject + 1, 37000,
		storedBlockMax - 1, storedBlockMax, storedBlockMax + 1, 2 * storedBlockMax, 200000} {
		for _, typ := range []plumbing.ObjectType{plumbing.BlobObject, plumbing.TreeObject} {
			src := make([]byte, size)
			for i := range src {
				if i%3 == 0 {
					src[i] = byte(r.IntN(256))
				} else {
					src[i] = "0123456789abcdef"[r.IntN(16)]
				}
			}
			z := appendDeflate([]byte("prefix"), d, typ, src)
			if string(z[:6]) != "prefix" {
				t.Fatalf("size %d %v: dst prefix clobbered", size, typ)
			}
			out, n, err := inflate(z[6:], uint64(size))
			if err != nil || n != len(z)-6 || !bytes.Equal(out, src) {
				t.Fatalf("size %d %v: round trip failed: n=%d/%d err=%v", size, typ, n, len(z)-6, err)
			}
		}
	}
}

// TestTreesStored: a tree of any size is written as stored blocks, each
// but the last full, the last final, which compress/zlib and this
// package's inflate read back (git reads them in the git tests), and
// which cost the stored bytes and nothing more than their headers.
func TestTreesStored(t *testing.T) {
	d := deflaters.Get().(*deflater)
	defer deflaters.Put(d)
	r := rand.New(rand.NewPCG(9, 9))
	for _, size := range []int{0, 1, storedBlockMax - 1, storedBlockMax, storedBlockMax + 1,
		3 * storedBlockMax, 3*storedBlockMax + 17, 1 << 20} {
		src := treeLike(r, size)
		z := appendDeflate(nil, d, plumbing.TreeObject, src)
		blocks := max(1, (size+storedBlockMax-1)/storedBlockMax)
		if want := 2 + 5*blocks + size + 4; len(z) != want {
			t.Fatalf("tree of %d bytes: %d bytes of zlib, want %d (stored blocks)", size, len(z), want)
		}
		at := 2
		for b := range blocks {
			n := min(storedBlockMax, size-b*storedBlockMax)
			final := byte(0)
			if b == blocks-1 {
				final = 1
			}
			if z[at] != final || int(z[at+1])|int(z[at+2])<<8 != n {
				t.Fatalf("tree of %d bytes: block %d header % x, want BFINAL %d, %d bytes", size, b, z[at:at+5], final, n)
			}
			at += 5 + n
		}
		checkRoundTripOf(t, func(dst, src []byte) []byte { return appendDeflate(dst, d, plumbing.TreeObject, src) }, src)
		if got, _, err := inflateGeneral(z, uint64(size)); err != nil || !bytes.Equal(got, src) {
			t.Fatalf("tree of %d bytes: the general decoder: %v", size, err)
		}
	}
}

// TestSmallZlibStoresWhatCodesBarelyShorten: a lore object of a few
// hundred bytes is written as a stored block, which reads back as a copy;
// text the fixed codes shorten by a quarter or more is written coded,
// from storeBelow bytes on (below it, even text that repeats is stored:
// the codes are not tried); and the rule holds at every size between.
func TestSmallZlibStoresWhatCodesBarelyShorten(t *testing.T) {
	const (
		stored = 0 // BTYPE, bits 1-2 of the first byte after the zlib header
		fixed  = 1
	)
	btype := func(z []byte) byte { return z[2] >> 1 & 3 }
	f := &fastDeflater{}
	fact := []byte(`{"entity":"p-000123","key":"mentor","provenance":{"kind":"proposed","origin":"bench"},"type":"fact","value":"p-004567"}`)
	doc := bytes.Repeat([]byte("The river runs east of the citadel, and the citadel stands on the river. "), 30)
	for _, c := range []struct {
		name string
		src  []byte
		want byte
	}{
		{"a fact", fact, stored},
		{"a document", doc, fixed},
		{"a repeating value under storeBelow", doc[:storeBelow-1], stored},
		{"a repeating value of storeBelow bytes", doc[:storeBelow], fixed},
	} {
		if got := btype(f.appendSmallZlib(nil, c.src)); got != c.want {
			t.Errorf("%s of %d bytes: block type %d, want %d", c.name, len(c.src), got, c.want)
		}
	}
	r := rand.New(rand.NewPCG(9, 9))
	for range 500 {
		src := blob(r, 1+r.IntN(smallObject))
		coded := len(f.appendFixedZlib(nil, src))
		want := byte(fixed)
		if len(src) < storeBelow || 4*coded > 3*(len(src)+storedOverhead) || btype(f.appendFixedZlib(nil, src)) == stored {
			want = stored
		}
		z := f.appendSmallZlib(nil, src)
		if got := btype(z); got != want {
			t.Fatalf("%d bytes coded in %d: block type %d, want %d", len(src), coded, got, want)
		}
		if want == stored && len(z) != len(src)+storedOverhead {
			t.Fatalf("stored %d bytes in %d, want %d", len(src), len(z), len(src)+storedOverhead)
		}
	}
}
