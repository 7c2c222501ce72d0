// This file holds the byte codec of snapshots (snapshot.go): a writer that
// appends uvarints, strings and little-endian columns, and a reader that
// checks every length against what is left, so that bad bytes make an
// error, never a panic or a huge allocation.
//
// Columns are aligned: zero bytes pad the snapshot before each column of
// uint32 to an offset (from the snapshot's first byte) that is a multiple
// of 4, and before each column of uint64 (a hash's slots) to a multiple
// of 8. A
// reader allowed to alias (LoadSnapshotAliased) then uses a column whose
// bytes lie aligned in memory in place, as a slice of the bytes, instead
// of copying it.

package datalog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/deloreis/deloreis/base/hugemem"
)

// snapWriter appends a snapshot to w through a buffer.
type snapWriter struct {
	w       io.Writer
	buf     []byte
	err     error
	written int // bytes handed to w: the offset of buf[0] in the snapshot
}

const snapFlush = 1 << 16

func (s *snapWriter) flush() {
	if s.err == nil && len(s.buf) > 0 {
		_, s.err = s.w.Write(s.buf)
	}
	s.written += len(s.buf)
	s.buf = s.buf[:0]
}

// align pads with zero bytes to an offset that is a multiple of k (a power
// of two), so that the column written next can be read in place.
func (s *snapWriter) align(k int) {
	for (s.written+len(s.buf))&(k-1) != 0 {
		s.buf = append(s.buf, 0)
	}
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
		s.written += len(x)
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

// u32s writes part of a column of uint32; the caller aligns the
// column's start (align(4)).
func (s *snapWriter) u32s(xs []uint32) { writeColumn(s, xs) }

// u64s writes a column of uint64; the caller aligns its start (align(8)).
func (s *snapWriter) u64s(xs []uint64) { writeColumn(s, xs) }

// writeColumn writes xs little-endian. Where that is the machine's own
// order, xs's bytes are the column's: a short one is copied into the
// buffer whole, and one of a buffer's size or more goes to w as it lies
// in memory, with no copy (w does not keep it, as io.Writer promises).
// Elsewhere each value is swapped into the buffer, a buffer's worth at a
// time.
func writeColumn[T uint32 | uint64](s *snapWriter, xs []T) {
	size := int(unsafe.Sizeof(T(0)))
	if littleEndian && len(xs) > 0 {
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(xs))), len(xs)*size)
		if len(b) < snapFlush {
			s.buf = append(s.buf, b...)
			s.room()
			return
		}
		s.flush()
		if s.err == nil {
			_, s.err = s.w.Write(b)
		}
		s.written += len(b)
		return
	}
	for len(xs) > 0 {
		k := min(len(xs), snapFlush/size)
		for _, x := range xs[:k] {
			if size == 4 {
				s.buf = binary.LittleEndian.AppendUint32(s.buf, uint32(x))
			} else {
				s.buf = binary.LittleEndian.AppendUint64(s.buf, uint64(x))
			}
		}
		xs = xs[k:]
		s.room()
	}
}

// errSnapshot is the cause of every refusal of snapshot bytes.
var errSnapshot = errors.New("datalog: snapshot refused")

// snapReader reads a snapshot; the first error sticks and every read after
// it returns zero values. size is the snapshot's length, so that
// size-len(b) is the offset read next. alias says the snapshot's bytes
// outlive what is loaded from them, unchanged: aligned columns are then
// used in place (aliasAs).
type snapReader struct {
	b     []byte
	err   error
	size  int
	alias bool
	// all is the whole snapshot, of which release is handed what has
	// been read up to where given has got (giveBack).
	all     []byte
	release func([]byte)
	given   int
}

// releaseStep is the least stretch giveBack hands to release (tests
// lower it).
var releaseStep = 4 << 20

// giveBack hands release the bytes read since it last did, once they are
// a stretch worth handing: a relation or hash checked is done with.
func (r *snapReader) giveBack() {
	if r.release == nil || r.err != nil {
		return
	}
	if at := r.size - len(r.b); at-r.given >= releaseStep {
		r.release(r.all[r.given:at])
		r.given = at
	}
}

// littleEndian says the machine's byte order is the snapshot's: on any
// other, columns are always copied (and swapped).
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// align skips the zero bytes that pad to an offset that is a multiple of
// k (a power of two); padding of any other bytes is refused.
func (r *snapReader) align(k int) {
	pad := (k - (r.size-len(r.b))&(k-1)) & (k - 1)
	for _, c := range r.take(pad) {
		if c != 0 {
			r.fail("padding byte %#x", c)
			return
		}
	}
}

// aliasAs returns b as a slice of T in place, or nil when the reader may
// not alias, the machine is not little-endian or b does not lie aligned
// for T in memory (the caller then copies). The slice's capacity is its
// length, so appending to it copies.
func aliasAs[T uint32 | uint64](r *snapReader, b []byte) []T {
	size := int(unsafe.Sizeof(T(0)))
	if !r.alias || !littleEndian || len(b) == 0 || len(b)%size != 0 || uintptr(unsafe.Pointer(&b[0]))%uintptr(size) != 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/size)
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

// u32s reads a column of k little-endian uint32s, aligned (align(4)):
// in place when the reader may alias it, else into a new slice.
func (r *snapReader) u32s(k int) []uint32 {
	r.align(4)
	if r.err != nil {
		return nil
	}
	b := r.take(4 * k)
	if b == nil && k > 0 {
		return nil
	}
	if out := aliasAs[uint32](r, b); out != nil {
		return out
	}
	out := hugemem.Make[uint32](k)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

// u64s reads a column of k little-endian uint64s, aligned (align(8)):
// in place when the reader may alias it, else into a new slice.
func (r *snapReader) u64s(k int) []uint64 {
	r.align(8)
	if r.err != nil {
		return nil
	}
	b := r.take(8 * k)
	if b == nil && k > 0 {
		return nil
	}
	if out := aliasAs[uint64](r, b); out != nil {
		return out
	}
	out := hugemem.Make[uint64](k)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return out
}

// num reads a tally: a number that counts nothing in what follows.
func (r *snapReader) num() int { return int(r.small(1 << 48)) }
