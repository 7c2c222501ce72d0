// This file holds the persistent extendible hash that relations and their
// indexes are found through, copy-on-write by generation like pvec.

package datalog

import "slices"

// Extendible hashing: a directory indexed by the top gd bits of a 32-bit
// tag points at pages; a page holds the entries whose tags share its top ld
// bits in an open-addressing table at most half full, probed linearly from
// the tag's low bits. A page about to pass half full doubles up to
// hpageMax slots, then splits in two (doubling the directory when ld = gd),
// so a write copies one page and at most the directory, never the whole
// table. An entry is tag<<32 | value+1, 0 when empty. A page's depth and
// entry count live beside the directory (at the first slot of its span),
// so that reading a page touches only the slots probed.
//
// A hash built by one generation from empty stays flat: all its pages have
// depth gd and 1<<fk slots and lie end to end, page i at slot i<<fk of a
// run cut into segments of 1<<hsegBits slots, so a probe needs only a
// lookup in a spine small enough to stay in cache, and growth doubles the
// table in one sequential pass instead of splitting page by page. The pass
// goes segment by segment and writes each segment's low half back into it
// (through one scratch segment), so growing never holds the old and the
// new table at once nor leaves the old one as garbage: a large relation's
// hash costs its own size at peak. (It is the same page layout, so no
// entry moves when it stops being flat.) The first write under another
// generation, which must not touch the shared segments, builds the
// directory over them and continues as above.
const (
	hpageMin  = 8
	hpageBits = 10
	hpageMax  = 1 << hpageBits
	hmaxLD    = 22 // past this depth a page grows instead of splitting
	hsegBits  = 16
	hsegMask  = 1<<hsegBits - 1
)

type phash struct {
	dir  [][]uint64
	gens []uint64 // by directory slot: the generation that owns its page
	lds  []uint8  // by directory slot: its page's local depth
	cnt  []int32  // by directory slot, at the first of a page's span: its entries
	own  uint64   // the generation that owns dir, gens, lds and cnt (and segs)
	gd   uint8
	n    int // entries

	// Flat form (see above): dir, gens and lds are nil and cnt is by page.
	// Every segment holds min(1<<hsegBits, all) slots.
	segs [][]uint64
	fk   uint8
}

func newPhash(gen uint64) phash {
	return phash{segs: [][]uint64{make([]uint64, hpageMin)}, fk: 3, cnt: []int32{0}, own: gen}
}

// flatPage returns page i of a flat hash.
func (h *phash) flatPage(i int) []uint64 {
	lo := i << h.fk
	o := lo & hsegMask
	return h.segs[lo>>hsegBits][o : o+1<<h.fk : o+1<<h.fk]
}

// slots returns the slots of a flat hash.
func (h *phash) slots() int { return len(h.cnt) << h.fk }

// page returns the directory slot and page of a tag.
func (h *phash) page(tag uint32) (int, []uint64) {
	i := int(tag >> (32 - uint(h.gd)))
	if h.segs != nil {
		return i, h.flatPage(i)
	}
	return i, h.dir[i]
}

// first returns the first directory slot of the span of slot i's page.
func (h *phash) first(i int) int { return i &^ (1<<(h.gd-h.lds[i]) - 1) }

// unflat builds the directory of a flat hash for writing under gen.
func (h *phash) unflat(gen uint64) {
	n := len(h.cnt)
	h.dir, h.gens, h.lds = make([][]uint64, n), make([]uint64, n), make([]uint8, n)
	for i := range n {
		h.dir[i], h.gens[i], h.lds[i] = h.flatPage(i), h.own, h.gd
	}
	if h.own != gen {
		h.cnt, h.own = slices.Clone(h.cnt), gen
	}
	h.segs = nil
}

func (h *phash) ownDir(gen uint64) {
	if h.own != gen {
		h.dir, h.gens, h.lds, h.cnt = slices.Clone(h.dir), slices.Clone(h.gens), slices.Clone(h.lds), slices.Clone(h.cnt)
		h.own = gen
	}
}

// setPage points the directory slots of the page at slot i at np, of
// depth ld holding n entries.
func (h *phash) setPage(i int, np []uint64, ld uint8, n int32, gen uint64) {
	h.ownDir(gen)
	start := h.first(i)
	for k := start; k < start+1<<(h.gd-h.lds[i]); k++ {
		h.dir[k], h.gens[k], h.lds[k] = np, gen, ld
	}
	h.cnt[start] = n
}

// put writes entry e at slot s of the page at directory slot i, copying
// the page first unless it belongs to gen; fresh says e is a new entry.
func (h *phash) put(i int, s uint32, e uint64, fresh bool, gen uint64) {
	if fresh {
		h.n++
	}
	if h.segs != nil {
		if h.own == gen {
			lo := i<<h.fk | int(s)
			h.segs[lo>>hsegBits][lo&hsegMask] = e
			if fresh {
				h.cnt[i]++
			}
			return
		}
		h.unflat(gen)
	}
	if h.gens[i] != gen {
		h.setPage(i, slices.Clone(h.dir[i]), h.lds[i], h.cnt[h.first(i)], gen)
	}
	h.dir[i][s] = e
	if fresh {
		h.cnt[h.first(i)]++
	}
}

