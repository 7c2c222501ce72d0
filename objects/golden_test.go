// This file holds the golden tests: the canonical bytes of one instance of
// every type under testdata/golden/<type>.json and their IDs in
// testdata/golden/ids.txt. Run with -update to rewrite them. A golden file
// holds exactly the canonical bytes, with no newline, so any BLAKE3 tool run
// on it prints the object's ID.

package objects

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/jcs"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenPath returns the golden file of type t.
func goldenPath(t Type) string {
	return filepath.Join("testdata", "golden", string(t)+".json")
}

const goldenIDs = "testdata/golden/ids.txt"

func TestGolden(t *testing.T) {
	ex := examples()
	var ids strings.Builder
	for _, typ := range Types() {
		o, ok := ex[typ]
		if !ok {
			t.Fatalf("no example of type %s", typ)
		}
		if o.Type() != typ {
			t.Errorf("example of %s has Type() %s", typ, o.Type())
		}
		got, err := Canonical(o)
		if err != nil {
			t.Fatalf("Canonical(%s): %v", typ, err)
		}
		id, err := o.ID()
		if err != nil {
			t.Fatalf("ID(%s): %v", typ, err)
		}
		fmt.Fprintf(&ids, "%s %s\n", typ, id)
		if *update {
			if err := os.WriteFile(goldenPath(typ), got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(goldenPath(typ))
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("canonical %s:\n got %s\nwant %s", typ, got, want)
		}
	}
	if len(ex) != len(Types()) {
		t.Errorf("%d examples for %d types", len(ex), len(Types()))
	}
	if *update {
		if err := os.WriteFile(goldenIDs, []byte(ids.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenIDs)
	if err != nil {
		t.Fatal(err)
	}
	if ids.String() != string(want) {
		t.Errorf("ids:\n got %s\nwant %s", ids.String(), want)
	}
}

// TestGoldenDecode checks that every golden file decodes to its example
// and encodes back to the same bytes.
func TestGoldenDecode(t *testing.T) {
	ex := examples()
	for _, typ := range Types() {
		data, err := os.ReadFile(goldenPath(typ))
		if err != nil {
			t.Fatal(err)
		}
		o, err := Decode(data)
		if err != nil {
			t.Fatalf("Decode(%s): %v", typ, err)
		}
		if !reflect.DeepEqual(o, ex[typ]) {
			t.Errorf("Decode(%s) = %#v, want %#v", typ, o, ex[typ])
		}
		if id, _ := o.ID(); id != idFromDigest(jcs.Sum(data)) {
			t.Errorf("ID(%s) = %s, want the BLAKE3-256 of the golden bytes", typ, id)
		}
		back, err := Canonical(o)
		if err != nil || !bytes.Equal(back, data) {
			t.Errorf("Canonical(Decode(%s)) = %s, %v; want the golden bytes", typ, back, err)
		}
	}
}

func TestTypesAndSections(t *testing.T) {
	want := map[Type]string{
		TypeEntity: SectionClaims, TypeFact: SectionClaims, TypeRelation: SectionClaims,
		TypeEvent: SectionClaims, TypeBefore: SectionClaims, TypeQuestion: SectionClaims,
		TypeHypothesis: SectionClaims, TypeRule: SectionClaims, TypeFunctional: SectionClaims,
		TypeInertial: SectionClaims, TypeSameAs: SectionClaims, TypePredicateSameAs: SectionClaims,
		TypeState: SectionClaims, TypeDecision: SectionDecisions, TypeAttack: SectionAttacks,
		TypeStanding: SectionStanding, TypeRatify: SectionDecisions,
		TypeDialect: SectionClaims, TypeWord: SectionClaims, TypeName: SectionClaims,
		TypeDerivation: SectionClaims, TypeLedgerEntry: SectionClaims,
	}
	types := Types()
	if len(types) != len(want) {
		t.Fatalf("Types() has %d types, want %d", len(types), len(want))
	}
	for _, typ := range types {
		if got := Section(typ); got != want[typ] {
			t.Errorf("Section(%s) = %q, want %q", typ, got, want[typ])
		}
	}
	if got := Section("robot"); got != "" {
		t.Errorf("Section(robot) = %q, want empty", got)
	}
	types[0] = "mutated"
	if Types()[0] != TypeEntity {
		t.Error("Types() shares its slice with the caller")
	}
	s := examples()[TypeStanding].(*Standing)
	if s.Revises() != hexID(0xab) {
		t.Errorf("Revises() = %s", s.Revises())
	}
}

// TestIDDoesNotAllocate guards the encoding path: validating, encoding and
// hashing a normalized object of any type allocates nothing.
func TestIDDoesNotAllocate(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	for typ, o := range examples() {
		o.ID() // warm the buffer pool
		if n := testing.AllocsPerRun(100, func() { o.ID() }); n != 0 {
			t.Errorf("%s: ID allocates %.1f times", typ, n)
		}
	}
}
