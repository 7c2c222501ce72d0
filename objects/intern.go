// This file holds the decoder's string cache: the members whose values
// repeat from object to object (keys, entity references, provenance) are
// looked up in a small fixed table before a new string is made, so that a
// million facts of seven keys citing one decision hold a handful of key
// strings and decisions sets, not a million of each (DL-0337). Whole
// provenances are cached the same way, so that those million facts also
// point at one Provenance (DL-0352).

package objects

import "slices"

// internCache is direct-mapped: a miss overwrites the slot, so what it
// holds is bounded and recent. Each pooled decoder has its own (decoding
// runs in parallel, and a shared table's locks cost more than they save);
// a value is then held once per decoder that saw it, not once per object.
type internCache struct {
	strs  [1024]string
	sets  [256][]string   // decision sets, by the hash of their members
	provs [64]*Provenance // provenances, by the hash of their fields
	last  *Provenance     // the provenance internProv returned last
	raws  [4]rawProv      // the fast path's last provenances, by their text
	next  int             // the slot of raws to fill next
	refs  refTally        // the entity references looked up, and found
}

// refTally says whether the fast path looks up an object's entity
// references (refFields) in the cache. A scope of a million entities read
// in id order finds almost none there: each lookup hashed and compared the
// bytes and then made a string of its own, apart from the object's other
// strings. So once a window of refWindow lookups found fewer than one in
// refFound, the next refSkip objects' references share the allocation of
// the object's own strings, unlooked-up; then a window is tried again.
// What a decode returns is equal either way: only which strings share
// bytes differs.
type refTally struct {
	tries, found, skip int
}

const (
	refWindow = 1024
	refFound  = 8
	refSkip   = 16384
)

// refsLooked reports whether the next object's references are looked up,
// counting the objects that skip them.
func (c *internCache) refsLooked() bool {
	if c.refs.skip > 0 {
		c.refs.skip--
		return false
	}
	return true
}

// noteRef counts a reference looked up, and whether it was found.
func (c *internCache) noteRef(found bool) {
	t := &c.refs
	t.tries++
	if found {
		t.found++
	}
	if t.tries == refWindow {
		if t.found*refFound < t.tries {
			t.skip = refSkip
		}
		t.tries, t.found = 0, 0
	}
}

// rawProv is a provenance the fast path read (decode_fast.go): its
// canonical text, the interned provenance and whether it is valid.
type rawProv struct {
	text  string
	p     *Provenance
	valid bool
}

// rawLookup returns the provenance whose canonical text data[i:] starts
// with. A JSON object ends where its braces balance, so an input that
// starts with the whole text of one has that object there.
func (c *internCache) rawLookup(data []byte, i int) *rawProv {
	for k := range c.raws {
		if r := &c.raws[k]; r.p != nil && hasPrefix(data, i, r.text) {
			return r
		}
	}
	return nil
}

// rawStore remembers provenance p, valid or not, read from text.
func (c *internCache) rawStore(text []byte, p *Provenance, valid bool) {
	c.raws[c.next] = rawProv{string(text), p, valid}
	c.next = (c.next + 1) % len(c.raws)
}

// maxInterned is the longest value cached: longer ones are not expected
// to repeat.
const maxInterned = 64

// FNV-1a: the values are short, and a hash this simple is cheaper than
// the allocation it spares.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// intern returns string(b), the same string as an earlier call's when the
// cache still holds it.
func (c *internCache) intern(b []byte) string {
	s, _ := c.internFound(b)
	return s
}

// internFound is intern, reporting whether the cache held the string.
func (c *internCache) internFound(b []byte) (string, bool) {
	if len(b) == 0 || len(b) > maxInterned {
		return string(b), false
	}
	h := uint64(fnvOffset)
	for _, x := range b {
		h = (h ^ uint64(x)) * fnvPrime
	}
	slot := &c.strs[h%uint64(len(c.strs))]
	if *slot == string(b) {
		return *slot, true
	}
	*slot = string(b)
	return *slot, false
}

// internSet returns a slice equal to ss (which the caller may reuse), the
// same as an earlier call's when the cache still holds it. Its capacity is
// its length, so that an append to it copies: the slice is shared by
// every object that decoded it, and nobody writes to it.
func (c *internCache) internSet(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	h := uint64(fnvOffset)
	for _, s := range ss {
		h = hashString(h, s)
	}
	slot := &c.sets[h%uint64(len(c.sets))]
	if !slices.Equal(*slot, ss) {
		*slot = slices.Clip(slices.Clone(ss))
	}
	return *slot
}

// internProv returns a provenance equal to *p (which the caller may reuse),
// the same pointer as an earlier call's when the cache still holds it. The
// result is shared by every object that decoded it, and nobody writes to
// it (Provenance). Its strings and decision set are already interned, so
// they are shared as they are.
func (c *internCache) internProv(p *Provenance) *Provenance {
	// Objects read in a row mostly share one provenance: comparing with
	// the last, whose strings are those of p when it is the same, spares
	// the hashing.
	if q := c.last; q != nil && q.equal(p) {
		return q
	}
	h := uint64(fnvOffset)
	for _, s := range [...]string{string(p.Kind), p.Origin, p.Hyp, string(p.State)} {
		h = hashString(h, s)
	}
	for _, s := range p.Decisions {
		h = hashString(h, s)
	}
	slot := &c.provs[h%uint64(len(c.provs))]
	if q := *slot; q == nil || !q.equal(p) {
		q := *p
		*slot = &q
	}
	c.last = *slot
	return *slot
}

// hashString folds s, and the end of it, into the FNV-1a hash h.
func hashString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h * fnvPrime
}
