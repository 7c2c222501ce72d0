// This file holds the persistent containers that relations and fact sets
// are built from: a chunked vector and an extendible hash, both
// copy-on-write. Every container version belongs to a generation (a number
// from versionClock); a write under generation g copies the chunk, page or
// spine it touches unless that part already belongs to g. A model or
// program version writes under its own generation only while it is being
// built, so a new version shares every chunk and page the change did not
// touch with the version it came from, which stays valid and unchanged.

package datalog

import "slices"

// chunkShift sets the rows per chunk of a pvec (512); wideShift those of
// vectors of wide elements (supports, facts: 128).
const (
	chunkShift = 9
	wideShift  = 7
)

// pvec is a persistent vector of rows of stride elements, in chunks of
// 1<<shift rows (chunkShift, or less for wide elements, so that copying a
// chunk stays cheap). The last chunk grows by appending, so a small vector
// stays small. gens[c] is the generation that owns chunk c.
type pvec[T any] struct {
	chunks [][]T
	gens   []uint64
	own    uint64 // the generation that owns the chunks and gens slices
	stride int
	shift  uint8
	mask   uint32
}

func newPvec[T any](stride int, gen uint64) pvec[T] {
	return newPvecShift[T](stride, chunkShift, gen)
}

func newPvecShift[T any](stride int, shift uint8, gen uint64) pvec[T] {
	return pvec[T]{stride: stride, own: gen, shift: shift, mask: 1<<shift - 1}
}

// rows returns the number of rows.
func (p *pvec[T]) rows() int {
	if len(p.chunks) == 0 {
		return 0
	}
	last := len(p.chunks[len(p.chunks)-1])
	if p.stride > 1 {
		last /= p.stride
	}
	return (len(p.chunks)-1)<<p.shift + last
}

// get returns element i of a stride-1 vector.
func (p *pvec[T]) get(i uint32) T {
	return p.chunks[i>>p.shift][i&p.mask]
}

// at returns element i of a stride-1 vector by reference; the caller must
// not write through it.
func (p *pvec[T]) at(i uint32) *T {
	return &p.chunks[i>>p.shift][i&p.mask]
}

// slice returns row i (stride elements); the caller must not write it.
func (p *pvec[T]) slice(i uint32) []T {
	o := int(i&p.mask) * p.stride
	return p.chunks[i>>p.shift][o : o+p.stride : o+p.stride]
}

// ownSpine makes the chunks and gens slices gen's.
func (p *pvec[T]) ownSpine(gen uint64) {
	if p.own != gen {
		p.chunks, p.gens, p.own = slices.Clone(p.chunks), slices.Clone(p.gens), gen
	}
}

// owned returns chunk c, copied first unless it belongs to gen.
func (p *pvec[T]) owned(c int, gen uint64) []T {
	if p.gens[c] == gen && p.own == gen {
		return p.chunks[c]
	}
	p.ownSpine(gen)
	if p.gens[c] != gen {
		ch := p.chunks[c]
		v := make([]T, len(ch), max(cap(ch), len(ch)+p.stride))
		copy(v, ch)
		p.chunks[c], p.gens[c] = v, gen
	}
	return p.chunks[c]
}

// set writes element i of a stride-1 vector.
func (p *pvec[T]) set(i uint32, x T, gen uint64) {
	p.owned(int(i>>p.shift), gen)[i&p.mask] = x
}

// chunkCap is the initial capacity of chunk c: the first grows from small,
// the others are allocated whole.
func (p *pvec[T]) chunkCap(c int) int {
	if c == 0 {
		return 8 * max(p.stride, 1)
	}
	return (1 << p.shift) * max(p.stride, 1)
}

// push appends row i, which must be the row after the last one.
func (p *pvec[T]) push(i uint32, row []T, gen uint64) {
	c := int(i >> p.shift)
	if c == len(p.chunks) {
		p.ownSpine(gen)
		p.chunks = append(p.chunks, make([]T, 0, p.chunkCap(c)))
		p.gens = append(p.gens, gen)
	}
	p.chunks[c] = append(p.owned(c, gen), row...)
}

// push1 appends element i of a stride-1 vector.
func (p *pvec[T]) push1(i uint32, x T, gen uint64) {
	c := int(i >> p.shift)
	if c == len(p.chunks) {
		p.ownSpine(gen)
		p.chunks = append(p.chunks, make([]T, 0, p.chunkCap(c)))
		p.gens = append(p.gens, gen)
	}
	p.chunks[c] = append(p.owned(c, gen), x)
}

// Extendible hashing: a directory indexed by the top gd bits of a 32-bit
// tag points at pages; a page holds the entries whose tags share its top ld
// bits in an open-addressing table at most half full, probed linearly from
// the tag's low bits. A page about to pass half full doubles up to
// hpageMax slots, then splits in two (doubling the directory when ld = gd),
// so a write copies one page and at most the directory, never the whole
// table. An entry is tag<<32 | value+1, 0 when empty. A page's depth and
// entry count live beside the directory (at the first slot of its span),
// so that reading a page touches only the slots probed.
const (
	hpageMin = 8
	hpageMax = 1024
	hmaxLD   = 22 // past this depth a page grows instead of splitting
)

type phash struct {
	dir  [][]uint64
	gens []uint64 // by directory slot: the generation that owns its page
	lds  []uint8  // by directory slot: its page's local depth
	cnt  []int32  // by directory slot, at the first of a page's span: its entries
	own  uint64   // the generation that owns dir, gens, lds and cnt
	gd   uint8
}

func newPhash(gen uint64) phash {
	return phash{dir: [][]uint64{make([]uint64, hpageMin)}, gens: []uint64{gen}, lds: []uint8{0},
		cnt: []int32{0}, own: gen}
}

// page returns the directory slot and page of a tag.
func (h *phash) page(tag uint32) (int, []uint64) {
	i := int(tag >> (32 - uint(h.gd)))
	return i, h.dir[i]
}

// first returns the first directory slot of the span of slot i's page.
func (h *phash) first(i int) int { return i &^ (1<<(h.gd-h.lds[i]) - 1) }

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
	if h.gens[i] != gen {
		h.setPage(i, slices.Clone(h.dir[i]), h.lds[i], h.cnt[h.first(i)], gen)
	}
	h.dir[i][s] = e
	if fresh {
		h.cnt[h.first(i)]++
	}
}

// room reports whether the page at slot i can take one more entry.
func (h *phash) room(i int) bool { return int(h.cnt[h.first(i)]+1)*2 <= len(h.dir[i]) }

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
