package world

import (
	"fmt"
	"slices"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// TestEntityPage: pages of any size, of every kind or one, read in turn
// give the entities sorted by id, each once, with the total; a world
// staged with a new entity or without one lists what it holds, not what
// the world it was staged over did.
func TestEntityPage(t *testing.T) {
	kinds := []objects.EntityKind{objects.KindPerson, objects.KindPlace}
	var objs []objects.Object
	want := map[string][]string{} // kind ("" every kind) → ids
	for i := range 25 {
		k := kinds[i%len(kinds)]
		id := fmt.Sprintf("e%02d", (i*7)%25)
		objs = append(objs, &objects.Entity{Kind: k, Ident: id, Name: "n" + id, Provenance: objects.Proposed("s")})
		want[""] = append(want[""], id)
		want[string(k)] = append(want[string(k)], id)
	}
	for _, ids := range want {
		slices.Sort(ids)
	}
	w, err := Compile(Input{Scope: "camelot", Base: entriesOf(t, objs)})
	if err != nil {
		t.Fatal(err)
	}
	read := func(w *World, kind string, size int) ([]string, int) {
		var got []string
		total := -1
		for from := 0; ; from += size {
			page, n := w.EntityPage(kind, from, size)
			if total >= 0 && n != total {
				t.Fatalf("kind %q: total %d, then %d", kind, total, n)
			}
			total = n
			for _, e := range page {
				if kind != "" && e.Kind != kind {
					t.Fatalf("kind %q: page holds %s of kind %s", kind, e.ID, e.Kind)
				}
				got = append(got, e.ID)
			}
			if len(page) < size {
				return got, total
			}
		}
	}
	for _, kind := range []string{"", string(objects.KindPerson), string(objects.KindPlace)} {
		for _, size := range []int{1, 3, 25, 100} {
			got, total := read(w, kind, size)
			if !slices.Equal(got, want[kind]) || total != len(want[kind]) {
				t.Errorf("kind %q, pages of %d: %v (total %d), want %v", kind, size, got, total, want[kind])
			}
		}
	}
	// A fact staged shares the order; an entity staged, or one taken back,
	// gets its own.
	fw, err := w.Stage([]objects.Object{&objects.Fact{Entity: "e01", Key: "k", Value: "v", Provenance: objects.Proposed("s")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fw.ix.order != w.ix.order {
		t.Error("a staged fact made a new entity order")
	}
	added := &objects.Entity{Kind: objects.KindPerson, Ident: "e00a", Name: "new", Provenance: objects.Proposed("s")}
	aw, err := fw.Stage([]objects.Object{added}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, n := read(aw, "", 4); n != 26 || !slices.Contains(got, "e00a") || got[1] != "e00a" {
		t.Errorf("after staging e00a: %v (total %d)", got, n)
	}
	if got, n := read(w, "", 4); n != 25 || slices.Contains(got, "e00a") {
		t.Errorf("the world staged over now lists %v (total %d)", got, n)
	}
	id, _ := added.ID()
	dw, err := aw.Stage(nil, []objects.ID{id})
	if err != nil {
		t.Fatal(err)
	}
	if got, n := read(dw, "", 4); n != 25 || slices.Contains(got, "e00a") {
		t.Errorf("after taking e00a back: %v (total %d)", got, n)
	}
}
