// This file merges the head tuples of a batch of parallel tasks without
// provenance (parallel.go), as the sequential evaluation would insert them
// one after another in task order, but with the hash work on every core.
// Inserting is most of a large round's time, and most of that is cache
// misses in the relation's hash, so the merge is split by the top bits of
// the tuples' hash tags (partitions own disjoint pages of a flat hash):
//
//  1. per partition, in parallel: which tuples are new, neither in the
//     relation nor earlier in the batch (a lookup, and a set of the
//     batch's own);
//  2. in one goroutine: the new tuples get their rows in batch order
//     (row numbers are the sequential ones) and their data;
//  3. per partition, in parallel: the new rows enter the hash, each
//     partition's in row order. A page's slots then hold what the
//     sequential inserts would leave, since only the order within a page
//     matters. Where the sequential run would grow the table (a page, or
//     the table, too full for the next row), every partition stops at
//     that row, takes back what it placed past it, newest first (which
//     leaves linear probing's table as it was), and the row is added
//     alone, growing the table, before the partitions go on.
//
// The hash's bytes are the sequential ones, so a snapshot is too
// (DL-0491).
//
// When the hash is flat, the relation's own and already split into the
// partitions (the usual case in a large evaluation), steps 1 and 3 are
// one (insertFlat): a partition places each new tuple in its page as it
// finds it, under a provisional value, so that each home slot is loaded
// once, not once to look and again to place; step 2 numbers the rows; and
// a last parallel step writes each placed entry's row and the rows' data.
// The provisional values keep the page's slots where the sequential
// inserts would put them, since a page's entries still come in row order.

package datalog

import (
	"math/bits"
	"slices"
)

const (
	// parInsertMin is the tuples of one relation in a batch below which
	// they are inserted one by one.
	parInsertMin = 2048
	// parGroup is the lookups whose first loads are issued together.
	parGroup = 16
	// parPartsPerWorker is the partitions of a large table's merge per
	// worker. The workers take partitions in turn, and a batch's merge
	// ends when the last is done, so a core slowed for a moment holds the
	// other idle for up to a partition at each step. With two a worker,
	// on two cores, the grid's TC took 4.39 s against 4.06 s with eight
	// (medians of eight interleaved pairs), and in a later run 4.04 s
	// against 4.02 s, slower in 9 of 10 pairs; no change on one core.
	parPartsPerWorker = 8
)

// parPart is one partition's scratch.
type parPart struct {
	seen   []uint32 // open addressing: batch index+1 of a new tuple
	ords   []uint32 // the partition's new tuples, by their order among all
	placed []parPlaced
	stop   int      // the first order the partition could not place
	stopK  uint32   // findPlace: the batch index it stopped placing at
	ks     []uint32 // the partition's tuples, by batch index
	newK   []uint32 // the batch indexes of its new tuples, in order
	sink   uint32   // keeps the loads that only warm the cache
	_      [64]byte // partitions lie side by side and run on different cores: off each other's cache lines
}

// parPlaced is an entry a partition placed in the hash.
type parPlaced struct {
	ord  uint32
	page int32
	slot uint32
}

// parIns is mergeSets' scratch, kept between batches.
type parIns struct {
	offs  []int // by task: its first tuple's index in the batch, -1 for another relation's
	tup   []uint32
	tags  []uint32
	isNew []bool   // by batch index: new (number sets it from the partitions' lists)
	fresh []uint32 // batch indexes of the new tuples, in order
	ord   []uint32 // by batch index: a new tuple's order among the new
	parts []parPart
	pk    [][]uint32 // by task, then partition: the batch indexes of the task's tuples in it

	scratch [][]uint64 // by worker: a page, for growing the hash
}

