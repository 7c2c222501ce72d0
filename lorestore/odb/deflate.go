// A small, fast zlib encoder for small objects: one final deflate block
// with the fixed Huffman codes and a single-probe LZ77 matcher, or a
// stored block where the codes save less than a quarter (DL-0013).
//
// Why: compress/flate spends ~15 µs per stream building Huffman trees,
// whatever the level, which caps batch writes of ~200-byte objects at a few
// tens of thousands per second per core (klauspost/compress: ~3 µs, and it
// stores such small inputs uncompressed). For inputs this small a dynamic
// Huffman header costs about what it saves, so fixed codes lose little
// ratio. Past a few kilobytes the per-stream cost no longer dominates, and
// dynamic codes win: larger objects go through klauspost/compress (see
// appendDeflate). Every stream this encoder writes fits one stored block,
// the fallback for incompressible input.

package odb

import (
	"encoding/binary"
	"hash/adler32"
	"math/bits"
)

// smallObject is the size up to which appendDeflate uses this encoder.
const smallObject = 4 << 10

const (
	fdHashBits = 12
	fdMinMatch = 4
	fdMaxMatch = 258
	fdMaxDist  = 32768
)

// fixedCode holds the bit-reversed fixed Huffman code and its length for
// each literal/length symbol 0..287.
var fixedCode = func() (t [288]struct {
	code uint32
	n    uint8
}) {
	for s := 0; s < 288; s++ {
		var c, n uint32
		switch {
		case s < 144:
			c, n = 0x30+uint32(s), 8
		case s < 256:
			c, n = 0x190+uint32(s-144), 9
		case s < 280:
			c, n = uint32(s-256), 7
		default:
			c, n = 0xc0+uint32(s-280), 8
		}
		t[s].code = bits.Reverse32(c) >> (32 - n)
		t[s].n = uint8(n)
	}
	return t
}()

var (
	lenBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lenExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtr = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	// lenSym[l-3] and distSym index tables are filled by init.
	lenSym [256]uint8
)

func init() {
	for code := 0; code < 28; code++ {
		for l := int(lenBase[code]); l < int(lenBase[code])+1<<lenExtra[code] && l < 258; l++ {
			lenSym[l-3] = uint8(code)
		}
	}
	lenSym[258-3] = 28
}

// distCode returns the distance code (0..29) for a distance 1..32768.
func distCode(d int) int {
	if d <= 4 {
		return d - 1
	}
	// For d > 4: code = 2*(floor(log2(d-1))) + second-highest bit of d-1.
	x := uint32(d - 1)
	hi := 31 - bits.LeadingZeros32(x)
	return 2*hi + int((x>>(hi-1))&1)
}

// bitWriter accumulates bits LSB first, as deflate wants.
type bitWriter struct {
	out  []byte
	acc  uint64
	nacc uint
}

func (w *bitWriter) put(v uint32, n uint8) {
	w.acc |= uint64(v) << w.nacc
	w.nacc += uint(n)
	if w.nacc >= 32 {
		w.out = binary.LittleEndian.AppendUint32(w.out, uint32(w.acc))
		w.acc >>= 32
		w.nacc -= 32
	}
}

func (w *bitWriter) flush() {
	for w.nacc > 0 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		if w.nacc <= 8 {
			w.nacc = 0
		} else {
			w.nacc -= 8
		}
	}
}

// fastDeflater is the matcher state; its table is never cleared: entries
// are positions offset by base, which grows with every input.
type fastDeflater struct {
	table [1 << fdHashBits]uint32
	base  uint32
}

func fdHash(u uint32) uint32 { return (u * 0x1e35a7bd) >> (32 - fdHashBits) }

// appendSmallZlib appends a zlib stream of src (len(src) <= smallObject):
// under storeBelow bytes the stored block, untried; else its
// fixed-Huffman coding when that is at most three quarters of a stored
// block, else the stored block. A lore object of a few hundred
// bytes is JSON whose codes save about a tenth (118 bytes coded in 110 on
// average in the 10M bench store), and reading it back coded cost 7 ns a
// byte against a copy: stored, the 10M scope reads in 27–31 s of CPU
// instead of 34–38 s, for a pack 7.5% larger (DL-0013). Larger text, a
// document's, still saves its quarter and more.
func (f *fastDeflater) appendSmallZlib(dst, src []byte) []byte {
	if len(src) < storeBelow {
		return appendStoredZlib(dst, src, adler32.Checksum(src))
	}
	out := f.appendFixedZlib(dst, src)
	if 4*(len(out)-len(dst)) <= 3*(len(src)+storedOverhead) {
		return out
	}
	return appendStoredZlib(out[:len(dst)], src, binary.BigEndian.Uint32(out[len(out)-4:]))
}

