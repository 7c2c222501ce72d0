package objects

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// TestDecodeInterns decodes facts that share keys, entities and a
// decision set, and checks that the repeated members come back as one
// string (one set) while the free text does not, that the values are
// unchanged, that the facts share one Provenance, and that appending to one
// object's shared set leaves the others as they were.
func TestDecodeInterns(t *testing.T) {
	prov := Cited(CitedProvisional, "d-2", "d-1")
	var got []*Fact
	cache := new(internCache) // as one pooled decoder keeps it (Decode's pool may drop one)
	for i := range 4 {
		f := &Fact{Entity: "e-1", Key: "k", Value: fmt.Sprintf("v%d", i%2), Provenance: prov}
		d := &decoder{data: mustCanonical(t, f), cache: cache}
		d.path = d.stack[:0]
		o, err := d.decode()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, o.(*Fact))
	}
	same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
	for _, tc := range []struct {
		name  string
		a, b  string
		share bool
	}{
		{"entity", got[0].Entity, got[3].Entity, true},
		{"key", got[0].Key, got[3].Key, true},
		{"decision", got[0].Provenance.Decisions[0], got[2].Provenance.Decisions[0], true},
		{"free text", got[0].Value, got[2].Value, false},
	} {
		if tc.a != tc.b || same(tc.a, tc.b) != tc.share {
			t.Errorf("%s: %q and %q shared %v, want %v", tc.name, tc.a, tc.b, same(tc.a, tc.b), tc.share)
		}
	}
	if &got[0].Provenance.Decisions[0] != &got[1].Provenance.Decisions[0] {
		t.Error("the decision set is not shared")
	}
	for _, f := range got[1:] {
		if f.Provenance != got[0].Provenance {
			t.Fatal("the provenance is not shared")
		}
	}
	if got[0].Provenance == prov {
		t.Fatal("the decoder handed out the encoder's provenance")
	}
	want := []string{"d-1", "d-2"}
	for _, f := range got {
		if fmt.Sprint(f.Provenance.Decisions) != fmt.Sprint(want) {
			t.Fatalf("decisions %v, want %v", f.Provenance.Decisions, want)
		}
	}
	grown := append(got[0].Provenance.Decisions, "d-3")
	grown[0] = "x"
	if got[1].Provenance.Decisions[0] != "d-1" {
		t.Fatal("an append to one object's decisions changed another's")
	}
}

// TestInternCache runs values through one cache, more distinct ones than
// it has slots: every result equals its input, a set comes back with no
// room to append in place, a value looked up again at once is shared, and
// provenances that differ in any field are not.
func TestInternCache(t *testing.T) {
	var c internCache
	for i := range 5000 {
		s := fmt.Sprintf("s-%d", i%3000)
		got := c.intern([]byte(s))
		if got != s || unsafe.StringData(c.intern([]byte(s))) != unsafe.StringData(got) {
			t.Fatalf("intern(%q) = %q, or not shared", s, got)
		}
		set := []string{s, s + "x"}
		if got := c.internSet(set); len(got) != 2 || got[0] != s || got[1] != s+"x" || cap(got) != 2 {
			t.Fatalf("internSet(%q) = %q (cap %d)", set, got, cap(got))
		}
	}
	for i := range 500 {
		ps := []*Provenance{Proposed(fmt.Sprintf("s-%d", i%300)), Hypothetical(fmt.Sprintf("h-%d", i%300)),
			Cited(CitedProvisional, fmt.Sprintf("d-%d", i%300)), Cited(CitedRatified, fmt.Sprintf("d-%d", i%300))}
		for _, p := range ps {
			got := c.internProv(p)
			if got == p || !reflect.DeepEqual(got, p) || c.internProv(p) != got {
				t.Fatalf("internProv(%+v) = %p %+v, not an equal copy, or not shared", p, got, got)
			}
		}
		if c.internProv(ps[2]) == c.internProv(ps[3]) {
			t.Fatal("two states of one decision set share a provenance")
		}
	}
	long := []byte(strings.Repeat("x", maxInterned+1))
	first, again := c.intern(long), c.intern(long)
	if unsafe.StringData(first) == unsafe.StringData(again) {
		t.Fatal("a value longer than maxInterned was cached")
	}
}

func mustCanonical(t testing.TB, o Object) []byte {
	t.Helper()
	b, err := Canonical(o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDecodeRefsUnlookedWhenRare: a decoder that met a window of entity
// references almost none of which repeat stops looking them up for the
// next refSkip objects, which decode to the same values with each entity
// in the allocation of the object's own strings; then a window is tried
// again, and references that repeat are shared once more. Keys are looked
// up throughout.
func TestDecodeRefsUnlookedWhenRare(t *testing.T) {
	cache := new(internCache)
	decode := func(f *Fact) *Fact {
		t.Helper()
		d := &decoder{data: mustCanonical(t, f), cache: cache}
		d.path = d.stack[:0]
		o, err := d.decode()
		if err != nil {
			t.Fatal(err)
		}
		got := o.(*Fact)
		if got.Entity != f.Entity || got.Key != f.Key || got.Value != f.Value || !reflect.DeepEqual(got.Provenance, f.Provenance) {
			t.Fatalf("decoded %+v, want %+v", got, f)
		}
		return got
	}
	prov := Proposed("s")
	same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
	// The entity and the value are one allocation. Entities of 21 bytes: a
	// string of its own (24 bytes, past the tiny allocator's 16) never ends
	// where the next allocation starts.
	adjacent := func(f *Fact) bool {
		return unsafe.Add(unsafe.Pointer(unsafe.StringData(f.Entity)), len(f.Entity)) == unsafe.Pointer(unsafe.StringData(f.Value))
	}
	n := 0
	fresh := func() *Fact {
		n++
		return decode(&Fact{Entity: fmt.Sprintf("entity-%014d", n), Key: "k", Value: fmt.Sprint("v", n), Provenance: prov})
	}
	for range refWindow - 1 {
		if f := fresh(); adjacent(f) {
			t.Fatal("a reference was not looked up in the first window")
		}
	}
	fresh() // the window ends: next to none were found
	first := fresh()
	if !adjacent(first) {
		t.Fatal("after a window of rare references, the next was looked up")
	}
	for range refSkip - 2 {
		if f := fresh(); !adjacent(f) || !same(f.Key, first.Key) {
			t.Fatal("a reference looked up, or a key not, while references are skipped")
		}
	}
	// A window again, of references that repeat: they are shared after it.
	for range refSkip + refWindow {
		decode(&Fact{Entity: "entity-again-00000000", Key: "k", Value: "v", Provenance: prov})
	}
	a := decode(&Fact{Entity: "entity-again-00000000", Key: "k", Value: "v1", Provenance: prov})
	b := decode(&Fact{Entity: "entity-again-00000000", Key: "k", Value: "v2", Provenance: prov})
	if !same(a.Entity, b.Entity) || adjacent(a) {
		t.Fatal("references that repeat are not shared once a window is tried again")
	}
}
