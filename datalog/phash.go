// This file holds the persistent extendible hash that relations and their
// indexes are found through, copy-on-write by generation like pvec.

package datalog

import (
	"slices"

	"github.com/deloreis/deloreis/base/hugemem"
)

// Extendible hashing: a directory indexed by the top gd bits of a 32-bit
// tag points at pages; a page holds the entries whose tags share its top ld
// bits in an open-addressing table at most fifteen sixteenths full, probed
// linearly from the tag's low bits. A full page doubles up to hpageMax
// slots, then splits in two (doubling the directory when ld = gd). The
// directory is a persistent trie (trie.go) of pages, each page with its
// depth, entry count and owning generation, so a write under a new
// generation copies one page and one path of the trie, never the
// directory nor the table. An entry is tag<<32 | value+1, 0 when empty.
//
// A hash built by one generation from empty stays flat: all its pages have
// depth gd and 1<<fk slots and lie end to end, page i at slot i<<fk of a
// run cut into segments of 1<<hsegBits slots, so a probe needs only a
// lookup in a spine small enough to stay in cache, and growth doubles the
// table in one sequential pass instead of splitting page by page. The pass
// goes segment by segment and writes each segment's low half back into it
// (through one scratch page), so growing never holds the old and the
// new table at once nor leaves the old one as garbage: a large relation's
// hash costs its own size at peak. (It is the same page layout, so no
// entry moves when it stops being flat.) The first write under another
// generation, which must not touch the shared segments, cuts the flat
// form into the directory form (its pages views of the segments; the cut
// directory is kept for the next version staged from the same flat hash)
// and continues as above.
const (
	hpageMin  = 8
	hpageBits = 9
	hpageMax  = 1 << hpageBits
	hmaxLD    = 22 // past this depth a page grows instead of splitting
	hsegBits  = 16
	hsegMask  = 1<<hsegBits - 1
)

type phash struct {
	dir trie // directory form: by directory slot, its page
	gd  uint8
	n   int // entries

	// Flat form (see above): dir is empty, cnt is by page, own is the
	// generation that owns segs and cnt, and cache keeps the directory the
	// flat form was cut into. Every segment holds min(1<<hsegBits, all)
	// slots.
	segs  [][]uint64
	cnt   []int32
	own   uint64
	fk    uint8
	cache *trieCache[*hpage]
}

type trie = ptrie[*hpage]

// hpage is a page of the directory form: its slots, the generation that
// owns it (and may write it in place), its local depth and its entries.
type hpage struct {
	s   []uint64
	gen uint64
	ld  uint8
	n   int32
}

func newPhash(gen uint64) phash {
	return phash{segs: [][]uint64{make([]uint64, hpageMin)}, fk: 3, cnt: []int32{0}, own: gen, cache: new(trieCache[*hpage])}
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
	return i, (*h.dir.at(i)).s
}

// unflat cuts a flat hash into the directory form for writing under gen.
// The directory's pages are views of the segments, owned by the flat
// form's generation, so writing one copies it.
func (h *phash) unflat(gen uint64) {
	h.dir = h.cache.get([3]int{h.n, int(h.gd), int(h.fk)}, func() trie {
		pgs := make([]*hpage, len(h.cnt))
		for i := range pgs {
			pgs[i] = &hpage{s: h.flatPage(i), gen: h.own, ld: h.gd, n: h.cnt[i]}
		}
		return buildTrie(pgs, h.own)
	})
	h.segs, h.cnt, h.cache, h.own = nil, nil, nil, gen
}

// setPage points the directory slots of the span of page pg (at slot i,
// of depth pg.ld) at np, written under gen.
func (h *phash) setPage(i int, pg, np *hpage, gen uint64) {
	span := 1 << (h.gd - pg.ld)
	start := i &^ (span - 1)
	for k := start; k < start+span; k++ {
		*h.dir.ref(k, gen) = np
	}
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
	pg := *h.dir.at(i)
	if pg.gen != gen {
		np := &hpage{s: slices.Clone(pg.s), gen: gen, ld: pg.ld, n: pg.n}
		h.setPage(i, pg, np, gen)
		pg = np
	}
	pg.s[s] = e
	if fresh {
		pg.n++
	}
}

