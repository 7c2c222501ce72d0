package service

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/deloreis/deloreis/dke/claims"
)

func claimAt(kind, subject string, v string, at int64) claims.Claim {
	return claims.Claim{Cell: claims.Cell{Kind: kind, Subject: subject, Attr: "a"}, Value: claims.Str(v), Source: "s", At: at}
}

// TestRunStore checks the overlay: each commit a version that later
// snapshots see and earlier ones do not, the kinds and cells of base and
// overlay merged, and the net change set.
func TestRunStore(t *testing.T) {
	base := claims.NewMem()
	b0, _ := base.Snapshot()
	b1, b2 := claimAt("K", "b1", "x", 1), claimAt("L", "b2", "y", 2)
	if _, err := base.Commit(claims.ChangeSet{Base: b0.Version(), Clock: 2, Adds: []claims.Claim{b1, b2}}); err != nil {
		t.Fatal(err)
	}
	bs, _ := base.Snapshot()
	n1, n2 := claimAt("K", "n1", "p", 3), claimAt("M", "n2", "q", 4)
	cases := []struct {
		name    string
		sets    [][2][]claims.Claim // adds, removes of each commit
		kinds   []string
		cellsK  int
		adds    []claims.Claim
		removes []claims.Claim
		clock   int64
	}{
		{"nothing", nil, []string{"K", "L"}, 1, nil, nil, 2},
		{"adds", [][2][]claims.Claim{{{n1}, nil}, {{n2}, nil}}, []string{"K", "L", "M"}, 2, []claims.Claim{n1, n2}, nil, 4},
		{"remove a base claim", [][2][]claims.Claim{{nil, {b2}}}, []string{"K"}, 1, nil, []claims.Claim{b2}, 2},
		{"add then remove", [][2][]claims.Claim{{{n2}, nil}, {nil, {n2}}}, []string{"K", "L"}, 1, nil, nil, 4},
		{"remove then add again", [][2][]claims.Claim{{nil, {b1}}, {{b1}, nil}}, []string{"K", "L"}, 1, nil, nil, 2},
		{"mixed", [][2][]claims.Claim{{{n1}, {b1}}, {{n2}, nil}, {nil, {n1}}}, []string{"L", "M"}, 0, []claims.Claim{n2}, []claims.Claim{b1}, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs := newRunStore(bs)
			for i, set := range c.sets {
				before, _ := rs.Snapshot()
				clock := int64(0)
				for _, a := range set[0] {
					clock = max(clock, a.At)
				}
				v, err := rs.Commit(claims.ChangeSet{Base: before.Version(), Clock: clock, Adds: set[0], Removes: set[1]})
				if err != nil {
					t.Fatal(err)
				}
				if v != runVersion(i+1) {
					t.Errorf("commit %d made %s", i, v)
				}
				// The snapshot taken before the commit still sees its version.
				for _, a := range set[0] {
					if slices.ContainsFunc(before.Claims(a.Cell), func(x claims.Claim) bool { return sameClaim(x, a) }) && !slices.ContainsFunc(bs.Claims(a.Cell), func(x claims.Claim) bool { return sameClaim(x, a) }) {
						t.Errorf("an earlier snapshot sees %v", a)
					}
				}
				if _, err := rs.Commit(claims.ChangeSet{Base: before.Version()}); !errors.Is(err, claims.ErrConflict) {
					t.Errorf("a stale base: %v", err)
				}
			}
			s, _ := rs.Snapshot()
			if got := s.Kinds(); !slices.Equal(got, c.kinds) {
				t.Errorf("kinds %v, want %v", got, c.kinds)
			}
			if got := s.Cells("K"); len(got) != c.cellsK {
				t.Errorf("cells of K %v, want %d", got, c.cellsK)
			}
			if s.Clock() != c.clock {
				t.Errorf("clock %d, want %d", s.Clock(), c.clock)
			}
			set := rs.changes()
			if fmt.Sprint(set.Adds) != fmt.Sprint(c.adds) || fmt.Sprint(set.Removes) != fmt.Sprint(c.removes) {
				t.Errorf("net adds %v removes %v, want %v and %v", set.Adds, set.Removes, c.adds, c.removes)
			}
			if got := bs.Kinds(); !slices.Equal(got, []string{"K", "L"}) {
				t.Errorf("the base changed: %v", got)
			}
		})
	}
}
