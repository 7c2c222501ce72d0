// Pooled zlib readers and writers: creating a flate decompressor or
// compressor costs tens of kilobytes, so every (de)compression reuses one.

package odb

import (
	"bytes"
	"compress/zlib"
	"errors"
	"io"
	"sync"
)

// compressLevel is the zlib level of everything this package writes.
// BestSpeed was measured (BenchmarkCompressLevels) to be several times
// faster than the default level on small objects, whose sizes barely differ;
// it also avoids the 512 KiB hash-table reset that levels 2-9 pay per object.
const compressLevel = zlib.BestSpeed

// emptyZlib is a valid zlib stream of no data, used to prime pooled readers.
var emptyZlib = func() []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Close()
	return b.Bytes()
}()

type inflater struct {
	src bytes.Reader
	zr  io.ReadCloser
}

var inflaters = sync.Pool{New: func() any {
	f := &inflater{}
	f.src.Reset(emptyZlib)
	zr, err := zlib.NewReader(&f.src)
	if err != nil {
		panic("odb: priming zlib reader: " + err.Error())
	}
	f.zr = zr
	return f
}}

var errZlibSize = errors.New("inflated size differs from the recorded size")

// inflate decompresses the zlib stream at the start of src, which must
// expand to exactly size bytes, and returns the data and the number of
// compressed bytes consumed (including the adler32 trailer).
func inflate(src []byte, size uint64) ([]byte, int, error) {
	// deflate expands at most ~1032:1; reject absurd sizes before allocating.
	if size > uint64(len(src))*1100+64 {
		return nil, 0, errZlibSize
	}
	f := inflaters.Get().(*inflater)
	defer inflaters.Put(f)
	f.src.Reset(src)
	if err := f.zr.(zlib.Resetter).Reset(&f.src, nil); err != nil {
		return nil, 0, err
	}
	out := make([]byte, min(size, maxPrealloc))
	n, err := io.ReadFull(f.zr, out)
	for err == nil && uint64(len(out)) < size {
		// Large object: grow only as data actually arrives.
		grow := min(size-uint64(len(out)), uint64(len(out)))
		out = append(out, make([]byte, grow)...)
		var m int
		m, err = io.ReadFull(f.zr, out[n:])
		n += m
	}
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, 0, errZlibSize
		}
		return nil, 0, err
	}
	// The stream must end exactly here; reading on verifies the checksum.
	var one [1]byte
	if m, err := f.zr.Read(one[:]); m != 0 || err != io.EOF {
		if err != nil && err != io.EOF {
			return nil, 0, err
		}
		return nil, 0, errZlibSize
	}
	return out, len(src) - f.src.Len(), nil
}

type deflater struct {
	out sliceWriter
	zw  *zlib.Writer
}

var deflaters = sync.Pool{New: func() any {
	d := &deflater{}
	zw, err := zlib.NewWriterLevel(&d.out, compressLevel)
	if err != nil {
		panic("odb: zlib writer: " + err.Error())
	}
	d.zw = zw
	return d
}}

// appendDeflate appends the zlib compression of data to dst.
func appendDeflate(dst []byte, d *deflater, data []byte) []byte {
	d.out.b = dst
	d.zw.Reset(&d.out)
	d.zw.Write(data)
	d.zw.Close()
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
