// This file holds the name set the entry checks ask whether a name is in
// scope (DL-0526). A map lookup of a name in a world of millions costs
// three cache misses one after another (the map's control word, its slot,
// the stored name's bytes); the entry checks made one per reference, 9.6 s
// of the 10M first compile's CPU. The set answers a batch of names at
// once, in waves: the slots of every name of the batch are loaded, then
// the candidates' bytes, then compared, so that the misses of a wave
// overlap instead of following one another.

package world

import (
	"hash/maphash"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/deloreis/deloreis/base/hugemem"
)

// nameSet is a set of names built once and then only read, by any number
// of goroutines: an open-addressed table whose slot holds a name's tag
// (the top 32 bits of its hash) and length plus one, 0 for an empty slot,
// and where the name's bytes are. A query loads its slot, then the bytes:
// two misses, where a map's slot holds a string whose bytes lie elsewhere
// again.
type nameSet struct {
	slots []nameSlot
	mask  uint64
	seed  maphash.Seed
}

// nameSlot is one slot of a nameSet.
type nameSlot struct {
	meta uint64 // tag<<32 | len+1; 0 when empty
	p    *byte
}

func (e *nameSlot) name() string { return unsafe.String(e.p, uint32(e.meta)-1) }

// nameBatch is the most names hasEach answers at once.
const nameBatch = 64

// newNameSet returns the set of names. A name given twice is filed twice,
// which changes no answer. The names are filed on every core, each slot
// taken by a compare-and-swap of its meta, so where a name lands depends
// on the timing but what the set answers does not.
func newNameSet(names []string) *nameSet {
	size := 16
	for size < 2*len(names) {
		size <<= 1
	}
	s := &nameSet{slots: hugemem.Make[nameSlot](size), mask: uint64(size - 1), seed: maphash.MakeSeed()}
	procs := max(1, min(runtime.GOMAXPROCS(0), len(names)/minEntryCheckRun))
	var wg sync.WaitGroup
	for k := range procs {
		wg.Go(func() { s.fileEach(names[len(names)*k/procs : len(names)*(k+1)/procs]) })
	}
	wg.Wait()
	return s
}

// fileEach files names a batch at a time: every home slot of a batch is
// loaded before any is taken, so that the loads' misses overlap.
func (s *nameSet) fileEach(names []string) {
	var hs [nameBatch]uint64
	var first [nameBatch]uint64
	for len(names) > 0 {
		b := names[:min(len(names), nameBatch)]
		names = names[len(b):]
		for i, q := range b {
			hs[i] = maphash.String(s.seed, q)
			first[i] = atomic.LoadUint64(&s.slots[hs[i]&s.mask].meta)
		}
		for i, q := range b {
			s.file(q, hs[i], first[i])
		}
	}
}

// file puts q, of hash h, in the first empty slot from its home slot on,
// whose meta was first when last loaded. Only the goroutine whose swap
// took the slot writes its bytes, and nobody reads them while names are
// filed.
func (s *nameSet) file(q string, h, first uint64) {
	if uint64(len(q)) >= 1<<32-1 {
		panic("world: a name of 4 GiB")
	}
	meta := h>>32<<32 | uint64(len(q)+1)
	for p := h & s.mask; ; p = (p + 1) & s.mask {
		if first == 0 && atomic.CompareAndSwapUint64(&s.slots[p].meta, 0, meta) {
			s.slots[p].p = unsafe.StringData(q)
			return
		}
		first = atomic.LoadUint64(&s.slots[(p+1)&s.mask].meta)
	}
}

// has reports whether the set holds q, of hash h.
func (s *nameSet) has(q string, h uint64) bool {
	meta := h>>32<<32 | uint64(len(q)+1)
	for p := h & s.mask; s.slots[p].meta != 0; p = (p + 1) & s.mask {
		if e := &s.slots[p]; e.meta == meta && e.name() == q {
			return true
		}
	}
	return false
}

// hasEach sets out[i] to whether the set holds qs[i], for up to nameBatch
// names.
func (s *nameSet) hasEach(qs []string, out []bool) {
	var hs [nameBatch]uint64
	var cand [nameBatch]*nameSlot
	var first [nameBatch]uint64
	qs = qs[:min(len(qs), nameBatch)]
	for i, q := range qs { // wave one: the names' home slots
		hs[i] = maphash.String(s.seed, q)
		first[i] = s.slots[hs[i]&s.mask].meta
	}
	for i, q := range qs { // wave two: the first slot whose tag and length match, and its first byte
		cand[i], out[i] = nil, false
		if first[i] == 0 {
			continue
		}
		meta := hs[i]>>32<<32 | uint64(len(q)+1)
		for p := hs[i] & s.mask; ; p = (p + 1) & s.mask {
			e := &s.slots[p]
			if e.meta == 0 {
				break
			}
			if e.meta == meta {
				cand[i] = e
				out[i] = len(q) == 0 || *e.p == q[0]
				break
			}
		}
	}
	for i, q := range qs { // wave three: compare, and past a slot that held another name, probe on
		if cand[i] == nil {
			continue
		}
		out[i] = out[i] && cand[i].name() == q || s.has(q, hs[i])
	}
}
