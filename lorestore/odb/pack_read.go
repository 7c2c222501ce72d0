// Reading pack entries: entry headers, inflation, and delta chains
// (OFS_DELTA and REF_DELTA) resolved through the shared delta-base cache.

package odb

import (
	"github.com/go-git/go-git/v5/plumbing"
)

// missingBaseError: a REF_DELTA base is not in the pack (only while
// indexing a received pack, which resolves bases inside the pack alone).
type missingBaseError struct{ base plumbing.Hash }

func (e *missingBaseError) Error() string {
	return "odb: delta base " + e.base.String() + " not in pack"
}

// maxChain bounds delta chains (git's default depth is 50; we allow far
// more, but a cycle of REF_DELTAs must not loop forever).
const maxChain = 10000

// entryHdr is a decoded pack entry header.
type entryHdr struct {
	off      uint64 // entry start
	typ      plumbing.ObjectType
	size     uint64 // inflated size (of the delta, for delta entries)
	dataOff  uint64 // start of the zlib stream
	baseOff  uint64 // OFS_DELTA: absolute offset of the base
	baseHash plumbing.Hash
}

// decodeEntryHeader decodes the entry header at the start of d: type,
// inflated size, and for deltas the relative base offset (OFS_DELTA) or the
// base name (REF_DELTA). n is the header length. At least one byte of data
// must follow the header.
func decodeEntryHeader(d []byte) (h entryHdr, rel uint64, n int, ok bool) {
	var p int
	if h.typ, h.size, p, ok = entryTypeSize(d); !ok {
		return h, 0, 0, false
	}
	switch h.typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
	case plumbing.OFSDeltaObject:
		if p >= len(d) {
			return h, 0, 0, false
		}
		c := d[p]
		p++
		rel = uint64(c & 0x7f)
		for c&0x80 != 0 {
			if p >= len(d) || rel >= 1<<56 {
				return h, 0, 0, false
			}
			c = d[p]
			p++
			rel = ((rel + 1) << 7) | uint64(c&0x7f)
		}
		if rel == 0 {
			return h, 0, 0, false
		}
	case plumbing.REFDeltaObject:
		if p+hashLen > len(d) {
			return h, 0, 0, false
		}
		copy(h.baseHash[:], d[p:p+hashLen])
		p += hashLen
	default:
		return h, 0, 0, false
	}
	if p >= len(d) {
		return h, 0, 0, false
	}
	return h, rel, p, true
}

// entryTypeSize decodes the type and the inflated size that begin an entry
// header at the start of d, and returns the length they take.
func entryTypeSize(d []byte) (plumbing.ObjectType, uint64, int, bool) {
	if len(d) == 0 {
		return 0, 0, 0, false
	}
	c := d[0]
	t := plumbing.ObjectType(c >> 4 & 7)
	size := uint64(c & 0x0f)
	p := 1
	for shift := uint(4); c&0x80 != 0; shift += 7 {
		if p >= len(d) || shift > 57 {
			return 0, 0, 0, false
		}
		c = d[p]
		p++
		size |= uint64(c&0x7f) << shift
	}
	return t, size, p, true
}

// parseEntryHeader decodes the entry header at off in d (a whole pack);
// entries stop at end (the trailer).
func parseEntryHeader(d []byte, off uint64, end uint64) (entryHdr, bool) {
	if off < packHeaderLen || off >= end || end > uint64(len(d)) {
		return entryHdr{}, false
	}
	h, rel, n, ok := decodeEntryHeader(d[off:end])
	if !ok || (h.typ == plumbing.OFSDeltaObject && rel > off-packHeaderLen) {
		return h, false
	}
	h.off = off
	h.baseOff = off - rel
	h.dataOff = off + uint64(n)
	return h, true
}

// header decodes the entry at off of p.
func (p *pack) header(off uint64) (entryHdr, error) {
	h, ok := parseEntryHeader(p.data, off, uint64(len(p.data)-hashLen))
	if !ok {
		return h, corruptf(p.base+".pack", int64(off), "bad entry header")
	}
	return h, nil
}

// inflateEntry returns the inflated data of entry h.
func (p *pack) inflateEntry(h *entryHdr) ([]byte, error) {
	end := uint64(len(p.data) - hashLen)
	out, _, err := inflate(p.data[h.dataOff:end], h.size)
	if err != nil {
		return nil, corruptf(p.base+".pack", int64(h.off), "inflating entry: %v", err)
	}
	return out, nil
}

// refBaseFunc resolves a REF_DELTA base that is not in the pack itself.
type refBaseFunc func(h plumbing.Hash, depth int) (plumbing.ObjectType, []byte, error)

// locateRef finds the pack offset of object h inside p.
func (p *pack) locateRef(h *plumbing.Hash) (uint64, bool) {
	if p.idx == nil {
		off, ok := p.byHash[*h]
		return off, ok
	}
	i := p.idx.find(h)
	if i < 0 {
		return 0, false
	}
	return p.idx.offset(i)
}

// unpack returns the full object stored at off in p. Returned data is
// owned by the caller. depth counts REF_DELTA hops across packs.
func unpack(p *pack, off uint64, cache *baseCache, ext refBaseFunc, depth int) (plumbing.ObjectType, []byte, error) {
	if e := cache.get(p.id, off); e != nil {
		return e.typ, append([]byte(nil), e.data...), nil
	}
	var stack [8]entryHdr
	chain := stack[:0]
	var typ plumbing.ObjectType
	var base []byte
	cur := off
	for {
		if len(chain) > 0 {
			if e := cache.get(p.id, cur); e != nil {
				typ, base = e.typ, e.data
				break
			}
		}
		h, err := p.header(cur)
		if err != nil {
			return 0, nil, err
		}
		if isBaseType(h.typ) {
			if base, err = p.inflateEntry(&h); err != nil {
				return 0, nil, err
			}
			typ = h.typ
			if len(chain) > 0 {
				cache.put(p.id, cur, typ, base)
			}
			break
		}
		if len(chain) >= maxChain {
			return 0, nil, corruptf(p.base+".pack", int64(off), "delta chain too long")
		}
		chain = append(chain, h)
		if h.typ == plumbing.OFSDeltaObject {
			cur = h.baseOff
			continue
		}
		if o, ok := p.locateRef(&h.baseHash); ok {
			cur = o
			continue
		}
		if ext == nil {
			return 0, nil, &missingBaseError{h.baseHash}
		}
		if depth >= maxChain {
			return 0, nil, corruptf(p.base+".pack", int64(h.off), "delta base %s not found", h.baseHash)
		}
		if typ, base, err = ext(h.baseHash, depth+1); err != nil {
			return 0, nil, err
		}
		break
	}
	for i := len(chain) - 1; i >= 0; i-- {
		delta, err := p.inflateEntry(&chain[i])
		if err != nil {
			return 0, nil, err
		}
		out, ok := applyDelta(base, delta)
		if !ok {
			return 0, nil, corruptf(p.base+".pack", int64(chain[i].off), "bad delta")
		}
		base = out
		if i > 0 {
			cache.put(p.id, chain[i].off, typ, base)
		}
	}
	return typ, base, nil
}
