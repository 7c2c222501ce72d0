// This file holds the decoder's string cache: the members whose values
// repeat from object to object (keys, entity references, provenance) are
// looked up in a small fixed table before a new string is made, so that a
// million facts of seven keys citing one decision hold seven key strings
// and one decisions set, not a million of each (DL-0337).

package objects

import (
	"slices"
	"sync"
)

// The cache is direct-mapped, internShards×internSlots strings, each shard
// under its own lock (decoding runs in parallel). A miss overwrites the
// slot, so what it holds is bounded and recent; nothing else is kept.
const (
	internShards = 128
	internSlots  = 64
	maxInterned  = 64 // longer values are not expected to repeat
)

type internShard struct {
	mu   sync.Mutex
	strs [internSlots]string
	sets [internSlots][]string // decision sets, by the hash of their members
}

var internTab [internShards]internShard

// intern returns string(b), the same string as an earlier call's when the
// cache still holds it.
func intern(b []byte) string {
	if len(b) == 0 || len(b) > maxInterned {
		return string(b)
	}
	h := uint64(fnvOffset)
	for _, c := range b {
		h = (h ^ uint64(c)) * fnvPrime
	}
	sh := &internTab[h%internShards]
	i := h / internShards % internSlots
	sh.mu.Lock()
	s := sh.strs[i]
	if s != string(b) {
		s = string(b)
		sh.strs[i] = s
	}
	sh.mu.Unlock()
	return s
}

// FNV-1a: the values are short, and a hash this simple is cheaper than
// the lookup it spares.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// internSet returns a slice equal to ss (which the caller may reuse), the
// same as an earlier call's when the cache still holds it. Its capacity is
// its length, so that an append to it copies: the slice is shared by
// every object that decoded it, and nobody writes to it.
func internSet(ss []string) []string {
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
	sh := &internTab[h%internShards]
	i := h / internShards % internSlots
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if c := sh.sets[i]; slices.Equal(c, ss) {
		return c
	}
	c := slices.Clip(slices.Clone(ss))
	sh.sets[i] = c
	return c
}
