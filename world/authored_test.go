package world

import (
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/objects"
)

// TestBinaryAtomIsLowering holds binaryAtom to lowerUnder: for a claim of
// every kind lowering knows, the binary atom it names is exactly the atom
// of arity two lowering makes (and none when lowering makes none).
func TestBinaryAtomIsLowering(t *testing.T) {
	claims := []objects.Object{
		person("galahad", prop), place("logres"), era("dawn"),
		fact("galahad", "title", "sir", prop),
		&objects.Relation{Relation: "knight", From: "galahad", To: "logres", Provenance: prop},
		&objects.Event{Ident: "quest", Era: "dawn", Provenance: prop},
		&objects.Before{Earlier: "quest", Later: "feast", Provenance: prop},
		&objects.State{Entity: "galahad", Key: "mood", Value: "grim", Provenance: prop},
		&objects.Word{Dialect: "old", Form: "gal", Gloss: "knight", Provenance: prop},
		&objects.Name{Entity: "galahad", Dialect: "old", Name: "Gal", Provenance: prop},
		&objects.Derivation{Dialect: "old", Form: "gal", SourceDialect: "older", Source: "gaal", Provenance: prop},
		&objects.LedgerEntry{Entity: "galahad", Account: "gold", Amount: 3, At: "quest", Provenance: prop},
		&objects.SameAs{Left: "galahad", Right: "gal", Provenance: prop},
		decision("d1"),
	}
	for _, o := range claims {
		var want [][3]string
		err := lowerUnder(nil, Entry{Object: o}, func(_ objects.ID, _ datalog.Poly, pred string, args ...string) error {
			if len(args) == 2 {
				want = append(want, [3]string{pred, args[0], args[1]})
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%T: %v", o, err)
		}
		var got [][3]string
		if pred, subj, val, ok := binaryAtom(o); ok {
			got = append(got, [3]string{pred, subj, val})
		}
		if !slices.Equal(got, want) {
			t.Errorf("%T: binaryAtom %v, lowering %v", o, got, want)
		}
	}
}

// TestBinaryAuthoredLeavesOutConflicts: the binary atoms the functional
// check reads are those lowered into the program, in index (id) order; of
// a unary kind and a fact whose key is that kind, the claim lowered first
// keeps the predicate and the other's atom was left out, binary or not.
// One staged later follows the rest.
func TestBinaryAuthoredLeavesOutConflicts(t *testing.T) {
	title := fact("galahad", "title", "sir", prop)
	rel := &objects.Relation{Relation: "knight", From: "galahad", To: "logres", Provenance: prop}
	for _, key := range []string{"person", "place"} {
		ent := &objects.Entity{Kind: objects.EntityKind(key), Ident: "galahad", Name: "G", Provenance: prop}
		clash := fact("galahad", key, "yes", prop)
		w := compile(t, ent, title, clash, rel)
		if len(findingsOf(w, CodeArityConflict)) == 0 {
			t.Fatal("no arity conflict: the test world is wrong")
		}
		want := []authoredPair{{"title", "galahad", "sir", idOf(t, title)}, {"knight", "galahad", "logres", idOf(t, rel)}}
		if idOf(t, clash).String() < idOf(t, ent).String() {
			want = append(want, authoredPair{key, "galahad", "yes", idOf(t, clash)})
		}
		slices.SortFunc(want, func(a, b authoredPair) int { return strings.Compare(a.claim.String(), b.claim.String()) })
		if got := slices.Collect(w.binaryAuthored()); !slices.Equal(got, want) {
			t.Fatalf("%s: binary atoms %v, want %v", key, got, want)
		}
		more := fact("galahad", "title", "lord", prop)
		sw, err := w.Stage([]objects.Object{more}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, authoredPair{"title", "galahad", "lord", idOf(t, more)})
		if got := slices.Collect(sw.binaryAuthored()); !slices.Equal(got, want) {
			t.Fatalf("%s staged: binary atoms %v, want %v", key, got, want)
		}
	}
}
