// A table-driven inflater for whole deflate streams held in memory, of a
// size known in advance: stored, fixed-code and dynamic-code blocks alike.
// Listing a 10M-object scope inflates about 1 GB of shard trees (stored
// blocks now, Huffman-coded literals in older stores, DL-0013) and ten
// million small objects; the general decoder reads its input through an
// io.ByteReader and decodes a symbol at a time, about 8 ns a byte on
// coded trees (DL-0404).
//
// Like the fast path it replaces, it accepts a stream only when it decodes
// to exactly the recorded size with nothing the general decoder would
// refuse; anything else (an incomplete or over-subscribed code, a bad
// symbol, a distance too far back, too much or too little data) is left to
// the general decoder, which decides and names what is wrong. A test holds
// the two to the same answers on valid and damaged streams.

package odb

import (
	"encoding/binary"
	"math/bits"
	"sync"
)

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

// A table entry is value<<16 | kind<<8 | extra<<4 | length: the symbol's
// kind, its value (a literal byte, a length or distance base, or a
// subtable's offset), the extra bits that follow its code (for a
// subtable, the bits that index it), and the length of its code.
const (
	entLit = iota
	entBase
	entEnd
	entSub
	entBad
	entPair // two literals: value is both bytes, extra the first's code length
)

func ent(kind, value, extra int) uint32 {
	return uint32(value)<<16 | uint32(kind)<<8 | uint32(extra)<<4
}

// The index bits of the first level of the literal/length and the
// distance tables; longer codes are looked up in a second level. Eleven
// for literals: a shard tree's 20-byte binary hashes have codes of 10 or
// 11 bits, which ten bits sent to a subtable, and more pairs of hex
// digits fit; a real 3.8 MB shard tree inflated at a median of 123 MB/s
// against 112 at ten (eight alternating runs), and twelve gained nothing
// more (DL-0404).
const (
	litRoot  = 11
	distRoot = 8
	lensRoot = 7 // the code-length code's codes are at most 7 bits
)

// huffTable decodes one Huffman code: t[:1<<root] is indexed by the next
// root bits of the stream, and entries of kind entSub point into the
// subtables after it.
type huffTable struct {
	root uint
	t    []uint32
}

// build makes the table of the canonical code with the given code
// lengths, each symbol's entry (less its code length) from symbol. A code
// must be complete; when single is set, a code of one symbol of length 1,
// or of none, is accepted too, as the general decoder accepts them for
// distances. It reports false for any other code.
func (h *huffTable) build(lengths []uint8, root uint, single bool, symbol func(s int) uint32) bool {
	var count [16]int
	for _, l := range lengths {
		count[l]++
	}
	count[0] = 0
	left, used := 1, 0
	for l := 1; l < 16; l++ {
		left = left<<1 - count[l]
		used += count[l]
		if left < 0 {
			return false // over-subscribed
		}
	}
	if left != 0 && !(single && (used == 0 || used == 1 && count[1] == 1)) {
		return false
	}
	var next [16]int
	for l, code := 1, 0; l < 16; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	// Each first-level slot that begins longer codes gets a subtable as
	// deep as the longest of them.
	size := 1 << root
	var deepest [1 << litRoot]uint8
	codes := next
	for _, l := range lengths {
		if uint(l) > root {
			rev := int(bits.Reverse16(uint16(codes[l])) >> (16 - l))
			codes[l]++
			p := rev & (size - 1)
			deepest[p] = max(deepest[p], l)
		}
	}
	total := size
	for p := range size {
		if deepest[p] > 0 {
			total += 1 << (uint(deepest[p]) - root)
		}
	}
	if cap(h.t) < total {
		h.t = make([]uint32, total)
	}
	h.root, h.t = root, h.t[:total]
	bad := ent(entBad, 0, 0)
	for i := range h.t {
		h.t[i] = bad
	}
	off := size
	for p := range size {
		if d := deepest[p]; d > 0 {
			h.t[p] = ent(entSub, off, int(uint(d)-root))
			off += 1 << (uint(d) - root)
		}
	}
	for s, l := range lengths {
		if l == 0 {
			continue
		}
		rev := int(bits.Reverse16(uint16(next[l])) >> (16 - l))
		next[l]++
		e := symbol(s) | uint32(l)
		if uint(l) <= root {
			for i := rev; i < size; i += 1 << l {
				h.t[i] = e
			}
			continue
		}
		sub := h.t[rev&(size-1)]
		base, sbits := int(sub>>16), uint(sub>>4&15)
		for i := rev >> root; i < 1<<sbits; i += 1 << (uint(l) - root) {
			h.t[base+i] = e
		}
	}
	return true
}

// lookup returns the entry of the code at the front of r's bits, which
// must hold at least 15 bits or all that are left.
func (h *huffTable) lookup(r *bitReader) uint32 {
	e := h.t[r.buf&(1<<h.root-1)]
	if e>>8&7 == entSub {
		e = h.t[int(e>>16)+int(r.buf>>h.root&(1<<(e>>4&15)-1))]
	}
	return e
}

