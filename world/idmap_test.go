package world

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
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
	// A third of the pool is the base, in id order; the steps below add
	// to it, replace and remove its entries.
	x, m := sortedBase(pool[:len(pool)/3])
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
		var last objects.ID
		for id, e := range v.x.each() {
			if p := v.m[id]; p == nil || *p != e {
				t.Fatalf("version %d: each yields %x not in the map", i, id[:4])
			}
			if seen > 0 && bytes.Compare(last[:], id[:]) >= 0 {
				t.Fatalf("version %d: each yields %x after %x", i, id[:4], last[:4])
			}
			last = id
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
	var ids []objects.ID
	for id := range m {
		ids = append(ids, id)
	}
	built, bm := sortedBase(ids)
	for _, id := range pool {
		a, aok := built.get(id)
		b, bok := x.get(id)
		if aok != bok || aok && (a.ID != b.ID || bm[id] != a) {
			t.Fatal("an index built as a base differs from the one grown step by step")
		}
	}
}

// sortedBase is a base index of fresh entries of ids, and the same as a map.
func sortedBase(ids []objects.ID) (idIndex, map[objects.ID]*Entry) {
	ids = slices.SortedFunc(slices.Values(ids), func(a, b objects.ID) int { return bytes.Compare(a[:], b[:]) })
	ids = slices.Compact(ids)
	var v pvec[Entry]
	for _, id := range ids {
		v = v.append(Entry{ID: id})
	}
	m := map[objects.ID]*Entry{}
	for i := range ids {
		m[ids[i]] = v.ptr(i)
	}
	return baseIndex(entryVecOf(v), len(ids)), m
}

// TestIDSearchSkewed looks up every id of bases whose ids are far from
// evenly spread (the search interpolates on the leading bytes), and ids
// that are absent.
func TestIDSearchSkewed(t *testing.T) {
	for _, tc := range []struct {
		name string
		id   func(i int) objects.ID
	}{
		{"counting", func(i int) objects.ID { var id objects.ID; binary.BigEndian.PutUint64(id[:], uint64(i)); return id }},
		{"squares", func(i int) objects.ID {
			var id objects.ID
			binary.BigEndian.PutUint64(id[:], uint64(i*i*i)<<20)
			return id
		}},
		{"same prefix", func(i int) objects.ID {
			var id objects.ID
			id[0] = 0xff
			binary.BigEndian.PutUint64(id[24:], uint64(i)*3)
			return id
		}},
		{"extremes", func(i int) objects.ID {
			var id objects.ID
			if i%2 == 1 {
				id = objects.ID(bytes.Repeat([]byte{0xff}, 32))
			}
			id[15] = byte(i)
			return id
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ids []objects.ID
			for i := range 500 {
				ids = append(ids, tc.id(2*i))
			}
			x, m := sortedBase(ids)
			for i := range 1000 {
				id := tc.id(i)
				e, ok := x.get(id)
				if want, in := m[id]; ok != in || e != want {
					t.Fatalf("get %x: %v, %v; want %v, %v", id, e, ok, want, in)
				}
			}
		})
	}
}
