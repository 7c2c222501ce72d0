// The batch's rules for the dke/ namespace: the later of a put and a
// removal of one file wins, removing what is not there changes nothing,
// a removed store goes whole, and merges take removals three-way.

package lorestore

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/deloreis/deloreis/internal/testenv"
	"github.com/deloreis/deloreis/objects"
)

// dkeState is the default store at a revision: module sources by name and
// claim ids by kind, as "Kind/id" and "module:name=source" strings.
func dkeState(t *testing.T, s *Store, rev string) []string {
	t.Helper()
	sn, err := s.Snapshot(rev)
	must(t, err)
	var out []string
	mods, err := sn.Modules("default")
	must(t, err)
	for name, data := range mods {
		out = append(out, "module:"+name+"="+string(data))
	}
	cs, err := sn.DKEClaims("default", "")
	must(t, err)
	for _, c := range cs {
		out = append(out, c.Kind+"/"+c.ID.String()[:8])
	}
	slices.Sort(out)
	return out
}

func canonModule(t *testing.T, name, source string) string {
	t.Helper()
	c, err := canonicalEnvelope("", moduleJSON(name, source), "name", name)
	must(t, err)
	return "module:" + name + "=" + string(c)
}

func claimKey(t *testing.T, kind string, n int) (string, objects.ID) {
	t.Helper()
	c, err := canonicalEnvelope("", claimJSON(kind, n), "kind", kind)
	must(t, err)
	id := objects.ID(sumID(c))
	return kind + "/" + id.String()[:8], id
}

// putClaim is a batch call putting claim n of kind in the default store.
func putClaim(n int, kind string) func(*Batch) error {
	return func(b *Batch) error { _, err := b.PutDKEClaim("default", kind, claimJSON(kind, n)); return err }
}

// dkeOrderCase is one TestDKEBatchOrder case: batch calls in order, and
// the default store they leave.
type dkeOrderCase struct {
	name  string
	calls []func(*Batch) error // on a store holding claim 1 and module m = "old"
	want  []string
	empty bool // the commit changes nothing
}

// dkeOrderCases are TestDKEBatchOrder's cases: puts and removals of one
// claim, of one module and of the whole store, in either order.
func dkeOrderCases(t *testing.T) []dkeOrderCase {
	t.Helper()
	c1, id1 := claimKey(t, "Sensor", 1)
	c2, _ := claimKey(t, "Sensor", 2)
	c3, _ := claimKey(t, "Room", 3)
	return []dkeOrderCase{
		{"put-then-remove-claim", []func(*Batch) error{putClaim(2, "Sensor"), func(b *Batch) error {
			_, id := claimKey(t, "Sensor", 2)
			return b.RemoveDKEClaim("default", "Sensor", id)
		}}, []string{c1, canonModule(t, "m", "old")}, true},
		{"remove-then-put-claim", []func(*Batch) error{func(b *Batch) error { return b.RemoveDKEClaim("default", "Sensor", id1) }, putClaim(1, "Sensor")},
			[]string{c1, canonModule(t, "m", "old")}, true},
		{"remove-put-remove-claim", []func(*Batch) error{func(b *Batch) error { return b.RemoveDKEClaim("default", "Sensor", id1) }, putClaim(1, "Sensor"),
			func(b *Batch) error { return b.Remove(dkeClaimFile("Sensor", id1)) }}, []string{canonModule(t, "m", "old")}, false},
		{"put-module-twice", []func(*Batch) error{
			func(b *Batch) error { return b.PutModule("default", "m", moduleJSON("m", "a")) },
			func(b *Batch) error { return b.PutModule("default", "m", moduleJSON("m", "b")) },
		}, []string{c1, canonModule(t, "m", "b")}, false},
		{"put-then-remove-module", []func(*Batch) error{
			func(b *Batch) error { return b.PutModule("default", "m", moduleJSON("m", "a")) },
			func(b *Batch) error { return b.RemoveModule("default", "m") },
		}, []string{c1}, false},
		{"remove-then-put-module", []func(*Batch) error{
			func(b *Batch) error { return b.RemoveModule("default", "m") },
			func(b *Batch) error { return b.PutModule("default", "m", moduleJSON("m", "a")) },
		}, []string{c1, canonModule(t, "m", "a")}, false},
		{"same-module-again", []func(*Batch) error{
			func(b *Batch) error { return b.PutModule("default", "m", moduleJSON("m", "old")) },
		}, []string{c1, canonModule(t, "m", "old")}, true},
		{"remove-missing-is-no-change", []func(*Batch) error{
			func(b *Batch) error { return b.RemoveModule("default", "nosuch") },
			func(b *Batch) error { return b.RemoveDKEClaim("default", "Nokind", id1) },
			func(b *Batch) error { return b.RemoveDKEClaim("other", "Sensor", id1) },
			func(b *Batch) error {
				return b.Remove("scopes/camelot/claims/" + id1.String()[:2] + "/" + id1.String() + ".json")
			},
		}, []string{c1, canonModule(t, "m", "old")}, true},
		{"remove-store", []func(*Batch) error{putClaim(2, "Sensor"), func(b *Batch) error { return b.RemoveDKEStore("default") }}, nil, false},
		{"remove-store-then-put", []func(*Batch) error{func(b *Batch) error { return b.RemoveDKEStore("default") }, putClaim(3, "Room")}, []string{c3}, false},
		{"put-after-remove-store-kept", []func(*Batch) error{func(b *Batch) error { return b.RemoveDKEStore("default") }, putClaim(1, "Sensor"), putClaim(2, "Sensor")},
			[]string{c1, c2}, false},
	}
}