// pairLiterals turns every first-level entry of a literal whose code
// leaves room in the index for the whole code of a second literal into an
// entry of both. A large tree is mostly hex digits of 4 or 5 bits a code:
// two at a lookup nearly halve its lookups.
func (h *huffTable) pairLiterals() {
	size := 1 << h.root
	var first [1 << litRoot]uint32
	copy(first[:size], h.t[:size])
	for i, e := range first[:size] {
		l0 := uint(e & 15)
		if e>>8&7 != entLit || l0 >= h.root {
			continue
		}
		e1 := first[i>>l0] // its own code in the low bits, if short enough
		l1 := uint(e1 & 15)
		if e1>>8&7 != entLit || l0+l1 > h.root {
			continue
		}
		h.t[i] = (e1>>16&255)<<24 | (e>>16&255)<<16 | entPair<<8 | uint32(l0)<<4 | uint32(l0+l1)
	}
}

func litSymbol(s int) uint32 {
	switch {
	case s < 256:
		return ent(entLit, s, 0)
	case s == 256:
		return ent(entEnd, 0, 0)
	case s < 286:
		return ent(entBase, int(lenBase[s-257]), int(lenExtra[s-257]))
	}
	return ent(entBad, 0, 0)
}

func distSymbol(s int) uint32 {
	if s < 30 {
		return ent(entBase, int(distBase[s]), int(distExtr[s]))
	}
	return ent(entBad, 0, 0)
}

func lensSymbol(s int) uint32 { return ent(entLit, s, 0) }

// fixedTables are the literal/length and distance tables of the fixed
// codes, made on first use.
var fixedTables = sync.OnceValue(func() *[2]huffTable {
	var lit [288]uint8
	for s := range lit {
		switch {
		case s < 144:
			lit[s] = 8
		case s < 256:
			lit[s] = 9
		case s < 280:
			lit[s] = 7
		default:
			lit[s] = 8
		}
	}
	var dist [32]uint8
	for s := range dist {
		dist[s] = 5
	}
	var t [2]huffTable
	if !t[0].build(lit[:], litRoot, false, litSymbol) || !t[1].build(dist[:], distRoot, false, distSymbol) {
		panic("odb: the fixed codes do not build")
	}
	return &t
})

// dynTables holds the tables of a dynamic block, pooled: a stream of many
// blocks builds them again for each.
type dynTables struct {
	lit, dist, lens huffTable
	lengths         [286 + 30]uint8
}

var dynPool = sync.Pool{New: func() any { return new(dynTables) }}

// codeLengthOrder is the order in which a dynamic block's header gives
// the code-length code's lengths.
var codeLengthOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// inflateInto decodes src, a raw deflate stream, into out, which it must
// fill exactly, and returns the bytes the stream took; ok is false when
// the stream is not one the fast path takes.
func inflateInto(out, src []byte) (used int, ok bool) {
	r := bitReader{src: src}
	var dyn *dynTables
	defer func() {
		if dyn != nil {
			dynPool.Put(dyn)
		}
	}()
	w := 0
	for {
		head, ok := r.take(3)
		if !ok {
			return 0, false
		}
		var lit, dist *huffTable
		switch head >> 1 {
		case 0:
			if w, ok = storedInto(&r, out, w); !ok {
				return 0, false
			}
		case 1:
			t := fixedTables()
			lit, dist = &t[0], &t[1]
		case 2:
			if dyn == nil {
				dyn = dynPool.Get().(*dynTables)
			}
			if !dyn.read(&r) {
				return 0, false
			}
			lit, dist = &dyn.lit, &dyn.dist
		default:
			return 0, false
		}
		if lit != nil {
			if w, ok = codedInto(&r, out, w, lit, dist); !ok {
				return 0, false
			}
		}
		if head&1 == 1 { // the final block
			if w != len(out) {
				return 0, false
			}
			return (r.pos*8 - int(r.n) + 7) / 8, true
		}
	}
}

// storedInto copies a stored block's bytes to out at w.
func storedInto(r *bitReader, out []byte, w int) (int, bool) {
	r.buf >>= r.n & 7 // to a byte boundary
	r.n -= r.n & 7
	p := r.pos - int(r.n/8) // the bytes still loaded are read again
	r.buf, r.n = 0, 0
	if p+4 > len(r.src) {
		return 0, false
	}
	n := int(binary.LittleEndian.Uint16(r.src[p:]))
	if uint16(n) != ^binary.LittleEndian.Uint16(r.src[p+2:]) || p+4+n > len(r.src) || n > len(out)-w {
		return 0, false
	}
	copy(out[w:], r.src[p+4:p+4+n])
	r.pos = p + 4 + n
	return w + n, true
}

