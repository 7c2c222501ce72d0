package objects

import (
	"reflect"
	"testing"
)

// ownProv gives claim o a copy of its provenance, which examples share,
// and returns the copy for a test to change (Provenance is never written
// once attached).
func ownProv(o Object) *Provenance {
	f := reflect.ValueOf(o).Elem().FieldByName("Provenance")
	p := f.Interface().(*Provenance).Clone()
	f.Set(reflect.ValueOf(p))
	return p
}

// TestNilProvenance sets every claim's provenance to nil and checks that
// Validate, AppendCanonical, ID and Canonical report it as a missing
// field, and that a decision, whose provenance is optional, stays valid.
func TestNilProvenance(t *testing.T) {
	for typ, o := range examples() {
		f := reflect.ValueOf(o).Elem().FieldByName("Provenance")
		if !f.IsValid() {
			continue
		}
		t.Run(string(typ), func(t *testing.T) {
			f.Set(reflect.Zero(f.Type()))
			if p, ok := ProvenanceOf(o); p != nil || ok != (typ != TypeDecision) {
				t.Errorf("ProvenanceOf = %v, %v", p, ok)
			}
			if typ == TypeDecision {
				checkProblems(t, o.Validate())
				return
			}
			checkProblems(t, o.Validate(), p("provenance", CodeRequired))
			if out, err := o.AppendCanonical([]byte("x")); err == nil || string(out) != "x" {
				t.Errorf("AppendCanonical = %q, %v; want x and an error", out, err)
			}
			if _, err := o.ID(); err == nil {
				t.Error("ID succeeded")
			}
			if b, err := Canonical(o); err == nil || b != nil {
				t.Errorf("Canonical = %q, %v", b, err)
			}
		})
	}
}

// TestProvenanceOfShares checks that ProvenanceOf hands back the claim's
// own pointer, not a copy, and nothing for the objects without a claim.
func TestProvenanceOfShares(t *testing.T) {
	for typ, o := range examples() {
		f := reflect.ValueOf(o).Elem().FieldByName("Provenance")
		got, ok := ProvenanceOf(o)
		switch {
		case !f.IsValid() || typ == TypeDecision:
			if ok || got != nil {
				t.Errorf("%s: ProvenanceOf = %v, %v; want nil, false", typ, got, ok)
			}
		case !ok || got != f.Interface().(*Provenance):
			t.Errorf("%s: ProvenanceOf = %p, %v; want the field %p", typ, got, ok, f.Interface())
		}
	}
}

// TestProvenanceClone checks that a clone is equal and shares nothing:
// writing the clone's decisions leaves the original as it was.
func TestProvenanceClone(t *testing.T) {
	if (*Provenance)(nil).Clone() != nil {
		t.Error("Clone of nil is not nil")
	}
	orig := Cited(CitedRatified, "d-1", "d-2")
	c := orig.Clone()
	if c == orig || !reflect.DeepEqual(c, orig) {
		t.Fatalf("Clone = %p %+v of %p %+v", c, c, orig, orig)
	}
	c.Decisions[0] = "x"
	c.State = CitedProvisional
	if orig.Decisions[0] != "d-1" || orig.State != CitedRatified {
		t.Errorf("writing the clone changed the original: %+v", orig)
	}
}

// TestProvenanceEqual checks the decoder cache's equality on pairs that
// differ in one field each.
func TestProvenanceEqual(t *testing.T) {
	base := Cited(CitedRatified, "d-1", "d-2")
	for _, tc := range []struct {
		name string
		q    *Provenance
		want bool
	}{
		{"same", Cited(CitedRatified, "d-1", "d-2"), true},
		{"state", Cited(CitedProvisional, "d-1", "d-2"), false},
		{"decision", Cited(CitedRatified, "d-1", "d-3"), false},
		{"fewer decisions", Cited(CitedRatified, "d-1"), false},
		{"kind", &Provenance{Kind: ProvenanceProposed, Decisions: []string{"d-1", "d-2"}, State: CitedRatified}, false},
		{"origin", &Provenance{Kind: ProvenanceCited, Origin: "s", Decisions: []string{"d-1", "d-2"}, State: CitedRatified}, false},
		{"hyp", &Provenance{Kind: ProvenanceCited, Hyp: "h", Decisions: []string{"d-1", "d-2"}, State: CitedRatified}, false},
	} {
		if got := base.equal(tc.q); got != tc.want || tc.q.equal(base) != tc.want {
			t.Errorf("%s: equal = %v, want %v", tc.name, got, tc.want)
		}
	}
}
