// The delta-base cache: a bounded, lock-free, direct-mapped cache of
// objects recently used as delta bases, keyed by (pack, offset).

package odb

import (
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
)

const (
	defaultCacheBytes = 64 << 20
	cacheSlots        = 4096 // power of two
)

type cacheEntry struct {
	pack uint64
	off  uint64
	typ  plumbing.ObjectType
	data []byte // never modified once cached
}

// baseCache holds at most limit bytes of object data (approximately: a
// race between two puts may overshoot by one entry).
type baseCache struct {
	table atomic.Pointer[cacheTable] // made by the first put: most commands never read a delta
	bytes atomic.Int64
	limit int64
}

type cacheTable [cacheSlots]atomic.Pointer[cacheEntry]

// slots is the table, made on first use when create is set; else nil until then.
func (c *baseCache) slots(create bool) *cacheTable {
	t := c.table.Load()
	if t == nil && create {
		c.table.CompareAndSwap(nil, new(cacheTable))
		t = c.table.Load()
	}
	return t
}

func newBaseCache(limit int64) *baseCache {
	return &baseCache{limit: limit}
}

func cacheSlot(pack, off uint64) uint64 {
	x := off*0x9e3779b97f4a7c15 ^ pack*0xc2b2ae3d27d4eb4f
	return (x ^ x>>29) & (cacheSlots - 1)
}

func (c *baseCache) get(pack, off uint64) *cacheEntry {
	if c == nil {
		return nil
	}
	t := c.slots(false)
	if t == nil {
		return nil
	}
	e := t[cacheSlot(pack, off)].Load()
	if e != nil && e.pack == pack && e.off == off {
		return e
	}
	return nil
}

// put caches data as the object at (pack, off); the caller must not modify
// data afterwards.
func (c *baseCache) put(pack, off uint64, typ plumbing.ObjectType, data []byte) {
	if c == nil || int64(len(data)) > c.limit/8 {
		return
	}
	t := c.slots(true)
	i := cacheSlot(pack, off)
	slot := &t[i]
	old := slot.Load()
	grow := int64(len(data))
	if old != nil {
		grow -= int64(len(old.data))
	}
	// When full, evict the neighbouring slots to make room.
	for k := uint64(1); k <= 8 && grow > 0 && c.bytes.Load()+grow > c.limit; k++ {
		if e := t[(i+k)&(cacheSlots-1)].Swap(nil); e != nil {
			c.bytes.Add(-int64(len(e.data)))
		}
	}
	if grow > 0 && c.bytes.Load()+grow > c.limit {
		return
	}
	if slot.CompareAndSwap(old, &cacheEntry{pack: pack, off: off, typ: typ, data: data}) {
		c.bytes.Add(grow)
	}
}
