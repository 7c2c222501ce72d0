// A fast path for inflating the streams this package writes for small
// objects (deflate.go): one final block, coded with the fixed Huffman codes
// or stored. Reading a 10M-object scope inflates ten million such streams
// of about 150 bytes; a general decoder spends most of each one on setting
// itself up and on reading its input a byte at a time (DL-0376).
//
// The fast path accepts a stream only when it decodes to exactly the
// recorded size with nothing the general decoder would refuse; anything
// else (another block type, more than one block, a bad symbol, a distance
// too far back, too much or too little data) is left to the general
// decoder, which decides and names what is wrong. A test holds the two to
// the same answers on valid and damaged streams.

package odb

import (
	"encoding/binary"
	"math/bits"
	"sync"
)

// smallInflateMax is the largest size the fast path takes on: past it the
// general decoder's set-up no longer dominates.
const smallInflateMax = 1 << 20

// fixedLitTable maps the next 9 bits of a stream (first bit lowest) to the
// fixed-code literal/length symbol they begin with, as symbol<<4 | length.
// Built on first use: a process that reads no pack does not pay for it.
var fixedLitTable = sync.OnceValue(func() *[512]uint16 {
	var t [512]uint16
	for s := range 288 {
		c := fixedCode[s] // bit-reversed already: the stream's bit order
		for f := 0; f < 1<<(9-c.n); f++ {
			t[int(c.code)|f<<c.n] = uint16(s)<<4 | uint16(c.n)
		}
	}
	return &t
})

// bitReader reads a deflate stream's bits, first bit lowest.
type bitReader struct {
	src []byte
	pos int    // next byte of src to load
	buf uint64 // loaded bits, the next one lowest
	n   uint   // how many
}

// fill loads whole bytes while at least one more fits: seven at once
// when eight are left to read (the eighth's bits, and any past the
// loaded count, are those the next fill loads again at the same places).
func (r *bitReader) fill() {
	if r.pos+8 <= len(r.src) {
		r.buf |= binary.LittleEndian.Uint64(r.src[r.pos:]) << r.n
		k := (63 - r.n) >> 3
		r.pos += int(k)
		r.n += k << 3
		return
	}
	for r.n <= 56 && r.pos < len(r.src) {
		r.buf |= uint64(r.src[r.pos]) << r.n
		r.pos++
		r.n += 8
	}
}

// take returns the next k bits (k ≤ 32), or false at the end of the input.
func (r *bitReader) take(k uint) (uint32, bool) {
	if r.n < k {
		if r.fill(); r.n < k {
			return 0, false
		}
	}
	v := uint32(r.buf & (1<<k - 1))
	r.buf >>= k
	r.n -= k
	return v, true
}

// inflateSmall decodes src, a raw deflate stream, when it is a single
// final stored or fixed-code block of exactly size bytes, and returns the
// data and the bytes the stream took. ok is false otherwise.
func inflateSmall(src []byte, size uint64) (out []byte, used int, ok bool) {
	if len(src) == 0 || size > smallInflateMax {
		return nil, 0, false
	}
	switch src[0] & 7 { // BFINAL and BTYPE
	case 1: // final, stored: LEN and its complement from the next byte on
		if len(src) < 5 {
			return nil, 0, false
		}
		n := binary.LittleEndian.Uint16(src[1:])
		if n != ^binary.LittleEndian.Uint16(src[3:]) || uint64(n) != size || len(src) < 5+int(n) {
			return nil, 0, false
		}
		return append([]byte(nil), src[5:5+int(n)]...), 5 + int(n), true
	case 3: // final, fixed codes
		return inflateFixed(src, int(size))
	}
	return nil, 0, false
}

// inflateFixed decodes a final fixed-code block of exactly size bytes.
func inflateFixed(src []byte, size int) ([]byte, int, bool) {
	table := fixedLitTable()
	r := bitReader{src: src}
	r.take(3) // the block header, read by the caller
	out := make([]byte, size)
	w := 0 // bytes of out written
	for {
		if r.n < 9 {
			r.fill()
		}
		e := table[r.buf&511]
		k := uint(e & 15)
		if k > r.n {
			return nil, 0, false
		}
		r.buf >>= k
		r.n -= k
		sym := int(e >> 4)
		switch {
		case sym < 256:
			if w == size {
				return nil, 0, false
			}
			out[w] = byte(sym)
			w++
			continue
		case sym == 256:
			if w != size {
				return nil, 0, false
			}
			return out, (r.pos*8 - int(r.n) + 7) / 8, true
		case sym > 285:
			return nil, 0, false
		}
		length, ok := lengthOf(&r, sym-257)
		if !ok {
			return nil, 0, false
		}
		dist, ok := distanceOf(&r)
		if !ok || dist > w || length > size-w {
			return nil, 0, false
		}
		if dist >= length {
			copy(out[w:w+length], out[w-dist:])
		} else {
			for i := range length { // overlapping: each byte may be one just copied
				out[w+i] = out[w-dist+i]
			}
		}
		w += length
	}
}

// lengthOf reads the extra bits of length code c (0..28).
func lengthOf(r *bitReader, c int) (int, bool) {
	extra, ok := r.take(uint(lenExtra[c]))
	if !ok || (c == 27 && extra == 31) {
		return 0, false // 227+31 would be 258, which has a code of its own
	}
	return int(lenBase[c]) + int(extra), true
}

// distanceOf reads a fixed distance code (five bits, first bit highest)
// and its extra bits.
func distanceOf(r *bitReader) (int, bool) {
	v, ok := r.take(5)
	if !ok {
		return 0, false
	}
	c := int(bits.Reverse8(uint8(v)) >> 3)
	if c >= 30 {
		return 0, false
	}
	extra, ok := r.take(uint(distExtr[c]))
	return int(distBase[c]) + int(extra), ok
}
