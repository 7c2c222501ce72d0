// Pooled zlib readers and writers: creating a flate decompressor or
// compressor costs tens of kilobytes, so every (de)compression reuses one.

package odb

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"hash/adler32"
	"io"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	kflate "github.com/klauspost/compress/flate"
	kzlib "github.com/klauspost/compress/zlib"
)

// compressLevel is the zlib level for objects larger than smallObject
// (smaller ones use appendSmallZlib). BenchmarkCompressLevels: BestSpeed
// is 2-3x faster than the default level for a ratio within 1%.
const compressLevel = kzlib.BestSpeed

// emptyZlib is a valid zlib stream of no data, used to prime pooled readers
// (what zlib.NewWriter writes when closed at once; spelled out because
// making that writer costs every process 800 KB at start-up).
var emptyZlib = []byte{0x78, 0x9c, 0x01, 0x00, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01}

type inflater struct {
	src bytes.Reader
	zr  io.ReadCloser // zlib, for loose objects (header inside the stream)
	fr  io.ReadCloser // raw deflate, for pack entries (zlib framing by hand;
	// klauspost's decoder: ~1.4x the standard one's speed on our trees)
	one [1]byte
}

var inflaters = sync.Pool{New: func() any {
	f := &inflater{}
	f.src.Reset(emptyZlib)
	zr, err := zlib.NewReader(&f.src)
	if err != nil {
		panic("odb: priming zlib reader: " + err.Error())
	}
	f.zr = zr
	f.fr = kflate.NewReader(&f.src)
	return f
}}

var (
	errZlibSize   = errors.New("inflated size differs from the recorded size")
	errZlibHeader = errors.New("bad zlib header")
	errZlibSum    = errors.New("zlib checksum mismatch")
)

// inflate decompresses the zlib stream at the start of src, which must
// expand to exactly size bytes, and returns the data and the number of
// compressed bytes consumed (including the adler32 trailer). The zlib
// framing is handled here rather than by compress/zlib, which allocates a
// new checksum state per stream.
func inflate(src []byte, size uint64) ([]byte, int, error) {
	return inflateIn(src, size, nil)
}

// inflateIn is inflate with the output taken from arena a, when not nil.
func inflateIn(src []byte, size uint64, a *Arena) ([]byte, int, error) {
	if err := zlibHeader(src, size); err != nil {
		return nil, 0, err
	}
	if size <= maxPrealloc {
		var out []byte
		if a != nil {
			out = a.take(size) // inflateInto writes all of it, or fails
		} else {
			out = make([]byte, size)
		}
		n, ok := inflateInto(out, src[2:])
		if !ok {
			return inflateGeneral(src, size)
		}
		end := 2 + n
		if end+4 > len(src) || binary.BigEndian.Uint32(src[end:]) != adler32.Checksum(out) {
			return nil, 0, errZlibSum
		}
		return out, end + 4, nil
	}
	return inflateGeneral(src, size)
}

// zlibHeader checks the zlib header at the start of src, and size against
// what src could hold.
func zlibHeader(src []byte, size uint64) error {
	// deflate expands at most ~1032:1; reject absurd sizes before allocating.
	if len(src) < 6 || size > uint64(len(src))*1100+64 {
		return errZlibSize
	}
	cmf, flg := src[0], src[1]
	if cmf&0x0f != 8 || cmf>>4 > 7 || flg&0x20 != 0 || (uint16(cmf)<<8|uint16(flg))%31 != 0 {
		return errZlibHeader
	}
	return nil
}

// inflateGeneral is inflate by the general decoder alone, for every
// stream the fast path does not take.
func inflateGeneral(src []byte, size uint64) ([]byte, int, error) {
	if err := zlibHeader(src, size); err != nil {
		return nil, 0, err
	}
	f := inflaters.Get().(*inflater)
	defer inflaters.Put(f)
	f.src.Reset(src[2:])
	if err := f.fr.(kflate.Resetter).Reset(&f.src, nil); err != nil {
		return nil, 0, err
	}
	out := make([]byte, min(size, maxPrealloc))
	n, err := io.ReadFull(f.fr, out)
	for err == nil && uint64(len(out)) < size {
		// Large object: grow only as data actually arrives.
		grow := min(size-uint64(len(out)), uint64(len(out)))
		out = append(out, make([]byte, grow)...)
		var m int
		m, err = io.ReadFull(f.fr, out[n:])
		n += m
	}
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, 0, errZlibSize
		}
		return nil, 0, err
	}
	// The deflate stream must end exactly here.
	if m, err := f.fr.Read(f.one[:]); m != 0 || err != io.EOF {
		if err != nil && err != io.EOF {
			return nil, 0, err
		}
		return nil, 0, errZlibSize
	}
	end := len(src) - f.src.Len()
	if end+4 > len(src) {
		return nil, 0, errZlibSum
	}
	if binary.BigEndian.Uint32(src[end:]) != adler32.Checksum(out) {
		return nil, 0, errZlibSum
	}
	return out, end + 4, nil
}

type deflater struct {
	out  sliceWriter
	zw   *kzlib.Writer // BestSpeed, for large blobs and commits
	fast fastDeflater
}

var deflaters = sync.Pool{New: func() any {
	d := &deflater{}
	zw, err := kzlib.NewWriterLevel(&d.out, compressLevel)
	if err != nil {
		panic("odb: zlib writer: " + err.Error())
	}
	d.zw = zw
	return d
}}

// appendDeflate appends the zlib compression of an object of type t to
// dst: a tree in stored blocks; other small objects through the
// fixed-Huffman encoder (no per-stream table building), larger ones
// through github.com/klauspost/compress at its fastest level. A tree is
// hex names and binary hashes, which codes shorten by about a quarter
// (Huffman codes alone kept 0.72 of a 37 KB shard tree), and listing a
// 10M-object scope inflates a gigabyte of shard trees: coded, that cost
// more CPU than anything else the listing does (DL-0013).
func appendDeflate(dst []byte, d *deflater, t plumbing.ObjectType, data []byte) []byte {
	if t == plumbing.TreeObject {
		return appendStoredZlib(dst, data, adler32.Checksum(data))
	}
	if len(data) <= smallObject {
		return d.fast.appendSmallZlib(dst, data)
	}
	zw := d.zw
	d.out.b = dst
	zw.Reset(&d.out)
	zw.Write(data)
	zw.Close()
	dst = d.out.b
	d.out.b = nil
	return dst
}

// sliceWriter is an io.Writer appending to a byte slice.
type sliceWriter struct{ b []byte }

func (w *sliceWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}