// mergeSets inserts the batch's head tuples in task order.
func (e *evaluator) mergeSets(tasks []parTask, workers []*evaluator) {
	for ci, rel := range e.cur {
		k := 0
		for i := range tasks {
			if tasks[i].out.ci == ci {
				k += len(tasks[i].out.tags)
			}
		}
		switch {
		case k == 0:
		case k < parInsertMin && parForceChunk.Load() == 0, rel.dead > 0, rel.hasPolys:
			e.insertSeq(ci, rel, tasks)
		default:
			e.insertPar(ci, rel, tasks, workers)
		}
	}
}

// insertSeq inserts relation ci's tuples one by one.
func (e *evaluator) insertSeq(ci int, rel *relation, tasks []parTask) {
	a := rel.arity
	for i := range tasks {
		o := &tasks[i].out
		if o.ci != ci {
			continue
		}
		for j := range o.tags {
			row, added := rel.insert(o.tup[j*a : (j+1)*a])
			if added && e.added != nil {
				e.added[ci] = append(e.added[ci], row)
			}
		}
	}
}

// insertPar inserts relation ci's tuples with the hash work split by
// partition (see the file comment).
func (e *evaluator) insertPar(ci int, rel *relation, tasks []parTask, workers []*evaluator) {
	if e.par.ins == nil {
		e.par.ins = &parIns{}
	}
	x := e.par.ins
	// Partitions: a power of two, at least two a worker, and up to
	// parPartsPerWorker as the table has pages to split among them.
	pbits := bits.Len(uint(2*len(workers) - 1))
	pbits = max(pbits, min(bits.Len(uint(parPartsPerWorker*len(workers)-1)), int(rel.set.gd)))
	np := 1 << pbits
	shift := 32 - uint(pbits)
	x.gather(ci, rel.arity, tasks, workers, np, shift)
	for len(x.parts) < np {
		x.parts = append(x.parts, parPart{})
	}
	parts := x.parts[:np]
	if cap(x.isNew) < len(x.tags) {
		x.isNew = make([]bool, len(x.tags))
	}
	x.isNew = x.isNew[:len(x.tags)]
	h := &rel.set
	n0 := uint32(rel.n)
	if h.segs != nil && h.own == rel.gen && h.gd >= uint8(pbits) {
		e.insertFlat(ci, rel, tasks, workers, np, shift)
		return
	}
	parDo(np, workers, func(_ int, _ *evaluator, q int) { parts[q].findNew(rel, x, len(tasks), np, q) })

	// Rows and data, in batch order.
	x.number(np)
	x.byPart(parts, shift)
	e.pushRows(ci, rel, x, n0)
	x.placeFrom(h, 0, h.n, n0, rel.gen, pbits, workers)
}

// number lists the batch's new tuples in order (fresh) and gives each its
// order (ord), from the lists of the first np partitions (newK): they
// list them apart, not in isNew, whose cache lines every partition's
// tuples share, so that written from two cores at once they went back and
// forth between them.
func (x *parIns) number(np int) {
	clear(x.isNew)
	for q := range x.parts[:np] {
		for _, k := range x.parts[q].newK {
			x.isNew[k] = true
		}
	}
	x.fresh = x.fresh[:0]
	x.ord = growU32(x.ord, len(x.isNew))
	for k, isNew := range x.isNew {
		if isNew {
			x.ord[k] = uint32(len(x.fresh))
			x.fresh = append(x.fresh, uint32(k))
		}
	}
}

// byPart lists each partition's new tuples by their orders.
func (x *parIns) byPart(parts []parPart, shift uint) {
	for q := range parts {
		parts[q].ords = parts[q].ords[:0]
	}
	np := uint32(len(parts))
	for ord, k := range x.fresh {
		p := &parts[x.tags[k]>>shift&(np-1)]
		p.ords = append(p.ords, uint32(ord))
	}
}

