package author

import (
	"context"
	"reflect"
	"testing"

	"github.com/deloreis/deloreis/dli"
)

// TestImportListsTheFirstOfEachKind: an import lists every consequence in
// every list by default (the wire's form); with Listed n > 0 the first n
// of each kind, in the same order, and with a negative Listed every one
// of each kind, both without GradeChanged; the counts are of every atom
// either way — over a head's world and compiled in one pass.
func TestImportListsTheFirstOfEachKind(t *testing.T) {
	const text = `scope camelot
decision canon-1 "The Vulgate cycle."
person galahad "Galahad"    cited canon-1 ratified
person lancelot "Lancelot"  cited canon-1 ratified
person mordred "Mordred"    proposed session-7c9
place logres "Logres"       proposed session-7c9
galahad.father = lancelot   cited canon-1 ratified
serves(galahad, logres)     cited canon-1 ratified
serves(mordred, logres)     proposed session-7c9
rule knight: knight(X) :- serves(X, Y)   proposed session-7c9
rule lone: lone(X) :- person(X), not serves(X, logres)   proposed session-7c9
`
	grail, err := dli.Parse("grail.dli", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		doc  *dli.Document
	}{
		{"staged onto the head", grail},
		{"compiled in one pass", personsDoc(t, bigStage+10, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "camelot")
			imp := func(listed int) ImportResult {
				res, err := h.svc.Import(context.Background(), ImportRequest{Doc: tc.doc, Listed: listed})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			all := imp(0).Consequences
			n := ConsequenceCounts{NewlyCertain: len(all.NewlyCertain), Possible: len(all.Possible), Dead: len(all.Dead), Conflicts: len(all.Conflicts)}
			if n.Moved() != len(all.GradeChanged) || max(n.NewlyCertain, n.Possible, n.Dead) < 3 {
				t.Fatalf("every consequence: %+v, %d grade changes", n, len(all.GradeChanged))
			}
			first := func(cs []Consequence, k int) []Consequence { return cs[:min(k, len(cs))] }
			for _, listed := range []int{-1, 1, 2} {
				res := imp(listed)
				c, k := res.Consequences, listed
				if k < 0 {
					k = n.Moved()
				}
				if res.Counts != n {
					t.Errorf("Listed %d: counts %+v, want %+v", listed, res.Counts, n)
				}
				if !reflect.DeepEqual(c.NewlyCertain, first(all.NewlyCertain, k)) || !reflect.DeepEqual(c.Possible, first(all.Possible, k)) ||
					!reflect.DeepEqual(c.Dead, first(all.Dead, k)) || len(c.GradeChanged) != 0 || !reflect.DeepEqual(c.Conflicts, all.Conflicts) {
					t.Errorf("Listed %d: %+v, want the first %d of each kind of %+v and no grade changes", listed, c, k, all)
				}
			}
		})
	}
}
