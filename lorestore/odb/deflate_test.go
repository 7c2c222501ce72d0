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
	z := f.appendSmallZlib([]byte("prefix"), src)
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

// TestAppendDeflateRoundTrip covers both sides of smallObject and both
// large encoders (trees: Huffman only; others: BestSpeed).
func TestAppendDeflateRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	d := deflaters.Get().(*deflater)
	defer deflaters.Put(d)
	for _, size := range []int{0, 1, smallObject - 1, smallObject, smallObject + 1, 37000, 200000} {
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