func TestDKEBatchOrder(t *testing.T) {
	tests := dkeOrderCases(t)
	for _, mk := range batchMakers {
		for _, tc := range tests {
			t.Run(mk.name+"/"+tc.name, func(t *testing.T) {
				s, dir := newStore(t)
				b := NewBatch()
				must(t, putClaim(1, "Sensor")(b))
				must(t, b.PutModule("default", "m", moduleJSON("m", "old")))
				commitBatch(t, s, b, "base")
				b = mk.make(s)
				for _, call := range tc.calls {
					must(t, call(b))
				}
				res := commitBatch(t, s, b, tc.name)
				if res.Empty != tc.empty {
					t.Fatalf("empty = %v, want %v", res.Empty, tc.empty)
				}
				want := slices.Sorted(slices.Values(tc.want))
				if got := dkeState(t, s, "main"); !slices.Equal(got, want) {
					t.Fatalf("state %v, want %v", got, want)
				}
				if !tc.empty && len(tc.want) == 0 {
					sn, _ := s.Snapshot("main")
					if stores, err := sn.DKEStores(); err != nil || len(stores) != 0 {
						t.Fatalf("a removed store is still listed: %v %v", stores, err)
					}
				}
				s.WaitBackground()
				fsckClean(t, dir)
			})
		}
	}
}

// TestDKEMergeTakesRemovals: a removal on one side stays removed in the
// merge; a side that emptied a shard merges with a side that added to
// it; two different new contents of one module are a conflict.
func TestDKEMergeTakesRemovals(t *testing.T) {
	_, id1 := claimKey(t, "Sensor", 1)
	tests := []struct {
		name      string
		main      func(*Batch) error
		side      func(*Batch) error
		wantOK    bool
		wantClaim bool // claim 1 survives the merge
	}{
		{"removed-on-side", func(b *Batch) error { return b.PutModule("default", "other", moduleJSON("other", "")) },
			func(b *Batch) error { return b.RemoveDKEClaim("default", "Sensor", id1) }, true, false},
		{"removed-on-main", func(b *Batch) error { return b.RemoveDKEClaim("default", "Sensor", id1) },
			func(b *Batch) error { return b.PutModule("default", "other", moduleJSON("other", "")) }, true, false},
		{"emptied-shard-vs-added-kind", func(b *Batch) error { return b.RemoveDKEStore("default") },
			func(b *Batch) error { _, err := b.PutDKEClaim("default", "Room", claimJSON("Room", 5)); return err }, true, false},
		{"module-both-changed", func(b *Batch) error { return b.PutModule("default", "m", moduleJSON("m", "main")) },
			func(b *Batch) error { return b.PutModule("default", "m", moduleJSON("m", "side")) }, false, true},
		{"module-changed-vs-removed", func(b *Batch) error { return b.PutModule("default", "m", moduleJSON("m", "main")) },
			func(b *Batch) error { return b.RemoveModule("default", "m") }, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, dir := newStore(t)
			b := NewBatch()
			_, err := b.PutDKEClaim("default", "Sensor", claimJSON("Sensor", 1))
			must(t, err)
			must(t, b.PutModule("default", "m", moduleJSON("m", "old")))
			commitBatch(t, s, b, "base")
			if _, err := s.CreateBranch("side", ""); err != nil {
				t.Fatal(err)
			}
			b = NewBatch()
			must(t, tc.side(b))
			if _, err := s.Commit(b, NewMessage("side", "dke.run", ""), CommitOptions{Branch: "side"}); err != nil {
				t.Fatal(err)
			}
			b = NewBatch()
			must(t, tc.main(b))
			commitBatch(t, s, b, "main")
			_, err = s.Merge("side", MergeOptions{})
			var me *MergeError
			if tc.wantOK != (err == nil) || !tc.wantOK && !errors.As(err, &me) {
				t.Fatalf("merge: %v, want ok=%v", err, tc.wantOK)
			}
			if !tc.wantOK {
				return
			}
			sn, _ := s.Snapshot("main")
			_, err = sn.DKEClaim("default", "Sensor", id1)
			if got := err == nil; got != tc.wantClaim {
				t.Fatalf("claim 1 after merge: %v", err)
			}
			if ps, err := s.Fsck(); err != nil || len(ps) != 0 {
				t.Fatalf("fsck: %v %v", ps, err)
			}
			s.WaitBackground()
			fsckClean(t, dir)
		})
	}
}

