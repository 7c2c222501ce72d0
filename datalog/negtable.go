// This file holds the tables that find a negated atom's literal by its
// atom (DL-0384): open addressing over the literal table's own entries,
// in place of maps whose keys copied every atom.

package datalog

import "github.com/deloreis/deloreis/base/hugemem"

// negTable maps negated atoms to their literal ids: slots of tag<<32 |
// id+1 (0 empty), probed linearly from the atom's hash, at most three
// quarters full and, once not empty, of at least 64 slots. The tag (the
// hash's high half) spares a probe the literals of most other slots it
// passes; the atom itself is read from the literal. The literal table's
// lock guards it.
//
// A literal table loaded from a snapshot has two: the snapshot's, of the
// literals it holds, read where it lies and never written (it may lie in
// a read-only mapping), and its own, of the literals interned since,
// empty until the first. Neither holds an atom the other does, so a
// session that interns a few negated atoms copies none of the loaded ones
// (DL-0399).
type negTable struct {
	slots []uint64
	n     int
}

// negMinSlots is the size of a table's first slots.
const negMinSlots = 64

// negSlotsFor is the number of slots addNeg gives a table of n atoms.
func negSlotsFor(n int) int {
	size := 0
	for 4*n > 3*size {
		size = max(negMinSlots, 2*size)
	}
	return size
}

// negHash hashes pred(args) as hashVals hashes pred followed by args.
func negHash(pred uint32, args []uint32) uint64 {
	h := uint64(0x9E3779B97F4A7C15)
	h = (h ^ uint64(pred)) * 0xbf58476d1ce4e5b9
	h ^= h >> 29
	for _, v := range args {
		h = (h ^ uint64(v)) * 0xbf58476d1ce4e5b9
		h ^= h >> 29
	}
	return h ^ h>>32
}

// negSlot is the slot of literal id, of an atom of hash h.
func negSlot(id uint32, h uint64) uint64 { return h>>32<<32 | uint64(id+1) }

// findNeg returns the literal of pred(args), whose hash is h; the caller
// holds mu.
func (t *litTable) findNeg(pred uint32, args []uint32, h uint64) (uint32, bool) {
	l := t.list()
	if id, ok := probeNeg(t.base.negs, &l, pred, args, h); ok {
		return id, true
	}
	return probeNeg(t.negs.slots, &l, pred, args, h)
}

// probeNeg looks pred(args), of hash h, up in slots.
func probeNeg(slots []uint64, l *litList, pred uint32, args []uint32, h uint64) (uint32, bool) {
	if len(slots) == 0 {
		return 0, false
	}
	mask := uint64(len(slots) - 1)
	tag := h >> 32
	for i := h & mask; ; i = (i + 1) & mask {
		v := slots[i]
		if v == 0 {
			return 0, false
		}
		if v>>32 == tag {
			id := uint32(v) - 1
			if li := l.at(id); li.pred == pred && sameVals(li.args, args) {
				return id, true
			}
		}
	}
}

func sameVals(a, b []uint32) bool { return len(a) == len(b) && equalVals(a, b) }

// addNeg files literal id, of an atom of hash h neither table holds; the
// caller holds mu for writing.
func (t *litTable) addNeg(id uint32, h uint64) {
	if 4*(t.negs.n+1) > 3*len(t.negs.slots) {
		old := t.negs.slots
		t.negs.slots = hugemem.Make[uint64](max(negMinSlots, 2*len(old))) // probed at random: huge pages spare the TLB
		l := t.list()
		for _, v := range old {
			if v != 0 {
				li := l.at(uint32(v) - 1)
				placeNeg(t.negs.slots, uint32(v)-1, negHash(li.pred, li.args))
			}
		}
	}
	placeNeg(t.negs.slots, id, h)
	t.negs.n++
}

func placeNeg(slots []uint64, id uint32, h uint64) {
	mask := uint64(len(slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		if slots[i] == 0 {
			slots[i] = negSlot(id, h)
			return
		}
	}
}

// negSlotsBelow returns one table of the negated literals below n, as a
// snapshot of them holds it: the loaded table or the table's own as they
// lie when either holds them all and nothing else, else a table made
// anew, as addNeg would have made it. The caller must not write it.
func (t *litTable) negSlotsBelow(n int) []uint64 {
	t.mu.RLock()
	defer t.mu.RUnlock()
	l := t.list()
	switch {
	case n == t.base.n && t.base.n > 0:
		return t.base.negs
	case t.base.n == 0 && n == t.n:
		return t.negs.slots
	}
	nneg := 0
	for id := range uint32(n) {
		if l.at(id).kind == litNeg {
			nneg++
		}
	}
	slots := make([]uint64, negSlotsFor(nneg))
	for id := range uint32(n) {
		if li := l.at(id); li.kind == litNeg {
			placeNeg(slots, id, negHash(li.pred, li.args))
		}
	}
	return slots
}
