package author

import (
	"testing"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// TestStagerCompilesTheBaseOnce: a small document staged over a store
// costs one compilation of the base, diff included, and a second document
// over the same scope costs none.
func TestStagerCompilesTheBaseOnce(t *testing.T) {
	h := newHarness(t, "camelot")
	b := lorestore.NewBatch()
	for _, o := range []objects.Object{
		&objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: objects.Proposed("s")},
		&objects.Fact{Entity: "galahad", Key: "title", Value: "sir", Provenance: objects.Proposed("s")},
	} {
		if _, err := b.Put("camelot", o); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.store.Commit(b, lorestore.NewMessage("seed", "materialize", "camelot"), lorestore.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	st, err := NewStager(h.store, "main")
	if err != nil {
		t.Fatal(err)
	}
	doc := []objects.Object{&objects.Fact{Entity: "galahad", Key: "epithet", Value: "pure", Provenance: objects.Proposed("s")}}
	sg, err := st.Stage("camelot", doc)
	if err != nil {
		t.Fatal(err)
	}
	d, err := sg.Diff()
	if err != nil {
		t.Fatal(err)
	}
	if len(d.NewlyCertain)+len(d.Possible) != 1 {
		t.Fatalf("diff %+v", d)
	}
	if n := sg.Compilations(); n != 1 {
		t.Fatalf("%d compilations, want 1", n)
	}
	if len(sg.After.Findings()) != 0 {
		t.Fatalf("findings %v: the store's galahad should be known", sg.After.Findings())
	}
	sg2, err := st.Stage("camelot", doc)
	if err != nil {
		t.Fatal(err)
	}
	if st.cache.compileCount() != 1 || sg2.After == nil {
		t.Fatalf("second document compiled again (%d)", st.cache.compileCount())
	}
	res, err := sg.Materialize(lorestore.NewMessage("import", "import", "camelot"))
	if err != nil || res.Empty {
		t.Fatalf("materialize: %+v %v", res, err)
	}
}
