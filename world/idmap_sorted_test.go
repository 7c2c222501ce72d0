package world

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// TestIDIndexWithSorted: entries in id order built into a trie in one pass
// make the trie inserting them one at a time makes — the same nodes, the
// same count — over an empty or a full base, with ids sharing long
// prefixes; entries out of order, or an id twice, are inserted one at a
// time.
func TestIDIndexWithSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	randomID := func() objects.ID {
		var id objects.ID
		for j := range id {
			id[j] = byte(r.UintN(256))
		}
		return id
	}
	for _, tc := range []struct {
		name           string
		base, staged   int
		prefixed       bool // every fifth id shares all but its last byte with the one before
		shuffle, twice bool
	}{
		{"none", 0, 0, false, false, false},
		{"one", 0, 1, false, false, false},
		{"two", 10, 2, false, false, false},
		{"many", 0, 5000, false, false, false},
		{"many over a base", 300, 5000, false, false, false},
		{"long prefixes", 100, 3000, true, false, false},
		{"out of order", 0, 500, false, true, false},
		{"an id twice", 0, 500, false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ids []objects.ID
			for i := range tc.base + tc.staged {
				id := randomID()
				if tc.prefixed && i%5 == 0 && i > 0 {
					id = ids[i-1]
					id[31] ^= byte(i) | 1
				}
				ids = append(ids, id)
			}
			x, _ := sortedBase(ids[:tc.base])
			es := make([]*Entry, tc.staged)
			for i, id := range ids[tc.base:] {
				es[i] = &Entry{ID: id, Staged: true}
			}
			slices.SortFunc(es, func(a, b *Entry) int { return bytes.Compare(a.ID[:], b.ID[:]) })
			if tc.shuffle {
				r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
			}
			if tc.twice {
				es = slices.Insert(es, 10, &Entry{ID: es[10].ID})
			}
			got, want := x.withSorted(es), x.with(es)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("withSorted: %d entries, root %v; with: %d entries, root %v", got.n, got.root != nil, want.n, want.root != nil)
			}
			for _, e := range es {
				if g, ok := got.get(e.ID); !ok || g.ID != e.ID {
					t.Fatalf("id %x not found", e.ID[:4])
				}
			}
		})
	}
}
