// Git's delta format: applying a delta (source size, target size, then copy
// and insert instructions) to a base object.

package odb

// maxPrealloc bounds how much memory is reserved up front from a size field
// read out of untrusted data; larger results grow as they are produced.
const maxPrealloc = 64 << 20

// deltaVarint reads the little-endian base-128 size used in delta headers.
func deltaVarint(d []byte, p int) (uint64, int, bool) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if p >= len(d) {
			return 0, p, false
		}
		c := d[p]
		p++
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, p, true
		}
	}
	return 0, p, false
}

// deltaSizes returns the source and target sizes announced by a delta and
// the position of its first instruction.
func deltaSizes(delta []byte) (src, dst uint64, p int, ok bool) {
	src, p, ok = deltaVarint(delta, 0)
	if !ok {
		return 0, 0, 0, false
	}
	dst, p, ok = deltaVarint(delta, p)
	return src, dst, p, ok
}

// applyDelta returns base transformed by delta. Any inconsistency (size
// mismatch, copy out of range, reserved opcode) returns ok=false.
func applyDelta(base, delta []byte) ([]byte, bool) {
	srcSize, dstSize, p, ok := deltaSizes(delta)
	if !ok || srcSize != uint64(len(base)) {
		return nil, false
	}
	out := make([]byte, 0, min(dstSize, maxPrealloc))
	for p < len(delta) {
		op := delta[p]
		p++
		switch {
		case op&0x80 != 0:
			var off, n uint64
			for i := uint(0); i < 4; i++ {
				if op&(1<<i) != 0 {
					if p >= len(delta) {
						return nil, false
					}
					off |= uint64(delta[p]) << (8 * i)
					p++
				}
			}
			for i := uint(0); i < 3; i++ {
				if op&(0x10<<i) != 0 {
					if p >= len(delta) {
						return nil, false
					}
					n |= uint64(delta[p]) << (8 * i)
					p++
				}
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(base)) || uint64(len(out))+n > dstSize {
				return nil, false
			}
			out = append(out, base[off:off+n]...)
		case op != 0:
			n := int(op)
			if p+n > len(delta) || uint64(len(out)+n) > dstSize {
				return nil, false
			}
			out = append(out, delta[p:p+n]...)
			p += n
		default:
			return nil, false // opcode 0 is reserved
		}
	}
	if uint64(len(out)) != dstSize {
		return nil, false
	}
	return out, true
}
