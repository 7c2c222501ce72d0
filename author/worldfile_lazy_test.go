package author

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// lazyTestWorld is a world of facts, entities, relations, rules and
// decisions, with provenances that repeat and decisions cited, for the
// file base's tests.
func lazyTestWorld(t *testing.T) *world.World {
	t.Helper()
	var in []world.Entry
	add := func(o objects.Object) { in = append(in, entryOf(t, o)) }
	for i := range 120 {
		p := objects.Proposed(fmt.Sprint("s-", i%4))
		if i%7 == 0 {
			p = objects.Cited(objects.CitedRatified, "d-1", fmt.Sprint("d-", i%3))
		}
		e := fmt.Sprintf("e-%d", i%40)
		add(&objects.Fact{Entity: e, Key: fmt.Sprint("k", i%5), Value: fmt.Sprint(i), Provenance: p})
		if i%3 == 0 {
			add(&objects.Entity{Kind: objects.KindPerson, Ident: e, Name: "E " + e, Provenance: p})
		}
		if i%5 == 0 {
			add(&objects.Relation{Relation: "knows", From: e, To: fmt.Sprintf("e-%d", i%7), Provenance: p})
		}
		if i%9 == 0 {
			add(&objects.Fact{Entity: e, Key: world.KeysFiled[0], Value: fmt.Sprint("yes-", i), Provenance: p})
		}
	}
	add(&objects.Decision{Ident: "d-1", Rationale: "so it is", Provenance: objects.Proposed("s-0")})
	w, err := world.Compile(world.Input{Scope: "s", Base: in})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestFileBaseReadsAsDecoded: a section read in place gives, entry by
// entry, what decodeEntries decodes, for parts of every size.
func TestFileBaseReadsAsDecoded(t *testing.T) {
	w := lazyTestWorld(t)
	defer func(old uint64) { partEntries = old }(partEntries)
	for _, size := range []uint64{1, 3, 64, 1 << 20} {
		partEntries = size
		sec := entriesSectionOf(t, w)
		want, err := decodeEntries(sec)
		if err != nil {
			t.Fatal(err)
		}
		b, err := openFileBase(sec, nil)
		if err != nil {
			t.Fatalf("parts of %d: %v", size, err)
		}
		if b.Len() != len(want) {
			t.Fatalf("parts of %d: %d entries, decoded %d", size, b.Len(), len(want))
		}
		for i, e := range want {
			if b.ID(i) != e.ID || b.Type(i) != e.Object.Type() || !reflect.DeepEqual(b.Object(i), e.Object) {
				t.Fatalf("parts of %d: entry %d reads %+v, decoded %+v", size, i, b.Object(i), e.Object)
			}
			if f, ok := e.Object.(*objects.Fact); ok && f.Provenance != nil {
				// Read again, a record shares the provenance it read before.
				x, y := b.Object(i).(*objects.Fact), b.Object(i).(*objects.Fact)
				if x.Provenance != y.Provenance {
					t.Fatalf("parts of %d: entry %d read twice holds two provenances", size, i)
				}
			}
			name := ""
			switch o := e.Object.(type) {
			case *objects.Fact:
				name = o.Key
			case *objects.Entity:
				name = o.Ident
			}
			if b.Name(i) != name {
				t.Fatalf("parts of %d: entry %d named %q, want %q", size, i, b.Name(i), name)
			}
		}
		for _, ty := range typeCodes {
			var of []uint32
			for i, e := range want {
				if e.Object.Type() == ty {
					of = append(of, uint32(i))
				}
			}
			if !slices.Equal(b.OfType(ty), of) {
				t.Fatalf("parts of %d: entries of type %s at %v, want %v", size, ty, b.OfType(ty), of)
			}
		}
		var idents []ident
		for i, e := range want {
			if en, ok := e.Object.(*objects.Entity); ok {
				idents = append(idents, ident{i, en.Ident})
			}
		}
		var got []ident
		for i, name := range b.Idents() {
			got = append(got, ident{i, name})
		}
		if len(idents) == 0 || !slices.Equal(got, idents) {
			t.Fatalf("parts of %d: entities %v, want %v", size, got, idents)
		}
		for _, key := range world.KeysFiled {
			var keyed []int
			for i, e := range want {
				if f, ok := e.Object.(*objects.Fact); ok && f.Key == key {
					keyed = append(keyed, i)
				}
			}
			if len(keyed) == 0 || !slices.Equal(b.Keyed(key), keyed) {
				t.Fatalf("parts of %d: facts of key %q at %v, want %v", size, key, b.Keyed(key), keyed)
			}
		}
	}
}

// TestFileBaseRefusesWhatDecodeRefuses: with any one byte of a section
// altered, the scan takes it exactly when decodeEntries does and the
// entries are in id order, each once, and then reads what it decodes: an
// entry that scanned never fails to read.
func TestFileBaseRefusesWhatDecodeRefuses(t *testing.T) {
	w := lazyTestWorld(t)
	defer func(old uint64) { partEntries = old }(partEntries)
	partEntries = 50
	sec := entriesSectionOf(t, w)
	refused, tried := 0, 0
	for at := range sec {
		if at > 1500 && at < len(sec)-200 && at%13 != 0 {
			continue // every byte of the first parts and of the table, a sample of the rest
		}
		tried++
		for _, x := range [][]byte{{0x01}, {0x80}, {0xff}}[at%3] {
			bad := slices.Clone(sec)
			bad[at] ^= x
			want, derr := decodeEntries(bad)
			b, berr := openFileBase(bad, nil)
			for i := 1; derr == nil && i < len(want); i++ {
				if bytes.Compare(want[i-1].ID[:], want[i].ID[:]) >= 0 {
					derr = errNotInOrder // decoded, but not in order as a base must be
				}
			}
			if (derr == nil) != (berr == nil) {
				t.Fatalf("byte %d ^ %#x: decode says %v, the scan %v", at, x, derr, berr)
			}
			if berr != nil {
				refused++
				continue
			}
			for i, e := range want {
				if b.ID(i) != e.ID || !reflect.DeepEqual(b.Object(i), e.Object) {
					t.Fatalf("byte %d ^ %#x: entry %d reads %+v, decoded %+v", at, x, i, b.Object(i), e.Object)
				}
			}
		}
	}
	if refused == 0 || refused == tried {
		t.Fatalf("%d of %d alterations refused", refused, tried)
	}
}
