// This file holds the byte codec of snapshots (snapshot.go): a writer that
// appends uvarints, strings and little-endian columns, and a reader that
// checks every length against what is left, so that bad bytes make an
// error, never a panic or a huge allocation.

package datalog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/deloreis/deloreis/internal/hugemem"
)

// snapWriter appends a snapshot to w through a buffer.
type snapWriter struct {
	w   io.Writer
	buf []byte
	err error
}

const snapFlush = 1 << 16

func (s *snapWriter) flush() {
	if s.err == nil && len(s.buf) > 0 {
		_, s.err = s.w.Write(s.buf)
	}
	s.buf = s.buf[:0]
}

func (s *snapWriter) room() {
	if len(s.buf) >= snapFlush {
		s.flush()
	}
}

func (s *snapWriter) uv(x uint64) {
	s.buf = binary.AppendUvarint(s.buf, x)
	s.room()
}

func (s *snapWriter) n(x int) { s.uv(uint64(x)) }

func (s *snapWriter) flag(b bool) {
	if b {
		s.uv(1)
	} else {
		s.uv(0)
	}
}

func (s *snapWriter) str(x string) {
	s.n(len(x))
	if len(x) > snapFlush {
		s.flush()
		if s.err == nil {
			_, s.err = io.WriteString(s.w, x)
		}
		return
	}
	s.buf = append(s.buf, x...)
	s.room()
}

func (s *snapWriter) u32(x uint32) {
	s.buf = binary.LittleEndian.AppendUint32(s.buf, x)
	s.room()
}

func (s *snapWriter) u64(x uint64) {
	s.buf = binary.LittleEndian.AppendUint64(s.buf, x)
	s.room()
}

// u32s writes a column of uint32, a buffer's worth at a time.
func (s *snapWriter) u32s(xs []uint32) {
	for len(xs) > 0 {
		k := min(len(xs), snapFlush/4)
		for _, x := range xs[:k] {
			s.buf = binary.LittleEndian.AppendUint32(s.buf, x)
		}
		xs = xs[k:]
		s.room()
	}
}

// u64s writes a column of uint64, a buffer's worth at a time.
func (s *snapWriter) u64s(xs []uint64) {
	for len(xs) > 0 {
		k := min(len(xs), snapFlush/8)
		for _, x := range xs[:k] {
			s.buf = binary.LittleEndian.AppendUint64(s.buf, x)
		}
		xs = xs[k:]
		s.room()
	}
}

// errSnapshot is the cause of every refusal of snapshot bytes.
var errSnapshot = errors.New("datalog: snapshot refused")

// snapReader reads a snapshot; the first error sticks and every read after
// it returns zero values.
type snapReader struct {
	b   []byte
	err error
}

func (r *snapReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", errSnapshot, fmt.Sprintf(format, args...))
	}
	r.b = nil
}

func (r *snapReader) uv() uint64 {
	x, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.b = r.b[k:]
	return x
}

// n reads a count of things each at least size bytes long, which must fit
// in what is left.
func (r *snapReader) n(size int) int {
	x := r.uv()
	if x > uint64(len(r.b)/max(size, 1)) {
		r.fail("count %d past the end", x)
		return 0
	}
	return int(x)
}

// small reads a number that must be below lim.
func (r *snapReader) small(lim uint64) uint64 {
	x := r.uv()
	if x >= lim {
		r.fail("%d out of range (below %d)", x, lim)
		return 0
	}
	return x
}

func (r *snapReader) flag() bool { return r.small(2) == 1 }

func (r *snapReader) take(k int) []byte {
	if k < 0 || k > len(r.b) {
		r.fail("%d bytes past the end", k)
		return nil
	}
	out := r.b[:k:k]
	r.b = r.b[k:]
	return out
}

func (r *snapReader) str() string { return string(r.take(r.n(1))) }

func (r *snapReader) u64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// u32s reads k little-endian uint32s into a new slice.
func (r *snapReader) u32s(k int) []uint32 {
	b := r.take(4 * k)
	if b == nil && k > 0 {
		return nil
	}
	out := hugemem.Make[uint32](k)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

// num reads a tally: a number that counts nothing in what follows.
func (r *snapReader) num() int { return int(r.small(1 << 48)) }
