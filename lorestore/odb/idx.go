// Pack index (.idx) version 2: parsing a memory-mapped index and encoding
// a new one.
//
// Layout: "\377tOc", version 2, 256 cumulative fanout counts, N sorted
// 20-byte names, N CRC32s of the raw pack entries, N 4-byte offsets (MSB set
// means "index into the 8-byte large-offset table"), the large offsets, the
// pack's trailing checksum and the SHA-1 of everything before it.

package odb

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha1"
	"encoding/binary"
	"io"
	"math"
	"math/bits"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
)

var idxMagic = []byte{0xff, 't', 'O', 'c'}

const (
	idxHeaderLen = 8
	fanoutLen    = 256 * 4
	hashLen      = 20
)

// idxFile is a parsed, validated version-2 pack index over a byte slice
// (usually a read-only memory mapping).
type idxFile struct {
	data   []byte
	n      int
	fanout []byte // 256 big-endian uint32
	names  []byte // n*20
	crcs   []byte // n*4
	offs   []byte // n*4
	large  []byte // k*8
}

// parseIdx validates data as a version-2 index and returns a view of it.
// It always checks the header, the fanout and the size, touching only the
// first pages (as git does on open). With verify it reads the whole index:
// its trailing SHA-1 and the order of its names, which a trusted index
// (trust.go) and one this process just wrote are spared.
func parseIdx(path string, data []byte, verify bool) (*idxFile, error) {
	minLen := idxHeaderLen + fanoutLen + 2*hashLen
	if len(data) < minLen {
		return nil, corruptf(path, -1, "index too short (%d bytes)", len(data))
	}
	if !bytes.Equal(data[:4], idxMagic) {
		return nil, corruptf(path, 0, "not a version-2 pack index")
	}
	if v := binary.BigEndian.Uint32(data[4:8]); v != 2 {
		return nil, corruptf(path, 4, "unsupported index version %d", v)
	}
	ix := &idxFile{data: data, fanout: data[idxHeaderLen : idxHeaderLen+fanoutLen]}
	prev := uint32(0)
	for i := 0; i < 256; i++ {
		c := binary.BigEndian.Uint32(ix.fanout[i*4:])
		if c < prev {
			return nil, corruptf(path, int64(idxHeaderLen+i*4), "fanout not monotonic")
		}
		prev = c
	}
	n := int(prev)
	body := len(data) - idxHeaderLen - fanoutLen - 2*hashLen
	if uint64(n)*28 > uint64(body) || (body-n*28)%8 != 0 {
		return nil, corruptf(path, -1, "size %d does not match %d objects", len(data), n)
	}
	p := idxHeaderLen + fanoutLen
	ix.n = n
	ix.names = data[p : p+n*hashLen]
	p += n * hashLen
	ix.crcs = data[p : p+n*4]
	p += n * 4
	ix.offs = data[p : p+n*4]
	p += n * 4
	ix.large = data[p : len(data)-2*hashLen]
	if !verify {
		return ix, nil
	}
	sum := sha1.Sum(data[:len(data)-hashLen])
	if !bytes.Equal(sum[:], data[len(data)-hashLen:]) {
		return nil, corruptf(path, int64(len(data)-hashLen), "index checksum mismatch")
	}
	for i := 1; i < n; i++ {
		if bytes.Compare(ix.name(i-1), ix.name(i)) >= 0 {
			return nil, corruptf(path, int64(idxHeaderLen+fanoutLen+i*hashLen), "names not sorted")
		}
	}
	if i := ix.fanoutMismatch(); i >= 0 {
		return nil, corruptf(path, int64(idxHeaderLen+fanoutLen+i*hashLen), "the fanout table does not count name %d under its first byte", i)
	}
	return ix, nil
}

// fanoutMismatch returns the first name the fanout table does not place
// where find looks for it (entry first-1 counts the names before it,
// entry first those up to it), or -1 when the table counts every name.
// A table a checksum vouches for may still be wrong: find would then miss
// names the index holds.
func (ix *idxFile) fanoutMismatch() int {
	for i := 0; i < ix.n; i++ {
		first := int(ix.name(i)[0])
		lo := 0
		if first > 0 {
			lo = int(binary.BigEndian.Uint32(ix.fanout[(first-1)*4:]))
		}
		if hi := int(binary.BigEndian.Uint32(ix.fanout[first*4:])); i < lo || i >= hi {
			return i
		}
	}
	return -1
}

// packChecksum is the pack trailer recorded in the index.
func (ix *idxFile) packChecksum() []byte {
	return ix.data[len(ix.data)-2*hashLen : len(ix.data)-hashLen]
}

func (ix *idxFile) name(i int) []byte { return ix.names[i*hashLen : (i+1)*hashLen] }

func (ix *idxFile) crc(i int) uint32 { return binary.BigEndian.Uint32(ix.crcs[i*4:]) }

// offset returns the pack offset of entry i; ok is false when the entry
// points outside the large-offset table.
func (ix *idxFile) offset(i int) (uint64, bool) {
	o := binary.BigEndian.Uint32(ix.offs[i*4:])
	if o&0x80000000 == 0 {
		return uint64(o), true
	}
	k := int(o & 0x7fffffff)
	if k >= len(ix.large)/8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(ix.large[k*8:]), true
}

