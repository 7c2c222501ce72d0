// This file holds the interners of constants and predicate names to
// uint32 ids (literals have theirs, lits.go). Interners are append-only,
// so a model keeps reading the ids it was built with while its program
// goes on interning.

package datalog

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/deloreis/deloreis/base/hugemem"
)

// interner maps strings to dense uint32 ids. The ids are kept in an
// open-addressed table of uint32 (id+1 below, 0 empty) over the names,
// rather than a map from string to id: a map holds every string twice over
// (its key and names) and costs about 70 B per constant at scale, the table
// 16 B for the name and 5 to 11 B of slots, with no pointer in the slots
// for the collector to follow (DL-0314). The bits of a slot that id+1 does
// not need (the table has more slots than names) hold a tag of the name's
// hash, which spares a probe the names of most other slots it passes, each
// a cache miss or two in a large table (DL-0367). The names lie in
// segments that never move (nameSeg), so that growing copies none and
// leaves no slice of them half empty.
type interner struct {
	mu     sync.RWMutex
	seed   maphash.Seed
	slots  []uint32 // len a power of two, at most three quarters full
	idMask uint32   // the bits of a slot that hold id+1; the rest are the tag
	segs   [][]string
	n      int
}

// Name segments: nameGeoSegs of doubling size from nameFirst, then
// segments of 1<<nameSegBits names.
const (
	nameFirst   = 8
	nameSegBits = 16
	nameGeoSegs = nameSegBits - 3
	nameGeo     = nameFirst * (1<<nameGeoSegs - 1) // names in the doubling segments
)

// segLen is the length of segment k.
func segLen(k int) int {
	if k < nameGeoSegs {
		return nameFirst << k
	}
	return 1 << nameSegBits
}

// nameSeg returns the segment of name id and its place there.
func nameSeg(id uint32) (int, uint32) {
	if id < nameGeo {
		k := bits.Len32(id/nameFirst+1) - 1
		return k, id - nameFirst*(1<<k-1)
	}
	j := id - nameGeo
	return nameGeoSegs + int(j>>nameSegBits), j & (1<<nameSegBits - 1)
}

// nameList is the names of ids below n, as an interner held them; its
// segments are never written below n.
type nameList struct {
	segs [][]string
	n    int
}

// at returns the name of id.
func (l nameList) at(id uint32) string {
	k, o := nameSeg(id)
	return l.segs[k][o]
}

func (l nameList) len() int { return l.n }

// strings returns the names as one slice, a copy unless they lie in one
// segment; the caller must not write it.
func (l nameList) strings() []string {
	if l.n <= nameFirst {
		if l.n == 0 {
			return nil
		}
		return l.segs[0][:l.n:l.n]
	}
	out := make([]string, 0, l.n)
	for _, s := range l.segs {
		out = append(out, s[:min(len(s), l.n-len(out))]...)
	}
	return out
}

// name returns the name of id; the caller holds mu.
func (in *interner) name(id uint32) string {
	k, o := nameSeg(id)
	return in.segs[k][o]
}

func newInterner() *interner { return &interner{seed: maphash.MakeSeed()} }

// find returns the id of s, whose hash is h, or else the empty slot where
// it would go; the caller holds mu.
func (in *interner) find(s string, h uint64) (id uint32, ok bool, free int) {
	if len(in.slots) == 0 {
		return 0, false, -1
	}
	mask := uint64(len(in.slots) - 1)
	tag := uint32(h>>32) &^ in.idMask
	for i := h & mask; ; i = (i + 1) & mask {
		v := in.slots[i]
		if v == 0 {
			return 0, false, int(i)
		}
		if v&^in.idMask == tag && in.name(v&in.idMask-1) == s {
			return v&in.idMask - 1, true, 0
		}
	}
}

func (in *interner) hash(s string) uint64 { return maphash.String(in.seed, s) }

// slot is the slot value of id, whose name hashes to h.
func (in *interner) slot(id uint32, h uint64) uint32 {
	return uint32(h>>32)&^in.idMask | (id + 1)
}

