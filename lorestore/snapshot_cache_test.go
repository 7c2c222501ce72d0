package lorestore

import (
	"testing"
)

// TestListingLeavesShardsUncached: reading a scope's claims whole leaves
// none of its shard trees in the store's cache (they hold an entry per
// object), the listing is the same read twice, and a Get of one claim
// caches the one shard it reads.
func TestListingLeavesShardsUncached(t *testing.T) {
	s, _ := newStore(t)
	commitFacts(t, s, "camelot", 0, 300)
	// A fresh handle: the commit's own trees are not in its cache.
	sn, err := s.Snapshot("main")
	if err != nil {
		t.Fatal(err)
	}
	s.cacheMu.Lock()
	clear(s.trees)
	s.cacheMu.Unlock()
	shards := func() int {
		s.cacheMu.Lock()
		defer s.cacheMu.Unlock()
		n := 0
		for _, es := range s.trees {
			shard := len(es) > 0
			for _, e := range es {
				shard = shard && !e.isTree() && len(e.name) == 64+len(".json")
			}
			if shard {
				n++ // a folder of object files: a shard
			}
		}
		return n
	}
	first, err := sn.Objects("camelot", Claims)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 300 {
		t.Fatalf("listed %d claims, want 300", len(first))
	}
	if n := shards(); n != 0 {
		t.Fatalf("the listing cached %d shards", n)
	}
	again, err := sn.Objects("camelot", Claims)
	if err != nil || len(again) != len(first) {
		t.Fatalf("second listing: %d claims, %v", len(again), err)
	}
	for i := range first {
		if first[i].ID != again[i].ID {
			t.Fatalf("claim %d differs between listings", i)
		}
	}
	if _, err := sn.Get("camelot", factID(t, 7)); err != nil {
		t.Fatal(err)
	}
	if n := shards(); n != 1 {
		t.Fatalf("a Get cached %d shards, want 1", n)
	}
}
