// A removal in a big DKE store rewrites one path of trees, not the store:
// the count of new tree objects is asserted, and the benchmarks measure a
// one-claim removal and a one-claim read over 100,000 claims.

package lorestore

import (
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// bigDKEStore makes a store whose default DKE store holds n Sensor
// claims, committed through one streaming batch; it returns their ids.
func bigDKEStore(tb testing.TB, n int) (*Store, string, []objects.ID) {
	tb.Helper()
	s, dir := newStore(tb)
	b := s.NewBatch()
	ids := make([]objects.ID, n)
	for i := range ids {
		id, err := b.PutDKEClaim("default", "Sensor", claimJSON("Sensor", i))
		if err != nil {
			tb.Fatal(err)
		}
		ids[i] = id
	}
	if _, err := s.Commit(b, NewMessage("bulk claims", "dke.run", ""), CommitOptions{}); err != nil {
		tb.Fatal(err)
	}
	return s, dir, ids
}

// newTrees counts the trees of cur that old does not hold at the same
// path: what a commit from old to cur had to write.
func newTrees(tb testing.TB, s *Store, old, cur Hash) int {
	tb.Helper()
	if old == cur || cur.IsZero() {
		return 0
	}
	var olds []treeEntry
	if !old.IsZero() {
		var err error
		if olds, err = s.readTree(old); err != nil {
			tb.Fatal(err)
		}
	}
	news, err := s.readTree(cur)
	if err != nil {
		tb.Fatal(err)
	}
	n := 1
	for _, e := range news {
		if !e.isTree() {
			continue
		}
		var sub Hash
		if oe, ok := findEntry(olds, e.name); ok && oe.isTree() {
			sub = oe.hash
		}
		n += newTrees(tb, s, sub, e.hash)
	}
	return n
}

func TestDKERemovalWritesDepthTrees(t *testing.T) {
	const n = 100_000
	s, dir, ids := bigDKEStore(t, n)
	// root, dke, default, claims, Sensor, the shard: the depth of a claim.
	const depth = 6
	tests := []struct {
		name  string
		make  func(*Store) *Batch
		edit  func(*Batch) error
		trees int
	}{
		{"memory-remove", batchMakers[0].make, func(b *Batch) error { return b.RemoveDKEClaim("default", "Sensor", ids[17]) }, depth},
		{"streaming-remove", batchMakers[1].make, func(b *Batch) error { return b.RemoveDKEClaim("default", "Sensor", ids[18]) }, depth},
		{"remove-and-add", batchMakers[1].make, func(b *Batch) error {
			_, err := b.PutDKEClaim("default", "Sensor", claimJSON("Sensor", n))
			if err != nil {
				return err
			}
			return b.RemoveDKEClaim("default", "Sensor", ids[19])
		}, depth + 1}, // a second shard, most likely; checked below
		{"replace-module", batchMakers[0].make, func(b *Batch) error { return b.PutModule("default", "m", moduleJSON("m", "x")) }, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			head, err := s.Head("main")
			must(t, err)
			b := tc.make(s)
			must(t, tc.edit(b))
			res := commitBatch(t, s, b, tc.name)
			pc, _ := s.readCommit(head)
			nc, _ := s.readCommit(res.Commit)
			want := tc.trees
			if tc.name == "remove-and-add" {
				if _, added := claimKey(t, "Sensor", n); added[0] == ids[19][0] {
					want = depth
				}
			}
			if got := newTrees(t, s, pc.tree, nc.tree); got != want {
				t.Fatalf("the commit wrote %d trees, want %d", got, want)
			}
		})
	}
	sn, _ := s.Snapshot("main")
	got, err := sn.DKEClaimIDs("default", "Sensor")
	if err != nil || len(got) != n-2 {
		t.Fatalf("%d claims after removing 3 and adding 1, want %d (%v)", len(got), n-2, err)
	}
	s.WaitBackground()
	fsckClean(t, dir)
}

func BenchmarkDKERemoveOne100k(b *testing.B) {
	s, _, ids := bigDKEStore(b, benchN(100_000))
	i := 0
	for b.Loop() {
		batch := NewBatch()
		if err := batch.RemoveDKEClaim("default", "Sensor", ids[i]); err != nil {
			b.Fatal(err)
		}
		i++
		res, err := s.Commit(batch, NewMessage("forget", "dke.run", ""), CommitOptions{})
		if err != nil || res.Empty {
			b.Fatal(err, res.Empty)
		}
	}
}

func BenchmarkDKEClaimRead100k(b *testing.B) {
	s, _, ids := bigDKEStore(b, benchN(100_000))
	i := 0
	for b.Loop() {
		sn, err := s.Snapshot("main")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := sn.DKEClaim("default", "Sensor", ids[i%len(ids)]); err != nil {
			b.Fatal(err)
		}
		i += 7919
	}
}