// place files id, whose name hashes to h, in the table; the caller holds
// mu for writing.
func (in *interner) place(id uint32, h uint64) {
	mask := uint64(len(in.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		if in.slots[i] == 0 {
			in.slots[i] = in.slot(id, h)
			return
		}
	}
}

// intern returns the id of s, assigning the next one if s is new.
func (in *interner) intern(s string) uint32 {
	h := in.hash(s)
	in.mu.RLock()
	id, ok, _ := in.find(s, h)
	in.mu.RUnlock()
	if ok {
		return id
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.internLocked(s, h)
}

// internAll interns ss into out (as long), taking the lock once for the
// names already known, the common case, and once more for the rest.
func (in *interner) internAll(ss []string, out []uint32) {
	if len(ss) > 64 {
		for i, s := range ss {
			out[i] = in.intern(s)
		}
		return
	}
	var missing uint64
	in.mu.RLock()
	for i, s := range ss {
		id, ok, _ := in.find(s, in.hash(s))
		out[i] = id
		if !ok {
			missing |= 1 << i
		}
	}
	in.mu.RUnlock()
	if missing == 0 {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	for i, s := range ss {
		if missing&(1<<i) != 0 {
			out[i] = in.internLocked(s, in.hash(s))
		}
	}
}

// internBatch is how many names internMany looks up under one lock.
const internBatch = 32

// internMany interns ss into out (as long): internAll for the constants of
// many facts, the read lock taken once for internBatch names and the write
// lock once for those of them that were new.
func (in *interner) internMany(ss []string, out []uint32) {
	var hs [internBatch]uint64
	var missing [internBatch]bool
	for base := 0; base < len(ss); base += internBatch {
		batch := ss[base:min(base+internBatch, len(ss))]
		any := false
		for i, s := range batch {
			hs[i] = in.hash(s)
		}
		in.mu.RLock()
		in.warm(batch, hs[:len(batch)])
		for i, s := range batch {
			id, ok, _ := in.find(s, hs[i])
			out[base+i], missing[i] = id, !ok
			any = any || !ok
		}
		in.mu.RUnlock()
		if !any {
			continue
		}
		in.mu.Lock()
		for i, s := range batch {
			if missing[i] {
				out[base+i] = in.internLocked(s, hs[i])
			}
		}
		in.mu.Unlock()
	}
}

// warm loads, for a batch of names ss hashing to hs, each one's first
// byte, home slot and the name that slot holds, a pass for each before
// find compares any: the loads of one name then do not wait for
// another's, and their cache misses overlap (as findPlace's groups). At
// 10M declarations find was two fifths of lowering's CPU, three misses a
// name one after another. The caller holds mu.
func (in *interner) warm(ss []string, hs []uint64) {
	if len(in.slots) == 0 {
		return
	}
	mask := uint64(len(in.slots) - 1)
	var sink uint32
	for i, h := range hs {
		sink += in.slots[h&mask]
		if len(ss[i]) > 0 {
			sink += uint32(ss[i][0])
		}
	}
	for _, h := range hs {
		if v := in.slots[h&mask]; v != 0 && v&^in.idMask == uint32(h>>32)&^in.idMask {
			if n := in.name(v&in.idMask - 1); len(n) > 0 {
				sink += uint32(n[0])
			}
		}
	}
	runtime.KeepAlive(sink)
}

// internLocked interns s, whose hash is h; the caller holds mu for
// writing.
func (in *interner) internLocked(s string, h uint64) uint32 {
	id, ok, free := in.find(s, h)
	if ok {
		return id
	}
	id = uint32(in.n)
	k, o := nameSeg(id)
	if k == len(in.segs) {
		// Appending leaves the segments a snapshot holds where they are.
		in.segs = append(in.segs, make([]string, segLen(k)))
	}
	in.segs[k][o] = s
	in.n++
	if 4*in.n > 3*len(in.slots) {
		// A new table, filled anew: readers hold mu, so none sees it half built.
		in.slots = hugemem.Make[uint32](max(16, 2*len(in.slots))) // probed at random: huge pages spare the TLB
		// id+1 stays below the slots while the table is three quarters full.
		in.idMask = uint32(1<<bits.Len(uint(len(in.slots))) - 1)
		for i := range in.n {
			in.place(uint32(i), in.hash(in.name(uint32(i))))
		}
		return id
	}
	in.slots[free] = in.slot(id, h)
	return id
}

// lookup returns the id of s if it was interned.
func (in *interner) lookup(s string) (uint32, bool) {
	h := in.hash(s)
	in.mu.RLock()
	id, ok, _ := in.find(s, h)
	in.mu.RUnlock()
	return id, ok
}

// snapshot returns the names interned so far.
func (in *interner) snapshot() nameList {
	in.mu.RLock()
	defer in.mu.RUnlock()
	return nameList{segs: in.segs[:len(in.segs):len(in.segs)], n: in.n}
}

// packKey packs a predicate id and a tuple into a map key.
func packKey(pred uint32, args []uint32) string {
	b := make([]byte, 4+4*len(args))
	binary.LittleEndian.PutUint32(b, pred)
	for i, a := range args {
		binary.LittleEndian.PutUint32(b[4+4*i:], a)
	}
	return string(b)
}

// renderAtom renders pred(a, b). Constants that are not plain words (letters,
// digits and _ - : . / @ #) are Go-quoted so the rendering stays unambiguous.
func renderAtom(pred string, args []string) string {
	var b strings.Builder
	b.WriteString(pred)
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(renderConst(a))
	}
	b.WriteByte(')')
	return b.String()
}

func renderConst(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		plain := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			strings.ContainsRune("_-:./@#", r)
		if !plain {
			return strconv.Quote(s)
		}
	}
	return s
}