// room reports whether the page at slot i can take one more entry. A flat
// hash doubles when it is four fifths full, or when one page is fifteen
// sixteenths full: its tags make a probe past other keys cheap (the slots
// are adjacent and only a matching tag reads the row), so a fuller table
// costs little time and saves a table's worth of memory on large
// relations. A page of the directory form takes entries up to the same
// fifteen sixteenths: its pages come from a flat form (cut) that filled
// them so far, and a lower bound made a staged add split or double every
// page it wrote.
func (h *phash) room(i int) bool {
	if h.segs != nil {
		return (h.n+1)*5 <= 4*h.slots() && int(h.cnt[i]+1)*16 <= 15<<h.fk
	}
	pg := *h.dir.at(i)
	return int(pg.n+1)*16 <= 15*len(pg.s)
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
		dp := *h.dir.at(i)
		if len(pg) < hpageMax || dp.ld >= hmaxLD {
			np := &hpage{s: make([]uint64, 2*len(pg)), gen: gen, ld: dp.ld, n: dp.n}
			for _, x := range pg {
				if x != 0 {
					place(np.s, x)
				}
			}
			h.setPage(i, dp, np, gen)
			continue
		}
		h.split(i, dp, gen)
	}
}

// regrow doubles a flat hash: its pages while they are smaller than
// hpageMax and than about three times the square root of the table, else
// the number of pages, each splitting by the next bit of its tags. The
// first write under another generation copies one page and the directory
// (some 37 bytes a page), and pages of that size keep the sum of the two
// near its least; pages of hpageMax from the start made a staged add copy
// 8 KB for every touched hash of a few thousand entries.
func (h *phash) regrow() { h.regrowWith(nil) }

// regrowWith is regrow; each, when not nil, runs move(k, scratch) for
// every old segment k of a table past one segment, in any order and on
// any goroutines (segments move independently: old segment k fills new
// segments 2k and 2k+1, and their pages' counts), each goroutine with a
// scratch page of its own, hpageMax slots (parinsert.go).
func (h *phash) regrowWith(each func(n int, move func(k int, scratch []uint64))) {
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
	// 2k+1: k is reused as 2k. Its pages move last first, each through a
	// scratch page into the place of its new ones, which lies past every
	// old page not yet moved (new pages 2i and 2i+1, or page i doubled,
	// start at twice old page i's offset): the work stays within a few
	// pages in cache, where moving the segment through a scratch segment
	// missed the cache on every entry (DL-0493). The new pages are filled
	// in the old pages' slot order, as before. (The old table has at least
	// one full segment, sizes being powers of two.)
	segs := make([][]uint64, size>>hsegBits)
	// The new segments, 2k+1, are one block: large, it is backed by huge
	// pages (hugemem), where fresh 512 KiB segments faulted in 4 KiB at a
	// time cost about a fifth of a large evaluation's time. Each move
	// backs its own segment, so that the kernel's zeroing is shared
	// between the workers: backing the block before the moves left the
	// other core idle for a tenth of the TC grid's evaluation.
	odd := hugemem.MakeUnbacked[uint64](len(h.segs) << hsegBits)
	ps := 1 << h.fk
	move := func(k int, scratch []uint64) {
		seg := h.segs[k]
		segs[2*k], segs[2*k+1] = seg, odd[k<<hsegBits:(k+1)<<hsegBits:(k+1)<<hsegBits]
		hugemem.Back(segs[2*k+1])
		for lo := len(seg) - ps; lo >= 0; lo -= ps {
			old := seg[lo : lo+ps]
			copy(scratch, old)
			clear(old)
			for _, x := range scratch[:ps] {
				if x != 0 {
					placeFlat(segs, x, gd, fk, cnt)
				}
			}
		}
	}
	if each != nil {
		each(len(h.segs), move)
	} else {
		scratch := make([]uint64, hpageMax)
		for k := range h.segs {
			move(k, scratch)
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

// split divides a full page by the next bit of its tags, doubling the
// directory first when the page's depth is the directory's (rare: the
// directory's size doubles each time).
func (h *phash) split(i int, pg *hpage, gen uint64) {
	if pg.ld == h.gd {
		pgs := make([]*hpage, 2*h.dir.n)
		for k := range h.dir.n {
			pgs[2*k] = *h.dir.at(k)
			pgs[2*k+1] = pgs[2*k]
		}
		h.dir = buildTrie(pgs, gen)
		h.gd++
		i *= 2
	}
	span := 1 << (h.gd - pg.ld)
	start := i &^ (span - 1)
	ld := pg.ld + 1
	lo := &hpage{s: make([]uint64, hpageMax), gen: gen, ld: ld}
	hi := &hpage{s: make([]uint64, hpageMax), gen: gen, ld: ld}
	for _, x := range pg.s {
		switch {
		case x == 0:
		case uint32(x>>32)>>(32-uint(ld))&1 == 0:
			place(lo.s, x)
			lo.n++
		default:
			place(hi.s, x)
			hi.n++
		}
	}
	for k := start; k < start+span; k++ {
		np := lo
		if k >= start+span/2 {
			np = hi
		}
		*h.dir.ref(k, gen) = np
	}
}
