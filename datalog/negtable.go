// This file holds the table that finds a negated atom's literal by its
// atom (DL-0384): open addressing over the literal table's own entries,
// in place of maps whose keys copied every atom.

package datalog

import "github.com/deloreis/deloreis/internal/hugemem"

// negTable maps negated atoms to their literal ids: slots of tag<<32 |
// id+1 (0 empty), probed linearly from the atom's hash, at most three
// quarters full. The tag (the hash's high half) spares a probe the
// literals of most other slots it passes; the atom itself is read from
// the literal. The hash depends on nothing but the atom, so the table is
// rebuilt from the literals alone (a snapshot does not hold it). The
// literal table's lock guards it.
type negTable struct {
	slots []uint64
	n     int
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

// findNeg returns the literal of pred(args), whose hash is h; the caller
// holds mu.
func (t *litTable) findNeg(pred uint32, args []uint32, h uint64) (uint32, bool) {
	slots := t.negs.slots
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
			k, o := nameSeg(id)
			if li := &t.segs[k][o]; li.pred == pred && equalVals(li.args, args) {
				return id, true
			}
		}
	}
}

// addNeg files literal id, of an atom of hash h the table lacks; the
// caller holds mu for writing.
func (t *litTable) addNeg(id uint32, h uint64) {
	if 4*(t.negs.n+1) > 3*len(t.negs.slots) {
		old := t.negs.slots
		t.negs.slots = hugemem.Make[uint64](max(64, 2*len(old))) // probed at random: huge pages spare the TLB
		for _, v := range old {
			if v != 0 {
				k, o := nameSeg(uint32(v) - 1)
				li := &t.segs[k][o]
				t.negs.place(uint32(v)-1, negHash(li.pred, li.args))
			}
		}
	}
	t.negs.place(id, h)
	t.negs.n++
}

func (t *negTable) place(id uint32, h uint64) {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		if t.slots[i] == 0 {
			t.slots[i] = h>>32<<32 | uint64(id+1)
			return
		}
	}
}
