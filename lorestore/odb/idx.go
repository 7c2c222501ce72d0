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
	return ix, nil
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

// find returns the position of h in the index, or -1.
func (ix *idxFile) find(h *plumbing.Hash) int {
	first := h[0]
	lo := 0
	if first > 0 {
		lo = int(binary.BigEndian.Uint32(ix.fanout[(int(first)-1)*4:]))
	}
	hi := int(binary.BigEndian.Uint32(ix.fanout[int(first)*4:]))
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		c := bytes.Compare(ix.names[m*hashLen:m*hashLen+hashLen], h[:])
		if c == 0 {
			return m
		}
		if c < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return -1
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
