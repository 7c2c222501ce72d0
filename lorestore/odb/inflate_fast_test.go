// The fast path must give the general decoder's answer: the same data and
// length for every stream it takes, and a refusal for every stream the
// general decoder refuses, damaged or not.

package odb

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	kzlib "github.com/klauspost/compress/zlib"
)

// sameInflate checks that inflate (with the fast path) and inflateGeneral
// agree on z with the given size, and returns whether the fast path took z.
func sameInflate(t *testing.T, z []byte, size uint64) bool {
	t.Helper()
	got, gn, gerr := inflate(z, size)
	want, wn, werr := inflateGeneral(z, size)
	// Refused by both, or by neither. Which error a damaged stream gets
	// from the general decoder (corrupt, or the wrong size) can depend on
	// what its pooled state decoded before, so errors are not compared.
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("size %d: error %v, the general decoder's %v", size, gerr, werr)
	}
	if gerr == nil && (gn != wn || !bytes.Equal(got, want)) {
		t.Fatalf("size %d: %d bytes from %d, the general decoder %d from %d", size, len(got), gn, len(want), wn)
	}
	if len(z) < 2 || size > maxPrealloc {
		return false
	}
	_, ok := inflateInto(make([]byte, size), z[2:])
	return ok
}

// inflateSmallSources is how many small objects TestInflateSmallAgrees
// inflates, inflateCorruptions how many corruptions of each stream
// TestInflateIntoAgrees tries (fewer under the race detector: see
// race_test.go).
var inflateSmallSources, inflateCorruptions = 400, 30

func TestInflateSmallAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	fd := &fastDeflater{}
	var srcs [][]byte
	srcs = append(srcs, nil, []byte("a"), bytes.Repeat([]byte{'z'}, 600), bytes.Repeat([]byte("ab"), 300))
	for i := range inflateSmallSources {
		b := blob(r, r.IntN(smallObject+1))
		switch i % 4 {
		case 0: // JSON-like text with near and far repeats
			for j := 0; j+32 < len(b); j += 32 + r.IntN(200) {
				copy(b[j:j+32], b[r.IntN(j+1):])
			}
		case 1: // incompressible: a stored block
			for j := range b {
				b[j] = byte(r.Uint32())
			}
		}
		srcs = append(srcs, b)
	}
	took := 0
	for _, src := range srcs {
		// The stream the store writes, and the coded one it may have
		// chosen against (an older store holds such streams).
		z := fd.appendFixedZlib(nil, src)
		for _, z := range [][]byte{fd.appendSmallZlib(nil, src), z} {
			if !sameInflate(t, z, uint64(len(src))) {
				t.Fatalf("the fast path declined a %d-byte stream of our own encoder", len(src))
			}
		}
		took++
		// Another encoder's dynamic blocks: the general answer.
		sameInflate(t, kzlibAt(kzlib.BestCompression)(src), uint64(len(src)))
		// Damaged: a flipped bit, a cut, a wrong size, bytes after.
		for range 20 {
			d := bytes.Clone(z)
			d[r.IntN(len(d))] ^= 1 << r.IntN(8)
			sameInflate(t, d, uint64(len(src)))
		}
		sameInflate(t, z[:r.IntN(len(z))], uint64(len(src)))
		sameInflate(t, z, uint64(len(src))+1)
		if len(src) > 0 {
			sameInflate(t, z, uint64(len(src))-1)
		}
		sameInflate(t, append(bytes.Clone(z), 0, 1, 2), uint64(len(src)))
	}
	if took != len(srcs) {
		t.Fatalf("the fast path took %d of %d streams", took, len(srcs))
	}
}

