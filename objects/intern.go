// This file holds the decoder's string cache: the members whose values
// repeat from object to object (keys, entity references, provenance) are
// looked up in a small fixed table before a new string is made, so that a
// million facts of seven keys citing one decision hold a handful of key
// strings and decisions sets, not a million of each (DL-0337).

package objects

import "slices"

// internCache is direct-mapped: a miss overwrites the slot, so what it
// holds is bounded and recent. Each pooled decoder has its own (decoding
// runs in parallel, and a shared table's locks cost more than they save);
// a value is then held once per decoder that saw it, not once per object.
type internCache struct {
	strs [1024]string
	sets [256][]string // decision sets, by the hash of their members
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
	if len(b) == 0 || len(b) > maxInterned {
		return string(b)
	}
	h := uint64(fnvOffset)
	for _, x := range b {
		h = (h ^ uint64(x)) * fnvPrime
	}
	slot := &c.strs[h%uint64(len(c.strs))]
	if *slot != string(b) {
		*slot = string(b)
	}
	return *slot
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
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * fnvPrime
		}
		h *= fnvPrime // the end of a member
	}
	slot := &c.sets[h%uint64(len(c.sets))]
	if !slices.Equal(*slot, ss) {
		*slot = slices.Clip(slices.Clone(ss))
	}
	return *slot
}
