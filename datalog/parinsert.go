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
)

// parPart is one partition's scratch.
type parPart struct {
	seen   []uint32 // open addressing: batch index+1 of a new tuple
	ords   []uint32 // the partition's new tuples, by their order among all
	placed []parPlaced
	stop   int      // the first order the partition could not place
	ks     []uint32 // the partition's tuples, by batch index
	sink   uint32   // keeps the loads that only warm the cache
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
	isNew []bool
	fresh []uint32 // batch indexes of the new tuples, in order
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
	pbits := bits.Len(uint(2*len(workers) - 1)) // partitions: a power of two, at least twice the workers
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
	parDo(np, workers, func(_ int, _ *evaluator, q int) { parts[q].findNew(rel, x, len(tasks), np, q) })

	// Rows and data, in batch order.
	n0 := uint32(rel.n)
	x.fresh = x.fresh[:0]
	for q := range parts {
		parts[q].ords = parts[q].ords[:0]
	}
	for k, isNew := range x.isNew {
		if isNew {
			ord := uint32(len(x.fresh))
			x.fresh = append(x.fresh, uint32(k))
			p := &parts[x.tags[k]>>shift&uint32(np-1)]
			p.ords = append(p.ords, ord)
		}
	}
	e.pushRows(ci, rel, x, n0)

	// The hash.
	h := &rel.set
	hn0 := h.n
	for s := 0; s < len(x.fresh); {
		if h.segs == nil || h.own != rel.gen || h.gd < uint8(pbits) {
			// Not split (yet): the next row alone.
			h.add(x.tags[x.fresh[s]], n0+uint32(s), rel.gen)
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
			x.grow(h, x.tags[x.fresh[stop]], rel.gen, workers)
			h.add(x.tags[x.fresh[stop]], n0+uint32(stop), rel.gen)
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
	a := rel.arity
	for i, k := range x.fresh {
		rel.data.push(n0+uint32(i), x.tup[int(k)*a:int(k+1)*a], rel.gen)
	}
	rel.n += len(x.fresh)
	rel.live += len(x.fresh)
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
	p.ks = p.ks[:0]
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
			x.isNew[k] = false
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
				x.isNew[k] = true
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
