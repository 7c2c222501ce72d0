package world

import (
	"fmt"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// TestNewIndexEntitiesApart: entities filed on a goroutine of their own
// (many of them), with the answers, are filed as one goroutine files
// them: for each ident, the entity of the smallest id; the answers, in id
// order; and every other kind in its list.
func TestNewIndexEntitiesApart(t *testing.T) {
	var objs []objects.Object
	for i := range 3000 {
		// Two entities per ident, of different names: one id is smaller.
		for _, v := range []string{"a", "b"} {
			objs = append(objs, &objects.Entity{Kind: objects.KindPerson, Ident: fmt.Sprint("p-", i), Name: v + fmt.Sprint(i), Provenance: objects.Proposed("s")})
		}
		objs = append(objs, &objects.Fact{Entity: fmt.Sprint("p-", i), Key: "k", Value: "v", Provenance: objects.Proposed("s")})
		if i%7 == 0 {
			objs = append(objs, &objects.Fact{Entity: fmt.Sprint("q-", i), Key: answerKey, Value: fmt.Sprint("o-", i), Provenance: objects.Proposed("s")})
		}
		if i%5 == 0 {
			objs = append(objs, &objects.Relation{Relation: "r", From: fmt.Sprint("p-", i), To: "p-0", Provenance: objects.Proposed("s")})
		}
	}
	defer func(old int) { entitiesApart = old }(entitiesApart)
	index := func(apart int) *index {
		entitiesApart = apart
		return newIndex(entriesOf(t, objs))
	}
	one, two := index(1<<30), index(1)
	if one.entities.len() != 3000 || two.entities.len() != one.entities.len() {
		t.Fatalf("%d and %d entities filed; want 3000", one.entities.len(), two.entities.len())
	}
	for ident, n := range one.entities.all() {
		if m, _ := two.entities.get(ident); m.id() != n.id() || m.obj.Name != n.obj.Name {
			t.Fatalf("%s: filed apart %s (%s), together %s (%s)", ident, m.id(), m.obj.Name, n.id(), n.obj.Name)
		}
	}
	if two.facts.n != 3000+429 || one.facts.n != two.facts.n || two.relations.n != 600 || one.relations.n != 600 {
		t.Fatalf("%d and %d facts, %d and %d relations filed beside the entities", one.facts.n, two.facts.n, one.relations.n, two.relations.n)
	}
	if len(two.answers) != 429 || fmt.Sprint(one.answers) != fmt.Sprint(two.answers) {
		t.Fatalf("answers: %d filed apart, %d together, or in another order", len(two.answers), len(one.answers))
	}
	for i := 1; i < len(two.answers); i++ {
		if !lessID(two.answers[i-1].ID, two.answers[i].ID) {
			t.Fatal("answers out of id order")
		}
	}
}