// find returns the position of h in the index, or -1. Names are hashes,
// spread evenly, so the search interpolates on their first eight bytes
// and then probes the expected error away on the far side, which brackets
// h in a range about the square root of the last: four or five probes
// find one of ten million, mostly in memory near the first, where halving
// takes some twenty misses (DL-0372). A round that does not at least
// halve the range is followed by a halving probe, so names that are not
// spread (or an index that is not sorted) cost no more than halving.
func (ix *idxFile) find(h *plumbing.Hash) int {
	first := h[0]
	lo := 0
	if first > 0 {
		lo = int(binary.BigEndian.Uint32(ix.fanout[(int(first)-1)*4:]))
	}
	hi := int(binary.BigEndian.Uint32(ix.fanout[int(first)*4:]))
	key := binary.BigEndian.Uint64(h[:8])
	// Every name in [lo, hi) has its key in [a, b] (when sorted).
	a := uint64(first) << 56
	b := a | (1<<56 - 1)
	for hi-lo > 8 {
		span := hi - lo
		m := lo + interpolate(key, a, b, span)
		c := ix.cmp(m, h, key)
		if c == 0 {
			return m
		}
		w := int(math.Sqrt(float64(span))) + 1
		if c < 0 {
			lo, a = m+1, ix.key(m)
			m += w
		} else {
			hi, b = m, ix.key(m)
			m -= w
		}
		if m >= lo && m < hi {
			if lo, hi, a, b = ix.narrow(m, h, key, lo, hi, a, b); lo < 0 {
				return m
			}
		}
		if hi-lo > span/2 {
			m = int(uint(lo+hi) >> 1)
			if lo, hi, a, b = ix.narrow(m, h, key, lo, hi, a, b); lo < 0 {
				return m
			}
		}
	}
	for ; lo < hi; lo++ {
		if ix.cmp(lo, h, key) == 0 {
			return lo
		}
	}
	return -1
}

// interpolate is where key falls among span names whose keys lie in
// [a, b], as an offset in [0, span).
func interpolate(key, a, b uint64, span int) int {
	switch {
	case key <= a || b <= a:
		return 0
	case key >= b:
		return span - 1
	}
	// (key-a)*(span-1)/(b-a) < span: its high word is below b-a.
	up, down := bits.Mul64(key-a, uint64(span-1))
	q, _ := bits.Div64(up, down, b-a)
	return int(q)
}

// narrow compares name m with h and returns the range left on h's side of
// it with its bounding keys, or lo -1 when name m is h.
func (ix *idxFile) narrow(m int, h *plumbing.Hash, key uint64, lo, hi int, a, b uint64) (int, int, uint64, uint64) {
	switch c := ix.cmp(m, h, key); {
	case c == 0:
		return -1, -1, 0, 0
	case c < 0:
		return m + 1, hi, ix.key(m), b
	default:
		return lo, m, a, ix.key(m)
	}
}

// key is the first eight bytes of name i, big-endian.
func (ix *idxFile) key(i int) uint64 { return binary.BigEndian.Uint64(ix.names[i*hashLen:]) }

// cmp compares name i with h, whose first eight bytes are key.
func (ix *idxFile) cmp(i int, h *plumbing.Hash, key uint64) int {
	if c := cmp.Compare(ix.key(i), key); c != 0 {
		return c
	}
	return bytes.Compare(ix.names[i*hashLen+8:(i+1)*hashLen], h[8:])
}

// idxEntry is one object of a pack being indexed.
type idxEntry struct {
	offset uint64 // first: the struct packs into 32 bytes, not 40
	hash   plumbing.Hash
	crc    uint32
}

// writeIdx encodes a version-2 index of entries (sorted in place by name)
// for the pack whose trailer is packSum, and returns the index checksum.
// Duplicate names are an error: git refuses such indexes.
func writeIdx(w io.Writer, entries []idxEntry, packSum []byte) ([]byte, error) {
	slices.SortFunc(entries, func(a, b idxEntry) int {
		// The first eight bytes almost always decide.
		if c := cmp.Compare(binary.BigEndian.Uint64(a.hash[:8]), binary.BigEndian.Uint64(b.hash[:8])); c != 0 {
			return c
		}
		return bytes.Compare(a.hash[8:], b.hash[8:])
	})
	for i := 1; i < len(entries); i++ {
		if entries[i].hash == entries[i-1].hash {
			return nil, corruptf("", -1, "object %s appears twice in the pack", entries[i].hash)
		}
	}
	d := sha1.New()
	bw := bufio.NewWriterSize(io.MultiWriter(w, d), 1<<16)
	var buf [8]byte
	bw.Write(idxMagic)
	binary.BigEndian.PutUint32(buf[:4], 2)
	bw.Write(buf[:4])
	var fan [256]uint32
	for _, e := range entries {
		fan[e.hash[0]]++
	}
	sum := uint32(0)
	for i := range fan {
		sum += fan[i]
		binary.BigEndian.PutUint32(buf[:4], sum)
		bw.Write(buf[:4])
	}
	for i := range entries {
		bw.Write(entries[i].hash[:])
	}
	for _, e := range entries {
		binary.BigEndian.PutUint32(buf[:4], e.crc)
		bw.Write(buf[:4])
	}
	nLarge := uint32(0)
	for _, e := range entries {
		o := uint32(e.offset)
		if e.offset >= 0x80000000 {
			o = 0x80000000 | nLarge
			nLarge++
		}
		binary.BigEndian.PutUint32(buf[:4], o)
		bw.Write(buf[:4])
	}
	for _, e := range entries {
		if e.offset >= 0x80000000 {
			binary.BigEndian.PutUint64(buf[:], e.offset)
			bw.Write(buf[:])
		}
	}
	bw.Write(packSum)
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	idxSum := d.Sum(nil)
	if _, err := w.Write(idxSum); err != nil {
		return nil, err
	}
	return idxSum, nil
}
