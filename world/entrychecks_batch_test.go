package world

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// TestEntryChecksInBatchesMatchOneByOne: the entry checks a compile runs
// (in batches over a nameSet, entryChecksIn) find what checking each
// entry on its own against the index finds, in the same order, over a
// world whose entries refer to names in scope and not, of every kind the
// checks read, across many batches.
func TestEntryChecksInBatchesMatchOneByOne(t *testing.T) {
	objs := []objects.Object{era("first-age")}
	for i := range 300 {
		p, x := fmt.Sprintf("p-%d", i), fmt.Sprintf("x-%d", i%40) // x-* are not in scope
		objs = append(objs,
			person(p, prop),
			fact(p, "title", fmt.Sprint(i), prop),
			fact(x, "title", fmt.Sprint(i), prop),
			&objects.Relation{Relation: "serves", From: p, To: x, Provenance: prop},
			&objects.Relation{Relation: "knows", From: x, To: fmt.Sprintf("p-%d", (i+1)%300), Provenance: prop},
		)
		switch i % 5 {
		case 0:
			objs = append(objs, &objects.Event{Ident: "ev-" + p, Era: "first-age", Provenance: prop})
		case 1:
			objs = append(objs, &objects.Event{Ident: "ev-" + p, Era: p, Provenance: prop}) // not an era
		case 2:
			objs = append(objs, &objects.Event{Ident: "ev-" + p, Era: "age-" + x, Provenance: prop})
		case 3:
			objs = append(objs, &objects.Before{Earlier: fmt.Sprintf("ev-p-%d", i-3), Later: "ev-" + x, Provenance: prop})
		case 4:
			objs = append(objs, &objects.State{Entity: p, Key: "rank", Value: "high", Since: fmt.Sprintf("ev-p-%d", i-4), Until: "ev-" + x, Provenance: prop})
		}
	}
	w := compile(t, objs...)
	var cit, ref []Finding
	for i := range w.ix.entries.n {
		e := w.ix.entries.at(i)
		cit = append(cit, w.citationsOf(e)...)
		ref = append(ref, w.referencesOf(e)...)
	}
	if len(ref) < 600 {
		t.Fatalf("%d reference findings one by one: the world should have more", len(ref))
	}
	if got := w.groups[groupReferences]; !reflect.DeepEqual(got, ref) {
		t.Fatalf("the compile's %d reference findings differ from the %d found one by one", len(got), len(ref))
	}
	if got := w.groups[groupCitations]; !reflect.DeepEqual(got, cit) {
		t.Fatalf("the compile's %d citation findings differ from the %d found one by one", len(got), len(cit))
	}
}