// placeFrom enters the new rows from order s on in hash h (hn0 entries
// before the batch's), partitions in parallel while the table is split
// into them, growing it where the sequential inserts would.
func (x *parIns) placeFrom(h *phash, s, hn0 int, n0 uint32, gen uint64, pbits int, workers []*evaluator) {
	np := 1 << pbits
	parts := x.parts[:np]
	for s < len(x.fresh) {
		if h.segs == nil || h.own != gen || h.gd < uint8(pbits) {
			// Not split (yet): the next row alone.
			h.add(x.tags[x.fresh[s]], n0+uint32(s), gen)
			s++
			continue
		}
		parDo(np, workers, func(_ int, _ *evaluator, q int) { parts[q].place(h, x, s, hn0, n0) })
		stop := len(x.fresh)
		for q := range parts {
			stop = min(stop, parts[q].stop)
		}
		for q := range parts {
			parts[q].undo(h, uint32(stop))
		}
		h.n = hn0 + stop
		parMerged.placed.Add(1)
		if stop < len(x.fresh) {
			parMerged.grown.Add(1)
			x.grow(h, x.tags[x.fresh[stop]], gen, workers)
			h.add(x.tags[x.fresh[stop]], n0+uint32(stop), gen)
			stop++
		}
		s = stop
	}
}

// gather puts relation ci's tuples of the batch end to end, in task
// order, each task's copied on a worker, which also lists the task's
// tuples by partition (np of them, a tag's top bits from shift on).
func (x *parIns) gather(ci, a int, tasks []parTask, workers []*evaluator, np int, shift uint) {
	x.offs = x.offs[:0]
	n := 0
	for i := range tasks {
		off := -1
		if o := &tasks[i].out; o.ci == ci {
			off = n
			n += len(o.tags)
		}
		x.offs = append(x.offs, off)
	}
	x.tup, x.tags = growU32(x.tup, n*a), growU32(x.tags, n)
	for len(x.pk) < len(tasks)*np {
		x.pk = append(x.pk, nil)
	}
	parDo(len(tasks), workers, func(_ int, _ *evaluator, i int) {
		pk := x.pk[i*np : (i+1)*np]
		for q := range pk {
			pk[q] = pk[q][:0]
		}
		if off := x.offs[i]; off >= 0 {
			o := &tasks[i].out
			copy(x.tags[off:], o.tags)
			copy(x.tup[off*a:], o.tup)
			for j, t := range o.tags {
				q := t >> shift
				pk[q] = append(pk[q], uint32(off+j))
			}
		}
	})
}

// grow grows flat hash h, owned by gen, as add(tag) would before placing
// tag, its segments moved on every worker; add then places the tag (or,
// past the flat form, grows it as it would).
func (x *parIns) grow(h *phash, tag uint32, gen uint64, workers []*evaluator) {
	for len(x.scratch) < len(workers) {
		x.scratch = append(x.scratch, make([]uint64, hpageMax))
	}
	each := func(n int, move func(k int, scratch []uint64)) {
		parDo(n, workers, func(w int, _ *evaluator, k int) { move(k, x.scratch[w]) })
	}
	for h.segs != nil && h.own == gen && h.gd < hmaxLD {
		if i, _ := h.page(tag); h.room(i) {
			return
		}
		if len(h.segs) > 1 || len(h.segs[0]) == 1<<hsegBits {
			parMerged.regrown.Add(1)
		}
		h.regrowWith(each)
	}
}

// pushRows gives the new tuples their rows, in order, and adds them to
// the relation's indexes.
func (e *evaluator) pushRows(ci int, rel *relation, x *parIns, n0 uint32) {
	e.pushData(rel, x, n0)
	e.pushIndex(ci, rel, x, n0)
}

// pushData gives the new tuples their rows, in order.
func (e *evaluator) pushData(rel *relation, x *parIns, n0 uint32) {
	a := rel.arity
	for i, k := range x.fresh {
		rel.data.push(n0+uint32(i), x.tup[int(k)*a:int(k+1)*a], rel.gen)
	}
	rel.n += len(x.fresh)
	rel.live += len(x.fresh)
}