// TestInflateSmallEdges: streams by hand at the edges of the code — an
// overlapping copy, the longest match, a distance just too far back, an
// invalid length symbol, and 258 spelt as 227+31.
func TestInflateSmallEdges(t *testing.T) {
	enc := func(syms func(w *bitWriter)) []byte {
		w := bitWriter{out: []byte{0x78, 0x01}}
		w.put(3, 3)
		syms(&w)
		c := fixedCode[256]
		w.put(c.code, c.n)
		w.flush()
		return w.out
	}
	lit := func(w *bitWriter, b byte) { c := fixedCode[b]; w.put(c.code, c.n) }
	match := func(w *bitWriter, sym int, extra uint32, ne uint8, dcode int, dextra uint32, nde uint8) {
		c := fixedCode[sym]
		w.put(c.code, c.n)
		w.put(extra, ne)
		w.put(uint32(bitsReverse5(dcode)), 5)
		w.put(dextra, nde)
	}
	withSum := func(z []byte, data []byte) []byte {
		return append(z, byte(adlerOf(data)>>24), byte(adlerOf(data)>>16), byte(adlerOf(data)>>8), byte(adlerOf(data)))
	}
	cases := []struct {
		name string
		z    []byte
		data []byte // what it decodes to (nil: refused by both)
		fast bool   // the fast path takes it
	}{
		{"overlapping copy", enc(func(w *bitWriter) { lit(w, 'a'); lit(w, 'b'); match(w, 257+7, 0, 0, 1, 0, 0) }), []byte("abababababab"), true},
		{"longest match", enc(func(w *bitWriter) { lit(w, 'x'); match(w, 285, 0, 0, 0, 0, 0) }), bytes.Repeat([]byte{'x'}, 259), true},
		{"258 as 227+31", enc(func(w *bitWriter) { lit(w, 'x'); match(w, 284, 31, 5, 0, 0, 0) }), bytes.Repeat([]byte{'x'}, 259), false},
		{"too far back", enc(func(w *bitWriter) { lit(w, 'x'); match(w, 257, 0, 0, 1, 0, 0) }), nil, false},
		{"length symbol 286", enc(func(w *bitWriter) { lit(w, 'x'); c := fixedCode[286]; w.put(c.code, c.n) }), nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			z := withSum(c.z, c.data)
			fast := sameInflate(t, z, uint64(len(c.data)))
			got, _, err := inflate(z, uint64(len(c.data)))
			if (err == nil) != (c.data != nil) || !bytes.Equal(got, c.data) || fast != c.fast {
				t.Fatalf("got %q, %v; fast path %v; want %q, fast %v", got, err, fast, c.data, c.fast)
			}
		})
	}
}

// encoders compress with every encoder and level the stores this package
// reads are written by: git's (zlib's levels), Go's, klauspost's, and
// this package's own, large trees included.
var encoders = []struct {
	name string
	z    func(src []byte) []byte
}{
	{"klauspost huffman-only", kzlibAt(kzlib.HuffmanOnly)},
	{"klauspost best-speed", kzlibAt(kzlib.BestSpeed)},
	{"klauspost default", kzlibAt(kzlib.DefaultCompression)},
	{"klauspost best", kzlibAt(kzlib.BestCompression)},
	{"go stored", zlibAt(zlib.NoCompression)},
	{"go best-speed", zlibAt(zlib.BestSpeed)},
	{"go best", zlibAt(zlib.BestCompression)},
	{"our tree", ourTreeZlib},
}

// ourTreeZlib is how this package compresses a large tree.
func ourTreeZlib(src []byte) []byte {
	d := deflaters.Get().(*deflater)
	defer deflaters.Put(d)
	return appendDeflate(nil, d, plumbing.TreeObject, src)
}

func kzlibAt(level int) func([]byte) []byte { return zlibWith(kzlib.NewWriterLevel, level) }

func zlibAt(level int) func([]byte) []byte { return zlibWith(zlib.NewWriterLevel, level) }

// zlibWith compresses with the writers open makes, at level.
func zlibWith[W io.WriteCloser](open func(io.Writer, int) (W, error), level int) func([]byte) []byte {
	return func(src []byte) []byte {
		var buf bytes.Buffer
		zw, _ := open(&buf, level)
		zw.Write(src)
		zw.Close()
		return buf.Bytes()
	}
}

// treeLike is n bytes shaped as a large shard tree: mode, hex name, hash.
func treeLike(r *rand.Rand, n int) []byte {
	var b []byte
	for len(b) < n {
		var id [32]byte
		var h [20]byte
		for i := range id {
			id[i] = byte(r.Uint32())
		}
		for i := range h {
			h[i] = byte(r.Uint32())
		}
		b = fmt.Appendf(b, "100644 %x.json\x00", id)
		b = append(b, h[:]...)
	}
	return b[:n]
}

// TestInflateIntoAgrees holds the fast path to the general decoder on
// dynamic-code, stored and multi-block streams of every encoder, whole and
// damaged, and requires it to take every whole stream.
func TestInflateIntoAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	var srcs [][]byte
	for _, n := range []int{0, 1, 100, 5000, 70000, 300000} {
		srcs = append(srcs, treeLike(r, n), blob(r, n), bytes.Repeat([]byte{'q'}, n))
	}
	for _, enc := range encoders {
		for _, src := range srcs {
			z := enc.z(src)
			if !sameInflate(t, z, uint64(len(src))) {
				t.Fatalf("%s: the fast path declined a whole %d-byte stream", enc.name, len(src))
			}
			for range inflateCorruptions {
				d := bytes.Clone(z)
				d[r.IntN(len(d))] ^= 1 << r.IntN(8)
				sameInflate(t, d, uint64(len(src)))
			}
			if len(z) > 0 {
				sameInflate(t, z[:r.IntN(len(z))], uint64(len(src)))
			}
			sameInflate(t, z, uint64(len(src))+1)
		}
	}
}