// read reads a dynamic block's header and builds its tables.
func (d *dynTables) read(r *bitReader) bool {
	v, ok := r.take(14)
	if !ok {
		return false
	}
	nlit, ndist, nlens := int(v&31)+257, int(v>>5&31)+1, int(v>>10)+4
	if nlit > 286 || ndist > 30 {
		return false
	}
	var lens [19]uint8
	for i := range nlens {
		l, ok := r.take(3)
		if !ok {
			return false
		}
		lens[codeLengthOrder[i]] = uint8(l)
	}
	if !d.lens.build(lens[:], lensRoot, false, lensSymbol) {
		return false
	}
	ls := d.lengths[:nlit+ndist]
	for i := 0; i < len(ls); {
		if r.n < 16 {
			r.fill()
		}
		e := d.lens.lookup(r)
		k := uint(e & 15)
		if e>>8&7 != entLit || k > r.n {
			return false
		}
		r.buf >>= k
		r.n -= k
		sym := int(e >> 16)
		if sym < 16 {
			ls[i] = uint8(sym)
			i++
			continue
		}
		var val uint8
		var rep uint32
		switch sym {
		case 16:
			if i == 0 {
				return false
			}
			val = ls[i-1]
			rep, ok = r.take(2)
			rep += 3
		case 17:
			rep, ok = r.take(3)
			rep += 3
		default:
			rep, ok = r.take(7)
			rep += 11
		}
		if !ok || i+int(rep) > len(ls) {
			return false
		}
		for range rep {
			ls[i] = val
			i++
		}
	}
	if ls[256] == 0 || !d.lit.build(ls[:nlit], litRoot, false, litSymbol) {
		return false
	}
	d.lit.pairLiterals()
	return d.dist.build(ls[nlit:], distRoot, true, distSymbol)
}

// codedInto decodes a block's symbols with the given tables into out at
// w, up to and including its end-of-block code. The reader's state is
// held in locals while it runs: kept in the reader, every symbol's shift
// would wait on a store and a load of the bit buffer.
func codedInto(r *bitReader, out []byte, w int, lit, dist *huffTable) (int, bool) {
	src, pos, buf, n := r.src, r.pos, r.buf, r.n
	lt, lroot, lmask := lit.t, lit.root, uint64(1)<<lit.root-1
	dt, droot, dmask := dist.t, dist.root, uint64(1)<<dist.root-1
	for {
		if n < 48 { // enough for a length and a distance with their extra bits
			if pos+8 <= len(src) {
				buf |= binary.LittleEndian.Uint64(src[pos:]) << n
				k := (63 - n) >> 3
				pos += int(k)
				n += k << 3
			} else {
				for n <= 56 && pos < len(src) {
					buf |= uint64(src[pos]) << n
					pos++
					n += 8
				}
			}
		}
		e := lt[buf&lmask]
		k := uint(e & 15)
		if e>>8&7 == entLit && k <= n { // the commonest case first
			if w >= len(out) {
				return 0, false
			}
			out[w] = byte(e >> 16)
			w++
			buf >>= k
			n -= k
			continue
		}
		if e>>8&7 == entSub {
			e = lt[int(e>>16)+int(buf>>lroot&(1<<(e>>4&15)-1))]
			k = uint(e & 15)
		}
		kind := e >> 8 & 7
		if kind == entPair {
			if k <= n && w+2 <= len(out) {
				out[w], out[w+1] = byte(e>>16), byte(e>>24)
				w += 2
				buf >>= k
				n -= k
				continue
			}
			// The second may lie past the input, or past out: the first alone.
			k, kind = uint(e>>4&15), entLit
		}
		if kind == entBad || k > n {
			return 0, false
		}
		buf >>= k
		n -= k
		if kind == entLit {
			if w >= len(out) {
				return 0, false
			}
			out[w] = byte(e >> 16)
			w++
			continue
		}
		if kind == entEnd {
			r.pos, r.buf, r.n = pos, buf, n
			return w, true
		}
		x := uint(e >> 4 & 15)
		if x > n {
			return 0, false
		}
		length := int(e>>16) + int(buf&(1<<x-1))
		buf >>= x
		n -= x
		if length == 258 && x == 5 {
			return 0, false // 227+31: 258 has a code of its own
		}
		e = dt[buf&dmask]
		if e>>8&7 == entSub {
			e = dt[int(e>>16)+int(buf>>droot&(1<<(e>>4&15)-1))]
		}
		k = uint(e & 15)
		if e>>8&7 != entBase || k > n {
			return 0, false
		}
		buf >>= k
		n -= k
		x = uint(e >> 4 & 15)
		if x > n {
			return 0, false
		}
		d := int(e>>16) + int(buf&(1<<x-1))
		buf >>= x
		n -= x
		if d > w || length > len(out)-w {
			return 0, false
		}
		if d >= length {
			copy(out[w:w+length], out[w-d:])
		} else {
			for i := range length { // overlapping: each byte may be one just copied
				out[w+i] = out[w-d+i]
			}
		}
		w += length
	}
}
