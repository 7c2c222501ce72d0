package world

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// TestDiffStreamsInKeyOrder holds the streaming Diff to the diff of two
// grade maps over every atom of both worlds, for fresh compiles (no
// engine changes to read) of random worlds whose values are prefixes of
// one another or hold characters below the keys' ")" — where an order by
// arguments parts from the keys' order.
func TestDiffStreamsInKeyOrder(t *testing.T) {
	odd := []string{"a", "a!", "a b", "ab", "a'", "b", "a-b"}
	for seed := uint64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		objs := randomWorld(r)
		for i := 0; i < 6; i++ {
			objs = append(objs, fact("a", "p", odd[r.IntN(len(odd))], prop), fact([]string{"a", "ab"}[r.IntN(2)], "q", odd[r.IntN(len(odd))], prop))
		}
		cut := r.IntN(len(objs) + 1)
		tests := []struct {
			name          string
			before, after []objects.Object
		}{
			{"grow", objs[:cut], objs},
			{"shrink", objs, objs[:cut]},
			{"from nothing", nil, objs},
		}
		for _, tc := range tests {
			before := mustCompile(t, Input{Scope: "camelot", Base: entriesOf(t, tc.before)})
			after := mustCompile(t, Input{Scope: "camelot", Base: entriesOf(t, tc.after)})
			if _, known := before.changesTo(after); known {
				t.Fatalf("seed %d %s: two fresh compiles read as engine changes", seed, tc.name)
			}
			got := before.Diff(after)
			want := before.diffOf(after, before.grades(), after.grades())
			if g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want); g != w {
				t.Fatalf("seed %d %s: the streamed diff differs from the diff of every atom:\n--- got\n%s\n--- want\n%s", seed, tc.name, g, w)
			}
		}
	}
}

// TestEachConsequenceStops: yield returning false ends the stream.
func TestEachConsequenceStops(t *testing.T) {
	objs := randomWorld(rand.New(rand.NewPCG(3, 7)))
	before := mustCompile(t, Input{Scope: "camelot"})
	after := mustCompile(t, Input{Scope: "camelot", Base: entriesOf(t, objs)})
	all := len(before.Diff(after).GradeChanged)
	if all < 2 {
		t.Fatalf("only %d consequences: the test needs two", all)
	}
	n := 0
	before.EachConsequence(after, func(Consequence) bool { n++; return n < 2 })
	if n != 2 {
		t.Fatalf("yield was called %d times after asking to stop at 2 (of %d)", n, all)
	}
}

// TestTallyConsequences: the tally counts Diff's lists and keeps the first
// n of each in Diff's order, for fresh compiles (each world's atoms looked
// up in the other's) and for a staged world (the engine's changes).
func TestTallyConsequences(t *testing.T) {
	odd := []string{"a", "a!", "a b", "ab", "a'", "b"}
	for seed := uint64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		objs := randomWorld(r)
		for i := 0; i < 8; i++ {
			objs = append(objs, fact("a", "p", odd[r.IntN(len(odd))], prop))
		}
		cut := r.IntN(len(objs) + 1)
		base := mustCompile(t, Input{Scope: "camelot", Base: entriesOf(t, objs[:cut])})
		staged, err := base.Stage(objs[cut:], nil)
		if err != nil {
			t.Fatal(err)
		}
		pairs := []struct {
			name          string
			before, after *World
		}{
			{"grow", base, mustCompile(t, Input{Scope: "camelot", Base: entriesOf(t, objs)})},
			{"shrink", mustCompile(t, Input{Scope: "camelot", Base: entriesOf(t, objs)}), base},
			{"staged", base, staged},
		}
		for _, p := range pairs {
			d := p.before.Diff(p.after)
			for _, n := range []int{1, 2, 3, 1000} {
				got := p.before.TallyConsequences(p.after, n)
				var want []Consequence
				counts := map[datalog.Grade]int{}
				for _, c := range d.GradeChanged {
					if counts[c.After]++; counts[c.After] <= n {
						want = append(want, c)
					}
				}
				if fmt.Sprint(got.Counts) != fmt.Sprint(counts) || fmt.Sprintf("%+v", got.First) != fmt.Sprintf("%+v", want) {
					t.Fatalf("seed %d %s, n %d: tally %v %+v, want %v %+v", seed, p.name, n, got.Counts, got.First, counts, want)
				}
			}
		}
	}
}