// pushIndex adds the new rows to the relation's indexes (and to the
// round's added rows).
func (e *evaluator) pushIndex(ci int, rel *relation, x *parIns, n0 uint32) {
	if len(rel.idx) == 0 && e.added == nil {
		return
	}
	for i := range x.fresh {
		row := n0 + uint32(i)
		for _, ix := range rel.idx {
			ix.add(rel, row)
		}
		if e.added != nil {
			e.added[ci] = append(e.added[ci], row)
		}
	}
}

// findNew marks partition q's tuples (gather listed them by task) that
// are new: in neither the relation nor, earlier, the batch. The lookups
// go in groups whose first loads (the hash slot, then the row its entry
// names) are all issued before any is used, so that their cache misses
// overlap: one lookup at a time waits for each miss in turn, and the
// misses are most of the time.
func (p *parPart) findNew(rel *relation, x *parIns, ntasks, np, q int) {
	a := rel.arity
	p.ks, p.newK = p.ks[:0], p.newK[:0]
	for i := range ntasks {
		p.ks = append(p.ks, x.pk[i*np+q]...)
	}
	size := 1 << bits.Len(uint(2*len(p.ks)))
	if cap(p.seen) < size {
		p.seen = make([]uint32, size)
	}
	p.seen = p.seen[:size]
	clear(p.seen)
	mask := uint32(size - 1)
	h := &rel.set
	var first [parGroup]uint64
	for g := 0; g < len(p.ks); g += parGroup {
		ks := p.ks[g:min(g+parGroup, len(p.ks))]
		for j, k := range ks {
			t := x.tags[k]
			_, pg := h.page(t)
			first[j] = pg[t&uint32(len(pg)-1)]
		}
		if a > 0 {
			var sink uint32
			for j, k := range ks {
				if e := first[j]; e != 0 && uint32(e>>32) == x.tags[k] {
					sink += rel.row(uint32(e) - 1)[0]
				}
			}
			p.sink = sink
		}
		for _, k := range ks {
			t := x.tags[k]
			tup := x.tup[int(k)*a : int(k+1)*a]
			if _, ok := rel.lookupTag(tup, t); ok {
				continue
			}
			s := t & mask
			for ; p.seen[s] != 0; s = (s + 1) & mask {
				j := p.seen[s] - 1
				if x.tags[j] == t && equalVals(x.tup[int(j)*a:int(j+1)*a], tup) {
					break
				}
			}
			if p.seen[s] == 0 {
				p.seen[s] = k + 1
				p.newK = append(p.newK, k)
			}
		}
	}
}

// place puts the partition's new rows from order s on into the flat hash
// h, each where the sequential insert would, until one would make the
// sequential run grow the table; stop is that row's order.
func (p *parPart) place(h *phash, x *parIns, s int, hn0 int, n0 uint32) {
	p.placed, p.stop = p.placed[:0], len(x.fresh)
	i0, _ := slices.BinarySearch(p.ords, uint32(s))
	slots := h.slots()
	shift := 32 - uint(h.gd)
	for i := i0; i < len(p.ords); i++ {
		if (i-i0)%parGroup == 0 {
			// The group's home slots, loaded before any is written, as in
			// findNew (those the lookups loaded may have left the cache).
			var sink uint64
			for _, ord := range p.ords[i:min(i+parGroup, len(p.ords))] {
				tag := x.tags[x.fresh[ord]]
				slot := h.flatPage(int(tag >> shift))
				sink += slot[tag&uint32(len(slot)-1)]
			}
			p.sink += uint32(sink)
		}
		ord := p.ords[i]
		tag := x.tags[x.fresh[ord]]
		pg := int(tag >> shift)
		if (hn0+int(ord)+1)*5 > 4*slots || int(h.cnt[pg]+1)*16 > 15<<h.fk {
			p.stop = int(ord)
			return
		}
		slot := h.flatPage(pg)
		mask := uint32(len(slot) - 1)
		sl := tag & mask
		for slot[sl] != 0 {
			sl = (sl + 1) & mask
		}
		slot[sl] = uint64(tag)<<32 | uint64(n0+ord+1)
		h.cnt[pg]++
		p.placed = append(p.placed, parPlaced{ord: ord, page: int32(pg), slot: sl})
	}
}