// TestDKESpentBatch: a streaming batch takes no DKE call after Commit.
func TestDKESpentBatch(t *testing.T) {
	s, _ := newStore(t)
	b := s.NewBatch()
	must(t, b.PutModule("default", "m", moduleJSON("m", "")))
	commitBatch(t, s, b, "m")
	calls := map[string]error{
		"put-module":   b.PutModule("default", "m", moduleJSON("m", "")),
		"remove":       b.Remove(dkeClaimFile("Sensor", objects.ID{})),
		"remove-store": b.RemoveDKEStore("default"),
		"remove-mod":   b.RemoveModule("default", "m"),
		"remove-claim": b.RemoveDKEClaim("default", "Sensor", objects.ID{}),
	}
	_, calls["put-claim"] = b.PutDKEClaim("default", "Sensor", claimJSON("Sensor", 1))
	for name, err := range calls {
		if !errors.Is(err, ErrBatchSpent) {
			t.Errorf("%s on a spent batch: %v", name, err)
		}
	}
}

// TestDKERemovalOnMovedBranch: a removal written on a branch that moved
// since it was read is rebased (the claim another writer removed first is
// no change) unless the writer asked to refuse.
func TestDKERemovalOnMovedBranch(t *testing.T) {
	_, id1 := claimKey(t, "Sensor", 1)
	_, id2 := claimKey(t, "Sensor", 2)
	for _, refuse := range []bool{false, true} {
		t.Run(fmt.Sprint("refuse=", refuse), func(t *testing.T) {
			s, dir := newStore(t)
			b := NewBatch()
			for _, n := range []int{1, 2} {
				_, err := b.PutDKEClaim("default", "Sensor", claimJSON("Sensor", n))
				must(t, err)
			}
			base := commitBatch(t, s, b, "base")
			b = NewBatch()
			must(t, b.RemoveDKEClaim("default", "Sensor", id1))
			commitBatch(t, s, b, "another writer forgets claim 1")
			s.WaitBackground()
			before := testenv.Branches(t, dir)
			b = NewBatch()
			must(t, b.RemoveDKEClaim("default", "Sensor", id1))
			must(t, b.RemoveDKEClaim("default", "Sensor", id2))
			_, err := s.Commit(b, NewMessage("forget both", "dke.run", ""), CommitOptions{Parent: base.Commit, Refuse: refuse})
			if refuse {
				if !errors.Is(err, ErrStale) {
					t.Fatalf("got %v, want ErrStale", err)
				}
				testenv.SameBranches(t, "the refused commit", before, testenv.Branches(t, dir))
				return
			}
			must(t, err)
			if got := dkeState(t, s, "main"); len(got) != 0 {
				t.Fatalf("after the rebased removal: %v", got)
			}
		})
	}
}
