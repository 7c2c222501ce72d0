// This file holds the decoder's string cache: the members whose values
// repeat from object to object (keys, entity references, provenance) are
// looked up in a small fixed table before a new string is made, so that a
// million facts of seven keys citing one decision hold seven key strings
// and one decisions set, not a million of each (DL-0337).

package objects

import (
	"hash/maphash"
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

var (
	internSeed = maphash.MakeSeed()
	internTab  [internShards]internShard
)

// intern returns string(b), the same string as an earlier call's when the
// cache still holds it.
func intern(b []byte) string {
	if len(b) == 0 || len(b) > maxInterned {
		return string(b)
	}
	h := maphash.Bytes(internSeed, b)
	sh := &internTab[h%internShards]
	i := h / internShards % internSlots
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if s := sh.strs[i]; s == string(b) {
		return s
	}
	s := string(b)
	sh.strs[i] = s
	return s
}

// internSet returns a slice equal to ss (which the caller may reuse), the
// same as an earlier call's when the cache still holds it. Its capacity is
// its length, so that an append to it copies: the slice is shared by
// every object that decoded it, and nobody writes to it.
func internSet(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	var h maphash.Hash
	h.SetSeed(internSeed)
	for _, s := range ss {
		h.WriteString(s)
		h.WriteByte(0)
	}
	sum := h.Sum64()
	sh := &internTab[sum%internShards]
	i := sum / internShards % internSlots
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if c := sh.sets[i]; slices.Equal(c, ss) {
		return c
	}
	c := slices.Clip(slices.Clone(ss))
	sh.sets[i] = c
	return c
}
