package datalog

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPtabPersistent holds every version of a ptab to what was written to
// it under random pushes, sets and clones (a clone moves its source to a
// new generation, as Program.Clone does): a write to one version never
// shows in another, at sizes that cross the trie's levels.
func TestPtabPersistent(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start int // elements of the first version (ptabOf)
		steps int
	}{
		{"empty", 0, 3000},
		{"one level", 20, 2000},
		{"three levels", 1500, 3000},
		{"grown", -1, 2000}, // built by grow from empty
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, uint64(tc.steps)))
			type version struct {
				tab  ptab[int]
				want []int
				gen  uint64
			}
			first := version{gen: versionClock.Add(1)}
			switch {
			case tc.start > 0:
				first.want = make([]int, tc.start)
				for i := range first.want {
					first.want[i] = r.IntN(1000)
				}
				first.tab = ptabOf(first.want, first.gen)
			case tc.start < 0:
				first.tab.grow(1200, -1, first.gen)
				first.want = slices.Repeat([]int{-1}, 1200)
			}
			vs := []*version{&first}
			for step := range tc.steps {
				v := vs[r.IntN(len(vs))]
				switch k := r.IntN(10); {
				case k < 2:
					c := &version{tab: v.tab.clone(), want: slices.Clone(v.want), gen: versionClock.Add(1)}
					v.gen = versionClock.Add(1)
					vs = append(vs, c)
				case k < 6 || len(v.want) == 0:
					x := r.IntN(1000)
					v.tab.push(x, v.gen)
					v.want = append(v.want, x)
				default:
					i, x := r.IntN(len(v.want)), r.IntN(1000)
					v.tab.set(i, x, v.gen)
					v.want[i] = x
				}
				if step%97 != 0 && step != tc.steps-1 {
					continue
				}
				for n, v := range vs {
					var got []int
					for i, x := range v.tab.all() {
						if i != len(got) {
							t.Fatalf("step %d, version %d: all() gives index %d after %d elements", step, n, i, len(got))
						}
						got = append(got, x)
					}
					if v.tab.len() != len(v.want) || !slices.Equal(got, v.want) {
						t.Fatalf("step %d, version %d: %d elements %v, want %d %v", step, n, v.tab.len(), got, len(v.want), v.want)
					}
					for i, x := range v.want {
						if v.tab.at(i) != x {
							t.Fatalf("step %d, version %d: at(%d) = %d, want %d", step, n, i, v.tab.at(i), x)
						}
					}
				}
			}
		})
	}
}

// TestPtabAllStops: all() stops when its caller does.
func TestPtabAllStops(t *testing.T) {
	tab := ptabOf(slices.Repeat([]int{1}, 5000), versionClock.Add(1))
	n := 0
	for i := range tab.all() {
		if i == 2100 {
			break
		}
		n++
	}
	if n != 2100 {
		t.Fatalf("all() yielded %d before the break, want 2100", n)
	}
}