// TestHuffTableCodes: the codes the general decoder refuses as incomplete
// or over-subscribed, the fast path's tables refuse too; a single
// distance code of one bit, and none, it builds.
func TestHuffTableCodes(t *testing.T) {
	cases := []struct {
		name    string
		lengths []uint8
		single  bool
		want    bool
	}{
		{"complete", []uint8{1, 2, 3, 3}, false, true},
		{"over-subscribed", []uint8{1, 1, 2}, false, false},
		{"incomplete", []uint8{1, 2, 0, 3}, false, false},
		{"one code of one bit", []uint8{0, 1, 0}, true, true},
		{"one code of one bit, not for distances", []uint8{0, 1, 0}, false, false},
		{"one code of two bits", []uint8{0, 2}, true, false},
		{"none", []uint8{0, 0}, true, true},
		{"deep codes", append(bytes.Repeat([]uint8{15}, 2), 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1), false, true},
	}
	for _, c := range cases {
		var h huffTable
		if got := h.build(c.lengths, 4, c.single, func(s int) uint32 { return ent(entLit, s, 0) }); got != c.want {
			t.Errorf("%s: build = %v, want %v", c.name, got, c.want)
		}
	}
}

func bitsReverse5(c int) int {
	r := 0
	for i := range 5 {
		r |= (c >> i & 1) << (4 - i)
	}
	return r
}

func adlerOf(b []byte) uint32 {
	a, s := uint32(1), uint32(0)
	for _, x := range b {
		a = (a + uint32(x)) % 65521
		s = (s + a) % 65521
	}
	return s<<16 | a
}

func FuzzInflate(f *testing.F) {
	fd := &fastDeflater{}
	for _, s := range []string{"", "a", "hello hello hello hello", `{"entity":"p-1","key":"mentor","value":"p-3"}`} {
		f.Add(fd.appendSmallZlib(nil, []byte(s)), uint16(len(s)))
		f.Add(fd.appendFixedZlib(nil, []byte(s)), uint16(len(s)))
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, enc := range encoders {
		src := treeLike(r, 700)
		f.Add(enc.z(src), uint16(len(src)))
	}
	f.Fuzz(func(t *testing.T, z []byte, size uint16) {
		sameInflate(t, z, uint64(size))
	})
}

// BenchmarkInflateSmall inflates 150-byte JSON-like objects coded with
// the fixed Huffman codes (as an older store holds them) by the fast path
// and by the general decoder, and stored (as the store writes them now).
func BenchmarkInflateSmall(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	fd := &fastDeflater{}
	var zs, stored [][]byte
	var sizes []uint64
	for i := range 1024 {
		src := []byte(`{"entity":"p-` + string(rune('0'+i%10)) + `","key":"mentor","provenance":{"kind":"proposed","origin":"bench"},"type":"fact","value":"`)
		src = append(src, blob(r, 40)...)
		src = append(src, `"}`...)
		zs = append(zs, fd.appendFixedZlib(nil, src))
		stored = append(stored, fd.appendSmallZlib(nil, src))
		sizes = append(sizes, uint64(len(src)))
	}
	for _, c := range []struct {
		name string
		zs   [][]byte
		f    func([]byte, uint64) ([]byte, int, error)
	}{{"fast", zs, inflate}, {"general", zs, inflateGeneral}, {"stored", stored, inflate}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, _, err := c.f(c.zs[i%len(c.zs)], sizes[i%len(c.zs)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInflateTree inflates a 4 MB shard tree (a 10M-object scope has
// 256 such) as this package writes it now (stored blocks) and as it did
// before (Huffman codes only, which older stores hold), by the fast path
// and by the general decoder.
func BenchmarkInflateTree(b *testing.B) {
	src := treeLike(rand.New(rand.NewPCG(7, 8)), 4<<20)
	coded := kzlibAt(kzlib.HuffmanOnly)(src)
	stored := ourTreeZlib(src)
	for _, c := range []struct {
		name string
		z    []byte
		f    func([]byte, uint64) ([]byte, int, error)
	}{{"stored", stored, inflate}, {"coded", coded, inflate}, {"coded-general", coded, inflateGeneral}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, _, err := c.f(c.z, uint64(len(src))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
