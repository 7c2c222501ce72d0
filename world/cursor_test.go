package world

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// TestEntryCursor: a cursor reads from any start what at reads, across a
// lazy base, the vector's leaves and its tail; it panics past the end.
func TestEntryCursor(t *testing.T) {
	var base, rest []Entry
	for i := range 150 {
		f := &objects.Fact{Entity: fmt.Sprint("e-", i), Key: "k", Value: fmt.Sprint(i), Provenance: objects.Proposed("s")}
		id, err := f.ID()
		if err != nil {
			t.Fatal(err)
		}
		if i < 70 {
			base = append(base, Entry{ID: id, Object: f})
		} else {
			rest = append(rest, Entry{ID: id, Object: f, Staged: true})
		}
	}
	lz := newLazyEntries(newMemBase(t, base))
	for _, v := range []entryVec{
		entryVecOf(pvecAdopt(append(append([]Entry(nil), base...), rest...))),
		{lz: lz, rest: pvecAdopt(rest), n: len(base) + len(rest)},
	} {
		for _, from := range []int{0, 1, 31, 32, 33, 69, 70, 71, 101, 102, 149} {
			c := v.cursor(from)
			for i := from; i < v.n; i++ {
				if got, want := c.next(), v.at(i); got.ID != want.ID || got.Staged != want.Staged || !reflect.DeepEqual(got.Object, want.Object) {
					t.Fatalf("lazy %v, from %d: entry %d reads %v, at reads %v", v.lz != nil, from, i, got, want)
				}
			}
			func() {
				defer func() {
					if recover() == nil {
						t.Fatalf("lazy %v, from %d: no panic past the end", v.lz != nil, from)
					}
				}()
				c.next()
			}()
		}
	}
}