// room reports whether the page at slot i can take one more entry. A flat
// hash doubles when it is four fifths full, or when one page is fifteen
// sixteenths full: its tags make a probe past other keys cheap (the slots
// are adjacent and only a matching tag reads the row), so a fuller table
// costs little time and saves a table's worth of memory on large
// relations. (A page of the directory form is kept at most half full.)
func (h *phash) room(i int) bool {
	if h.segs != nil {
		return (h.n+1)*5 <= 4*h.slots() && int(h.cnt[i]+1)*16 <= 15<<h.fk
	}
	return int(h.cnt[h.first(i)]+1)*2 <= len(h.dir[i])
}

func place(pg []uint64, e uint64) {
	mask := uint32(len(pg) - 1)
	for s := uint32(e>>32) & mask; ; s = (s + 1) & mask {
		if pg[s] == 0 {
			pg[s] = e
			return
		}
	}
}

// add inserts value v under tag; the caller knows no entry holds it.
func (h *phash) add(tag, v uint32, gen uint64) {
	e := uint64(tag)<<32 | uint64(v+1)
	for {
		i, pg := h.page(tag)
		if h.room(i) {
			mask := uint32(len(pg) - 1)
			s := tag & mask
			for pg[s] != 0 {
				s = (s + 1) & mask
			}
			h.put(i, s, e, true, gen)
			return
		}
		if h.segs != nil {
			if h.own == gen && h.gd < hmaxLD {
				h.regrow()
			} else {
				h.unflat(gen)
			}
			continue
		}
		ld := h.lds[i]
		if len(pg) < hpageMax || ld >= hmaxLD {
			np := make([]uint64, 2*len(pg))
			for _, x := range pg {
				if x != 0 {
					place(np, x)
				}
			}
			h.setPage(i, np, ld, h.cnt[h.first(i)], gen)
			continue
		}
		h.split(i, pg, gen)
	}
}

// regrow doubles a flat hash: its pages while they are smaller than
// hpageMax and than about three times the square root of the table, else
// the number of pages, each splitting by the next bit of its tags. The
// first write under another generation copies one page and the directory
// (some 37 bytes a page), and pages of that size keep the sum of the two
// near its least; pages of hpageMax from the start made a staged add copy
// 8 KB for every touched hash of a few thousand entries.
func (h *phash) regrow() {
	gd, fk := h.gd, h.fk
	if fk < hpageBits && fk < gd+3 {
		fk++
	} else {
		gd++
	}
	cnt := make([]int32, 1<<gd)
	size := 1 << (gd + fk)
	if size <= 1<<hsegBits {
		// One segment: build it anew (it is small).
		segs := [][]uint64{make([]uint64, size)}
		for _, x := range h.segs[0] {
			if x != 0 {
				placeFlat(segs, x, gd, fk, cnt)
			}
		}
		h.segs, h.cnt, h.gd, h.fk = segs, cnt, gd, fk
		return
	}
	// Old segment k holds pages whose new pages lie in segments 2k and
	// 2k+1: k is emptied into scratch and reused as 2k.
	// (The old table has at least one full segment, sizes being powers of
	// two.)
	segs := make([][]uint64, size>>hsegBits)
	scratch := make([]uint64, 1<<hsegBits)
	for k, seg := range h.segs {
		copy(scratch, seg)
		clear(seg)
		segs[2*k], segs[2*k+1] = seg, make([]uint64, 1<<hsegBits)
		for _, x := range scratch {
			if x != 0 {
				placeFlat(segs, x, gd, fk, cnt)
			}
		}
	}
	h.segs, h.cnt, h.gd, h.fk = segs, cnt, gd, fk
}

// placeFlat places entry x in the flat table segs of depth gd with pages
// of 1<<fk slots, counting it in cnt.
func placeFlat(segs [][]uint64, x uint64, gd, fk uint8, cnt []int32) {
	tag := uint32(x >> 32)
	p := int(tag >> (32 - uint(gd)))
	lo := p << fk
	o := lo & hsegMask
	pg := segs[lo>>hsegBits][o : o+1<<fk]
	mask := uint32(1)<<fk - 1
	s := tag & mask
	for pg[s] != 0 {
		s = (s + 1) & mask
	}
	pg[s] = x
	cnt[p]++
}

// split divides a full page by the next bit of its tags.
func (h *phash) split(i int, pg []uint64, gen uint64) {
	h.ownDir(gen)
	if h.lds[i] == h.gd {
		n := len(h.dir)
		nd, ng, nl, nc := make([][]uint64, 2*n), make([]uint64, 2*n), make([]uint8, 2*n), make([]int32, 2*n)
		for k := range n {
			nd[2*k], nd[2*k+1] = h.dir[k], h.dir[k]
			ng[2*k], ng[2*k+1] = h.gens[k], h.gens[k]
			nl[2*k], nl[2*k+1] = h.lds[k], h.lds[k]
			nc[2*k] = h.cnt[k]
		}
		h.dir, h.gens, h.lds, h.cnt = nd, ng, nl, nc
		h.gd++
		i *= 2
	}
	start := h.first(i)
	half := 1 << (h.gd - h.lds[i]) / 2
	ld := h.lds[i] + 1
	lo, hi := make([]uint64, hpageMax), make([]uint64, hpageMax)
	var nlo, nhi int32
	for _, x := range pg {
		switch {
		case x == 0:
		case uint32(x>>32)>>(32-uint(ld))&1 == 0:
			place(lo, x)
			nlo++
		default:
			place(hi, x)
			nhi++
		}
	}
	for k := start; k < start+2*half; k++ {
		h.dir[k], h.gens[k], h.lds[k] = lo, gen, ld
		if k >= start+half {
			h.dir[k] = hi
		}
	}
	h.cnt[start], h.cnt[start+half] = nlo, nhi
}