// undo takes back the entries placed from order stop on, newest first.
func (p *parPart) undo(h *phash, stop uint32) {
	for len(p.placed) > 0 {
		pl := p.placed[len(p.placed)-1]
		if pl.ord < stop {
			break
		}
		h.flatPage(int(pl.page))[pl.slot] = 0
		h.cnt[pl.page]--
		p.placed = p.placed[:len(p.placed)-1]
	}
}

// insertFlat is insertPar on a flat hash owned by the relation's
// generation and split into the partitions (np of them, a tag's top bits
// from shift on): each partition places its new tuples in its pages as it
// finds them, so that each home slot is loaded once, under a provisional
// value (n0 + batch index + 1, past every row); once the rows are
// numbered, each partition writes the real values. A later tuple of the
// batch that finds a provisional entry compares with the batch's tuple.
// Where the sequential run would grow the table (the table, or a page, too
// full for the next row), the entries from that row on are taken back,
// newest first, and placeFrom goes on from there.
func (e *evaluator) insertFlat(ci int, rel *relation, tasks []parTask, workers []*evaluator, np int, shift uint) {
	x := e.par.ins
	parts := x.parts[:np]
	h := &rel.set
	n0, hn0 := uint32(rel.n), h.n
	parDo(np, workers, func(_ int, _ *evaluator, q int) { parts[q].findPlace(rel, x, len(tasks), np, q, n0) })

	x.number(np)
	// The first order the sequential run would not place without growing:
	// the table's four fifths, or a page's fifteen sixteenths.
	stop := max(h.slots()*4/5-hn0, 0)
	for q := range parts {
		if p := &parts[q]; p.stopK != ^uint32(0) {
			stop = min(stop, int(x.ord[p.stopK]))
		}
	}
	stop = min(stop, len(x.fresh))
	// The rows' data, written in parallel (each of np runs of orders on
	// one worker) when the vector is flat and the relation's own.
	d := &rel.data
	split := d.isFlat && d.own == rel.gen
	if split {
		d.extendFlat(len(x.fresh))
		rel.n += len(x.fresh)
		rel.live += len(x.fresh)
	} else {
		e.pushData(rel, x, n0)
	}
	parDo(np, workers, func(_ int, _ *evaluator, q int) {
		parts[q].settle(h, x, n0, uint32(stop))
		if split {
			nf := len(x.fresh)
			for ord := q * nf / np; ord < (q+1)*nf/np; ord++ {
				k := int(x.fresh[ord])
				copy(d.slice(n0+uint32(ord)), x.tup[k*rel.arity:(k+1)*rel.arity])
			}
		}
	})
	e.pushIndex(ci, rel, x, n0)
	h.n = hn0 + stop
	parMerged.placed.Add(1)
	parMerged.flat.Add(1)
	parMerged.flatKept.Add(int64(stop))
	if stop < len(x.fresh) {
		parMerged.flatGrown.Add(1)
		x.byPart(parts, shift)
		x.placeFrom(h, stop, hn0, n0, rel.gen, bits.Len(uint(np-1)), workers)
	}
}