// storeBelow is the size under which appendSmallZlib stores an object
// without trying the codes: a literal costs them 8 or 9 bits, so only
// matches shorten, and in a lore object under 256 bytes (a fact, an
// entity, a relation: field names that never repeat, ids that share a
// prefix) they come nowhere near a quarter. Trying cost a 3M-declaration
// import 2.75 s of CPU (DL-0013).
const storeBelow = 256

// storedOverhead is what a zlib stream of one stored block adds to its
// bytes: the zlib header, the block's header and length, the checksum.
const storedOverhead = 2 + 1 + 4 + 4

// storedBlockMax is the most bytes one stored deflate block holds.
const storedBlockMax = 1<<16 - 1

// appendStoredZlib appends a zlib stream of src (of any length), whose
// adler32 is sum, as stored blocks, each but the last storedBlockMax
// bytes: one block for a small object.
func appendStoredZlib(dst, src []byte, sum uint32) []byte {
	out := append(dst, 0x78, 0x01)
	for {
		n := min(len(src), storedBlockMax)
		final := byte(0)
		if n == len(src) {
			final = 1 // BFINAL; BTYPE=00, to the byte
		}
		out = append(out, final)
		out = binary.LittleEndian.AppendUint16(out, uint16(n))
		out = binary.LittleEndian.AppendUint16(out, ^uint16(n))
		out = append(out, src[:n]...)
		if src = src[n:]; final == 1 {
			return binary.BigEndian.AppendUint32(out, sum)
		}
	}
}

// appendFixedZlib appends a zlib stream of src (len(src) <= smallObject)
// coded with the fixed Huffman codes, or stored where coding would make
// it larger.
func (f *fastDeflater) appendFixedZlib(dst, src []byte) []byte {
	if f.base > 1<<30 {
		f.table = [1 << fdHashBits]uint32{}
		f.base = 0
	}
	base := f.base + 1 // table values <= f.base are stale
	f.base += uint32(len(src)) + 1
	w := bitWriter{out: append(dst, 0x78, 0x01)}
	w.put(1|1<<1, 3) // BFINAL=1, BTYPE=01 (fixed Huffman)
	lit := func(b byte) { c := fixedCode[b]; w.put(c.code, c.n) }
	i := 0
	for i+fdMinMatch <= len(src) {
		cur := binary.LittleEndian.Uint32(src[i:])
		h := fdHash(cur)
		cand := int(f.table[h]) - int(base)
		f.table[h] = uint32(i) + base
		if cand < 0 || i-cand > fdMaxDist || binary.LittleEndian.Uint32(src[cand:]) != cur {
			lit(src[i])
			i++
			continue
		}
		n := fdMinMatch
		for i+n < len(src) && n < fdMaxMatch && src[cand+n] == src[i+n] {
			n++
		}
		ls := lenSym[n-3]
		c := fixedCode[257+int(ls)]
		w.put(c.code, c.n)
		if e := lenExtra[ls]; e > 0 {
			w.put(uint32(n-int(lenBase[ls])), e)
		}
		dist := i - cand
		dc := distCode(dist)
		w.put(bits.Reverse32(uint32(dc))>>27, 5)
		if e := distExtr[dc]; e > 0 {
			w.put(uint32(dist-int(distBase[dc])), e)
		}
		// Index the positions inside the match too: later matches find
		// a little more, for little time (BenchmarkCompressLevels).
		for j := i + 1; j < i+n && j+fdMinMatch <= len(src); j++ {
			f.table[fdHash(binary.LittleEndian.Uint32(src[j:]))] = uint32(j) + base
		}
		i += n
	}
	for ; i < len(src); i++ {
		lit(src[i])
	}
	c := fixedCode[256] // end of block
	w.put(c.code, c.n)
	w.flush()
	if len(w.out)-len(dst)+4 > len(src)+storedOverhead {
		// Incompressible (e.g. binary with many 9-bit literals): a stored
		// block is smaller.
		return appendStoredZlib(w.out[:len(dst)], src, adler32.Checksum(src))
	}
	return binary.BigEndian.AppendUint32(w.out, adler32.Checksum(src))
}
