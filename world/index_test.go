package world

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// TestSortEntries holds sortEntries to a plain sort on the shapes a world
// meets: sorted, a sorted base with a short tail (an advanced world's
// file), a tail repeating ids of the base, a tail longer than the merge
// takes, and no order at all.
func TestSortEntries(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	id := func() objects.ID {
		var x objects.ID
		for i := range x {
			x[i] = byte(rng.Uint32())
		}
		return x
	}
	sortedIDs := func(n int) []Entry {
		es := make([]Entry, n)
		for i := range es {
			es[i].ID = id()
		}
		slices.SortFunc(es, byID)
		return es
	}
	cases := []struct {
		name string
		es   []Entry
	}{
		{"empty", nil},
		{"one", sortedIDs(1)},
		{"sorted", sortedIDs(5000)},
		{"short tail", append(sortedIDs(5000), sortedIDs(40)...)},
		{"tail of runs", append(append(sortedIDs(5000), sortedIDs(30)...), sortedIDs(30)...)},
		{"tail below all", append(sortedIDs(5000), Entry{})},
		{"long tail", append(sortedIDs(2000), sortedIDs(1500)...)},
		{"shuffled", func() []Entry {
			es := sortedIDs(3000)
			rng.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
			return es
		}()},
	}
	withRepeats := append(sortedIDs(3000), Entry{})
	withRepeats[len(withRepeats)-1] = Entry{ID: withRepeats[1234].ID, Staged: true}
	cases = append(cases, struct {
		name string
		es   []Entry
	}{"repeated id", withRepeats})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := slices.Clone(c.es)
			slices.SortStableFunc(want, byID)
			got := slices.Clone(c.es)
			sortEntries(got)
			if !slices.EqualFunc(got, want, func(a, b Entry) bool { return a.ID == b.ID }) {
				t.Fatalf("not sorted like a plain sort (%d entries)", len(got))
			}
		})
	}
}