// findPlace marks partition q's tuples that are new, as findNew, and
// places each new one in the flat hash under a provisional value (see
// insertFlat) until one would fill its page past what the sequential
// insert allows; past that one (stopK) it only marks them.
func (p *parPart) findPlace(rel *relation, x *parIns, ntasks, np, q int, n0 uint32) {
	a := rel.arity
	p.ks, p.newK = p.ks[:0], p.newK[:0]
	for i := range ntasks {
		p.ks = append(p.ks, x.pk[i*np+q]...)
	}
	p.placed, p.stopK = p.placed[:0], ^uint32(0)
	h := &rel.set
	shift := 32 - uint(h.gd)
	mask := uint32(1)<<h.fk - 1
	full := int32(15<<h.fk) / 16 // a page's most entries
	var first [parGroup]uint64
	for g := 0; g < len(p.ks); g += parGroup {
		ks := p.ks[g:min(g+parGroup, len(p.ks))]
		for j, k := range ks {
			t := x.tags[k]
			first[j] = h.flatPage(int(t >> shift))[t&mask]
		}
		if a > 0 {
			var sink uint32
			for j, k := range ks {
				if e := first[j]; e != 0 && uint32(e>>32) == x.tags[k] && uint32(e)-1 < n0 {
					sink += rel.row(uint32(e) - 1)[0]
				}
			}
			p.sink = sink
		}
		for _, k := range ks {
			t := x.tags[k]
			tup := x.tup[int(k)*a : int(k+1)*a]
			pg := int(t >> shift)
			slot := h.flatPage(pg)
			sl := t & mask
			found := false
			for ; slot[sl] != 0; sl = (sl + 1) & mask {
				e := slot[sl]
				if uint32(e>>32) != t {
					continue
				}
				var other []uint32
				if v := uint32(e) - 1; v < n0 {
					other = rel.row(v)
				} else {
					j := v - n0
					other = x.tup[int(j)*a : int(j+1)*a]
				}
				if equalVals(other, tup) {
					found = true
					break
				}
			}
			if found {
				continue
			}
			if p.stopK != ^uint32(0) {
				if p.seenNew(x, k, a) {
					p.newK = append(p.newK, k)
				}
				continue
			}
			if h.cnt[pg] >= full {
				p.stopK = k
				p.seen = p.seen[:0]
				p.seenNew(x, k, a)
				p.newK = append(p.newK, k)
				continue
			}
			slot[sl] = uint64(t)<<32 | uint64(n0+k+1)
			h.cnt[pg]++
			p.placed = append(p.placed, parPlaced{ord: k, page: int32(pg), slot: sl})
			p.newK = append(p.newK, k)
		}
	}
}

// seenNew adds batch tuple k to the partition's set of new tuples past
// stopK, reporting whether it was not there; the set is sized on first use.
func (p *parPart) seenNew(x *parIns, k uint32, a int) bool {
	if len(p.seen) == 0 {
		size := 1 << bits.Len(uint(2*len(p.ks)))
		if cap(p.seen) < size {
			p.seen = make([]uint32, size)
		}
		p.seen = p.seen[:size]
		clear(p.seen)
	}
	mask := uint32(len(p.seen) - 1)
	t := x.tags[k]
	tup := x.tup[int(k)*a : int(k+1)*a]
	s := t & mask
	for ; p.seen[s] != 0; s = (s + 1) & mask {
		j := p.seen[s] - 1
		if x.tags[j] == t && equalVals(x.tup[int(j)*a:int(j+1)*a], tup) {
			return false
		}
	}
	p.seen[s] = k + 1
	return true
}

// settle gives the entries findPlace placed their rows, those before
// order stop, and takes back the others, newest first.
func (p *parPart) settle(h *phash, x *parIns, n0, stop uint32) {
	i := 0
	for ; i < len(p.placed); i++ {
		pl := &p.placed[i]
		ord := x.ord[pl.ord]
		if ord >= stop {
			break
		}
		h.flatPage(int(pl.page))[pl.slot] = uint64(x.tags[pl.ord])<<32 | uint64(n0+ord+1)
	}
	for j := len(p.placed) - 1; j >= i; j-- {
		pl := p.placed[j]
		h.flatPage(int(pl.page))[pl.slot] = 0
		h.cnt[pl.page]--
	}
	p.placed = p.placed[:0]
}
