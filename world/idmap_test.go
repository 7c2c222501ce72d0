package world

import (
	"math/rand/v2"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// TestIDIndexAgainstMap runs random inserts and deletes on the persistent
// id index and on a map, checks every version against its map, and checks
// that older versions never change.
func TestIDIndexAgainstMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var pool []objects.ID
	for i := 0; i < 600; i++ {
		var id objects.ID
		for j := range id {
			id[j] = byte(r.UintN(256))
		}
		if i%50 == 0 && len(pool) > 0 { // ids sharing long prefixes push the trie deep
			id = pool[len(pool)-1]
			id[31] ^= byte(i)
		}
		pool = append(pool, id)
	}
	type version struct {
		x idIndex
		m map[objects.ID]*Entry
	}
	x := buildIDIndex(map[objects.ID]*Entry{})
	m := map[objects.ID]*Entry{}
	var versions []version
	for step := 0; step < 3000; step++ {
		id := pool[r.IntN(len(pool))]
		if r.IntN(3) == 0 {
			x = x.without([]objects.ID{id})
			delete(m, id)
		} else {
			e := &Entry{ID: id}
			x = x.with([]*Entry{e})
			m[id] = e
		}
		if step%100 == 0 {
			mc := make(map[objects.ID]*Entry, len(m))
			for k, v := range m {
				mc[k] = v
			}
			versions = append(versions, version{x, mc})
		}
	}
	versions = append(versions, version{x, m})
	for i, v := range versions {
		if v.x.n != len(v.m) {
			t.Fatalf("version %d: %d entries, map has %d", i, v.x.n, len(v.m))
		}
		seen := 0
		for id, e := range v.x.each() {
			if v.m[id] != e {
				t.Fatalf("version %d: each yields %x not in the map", i, id[:4])
			}
			seen++
		}
		if seen != len(v.m) {
			t.Fatalf("version %d: each yields %d, want %d", i, seen, len(v.m))
		}
		for _, id := range pool {
			e, ok := v.x.get(id)
			if me, mok := v.m[id]; ok != mok || e != me {
				t.Fatalf("version %d: get %x = %v,%v; map %v,%v", i, id[:4], e, ok, me, mok)
			}
		}
	}
	built := buildIDIndex(m)
	for _, id := range pool {
		a, aok := built.get(id)
		b, bok := x.get(id)
		if aok != bok || a != b {
			t.Fatal("a built index differs from the one grown step by step")
		}
	}
}
