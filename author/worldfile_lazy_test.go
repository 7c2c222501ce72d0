package author

import (
	"bytes"
	"fmt"
	"maps"
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
// entry, what decodeEntries decodes, for parts of every size, whether its
// scan made the index or held the file's index to the entries.
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
		made, err := openFileBase(sec, nil, nil)
		if err != nil {
			t.Fatalf("parts of %d: %v", size, err)
		}
		read, err := openFileBase(sec, indexOf(t, sec), nil)
		if err != nil {
			t.Fatalf("parts of %d, the index read: %v", size, err)
		}
		for _, b := range []*fileBase{made, read} {
			where := fmt.Sprintf("parts of %d, index read %v", size, b.verify)
			if !b.verify && b != made || b.verify && b != read {
				t.Fatalf("%s: the base does not say how its index came", where)
			}
			checkBaseReads(t, where, b, want)
		}
		// Opened as the writer opens what it just wrote (DL-0532): the
		// index and the keyed facts of its own scan, no scan again.
		var index bytes.Buffer
		_, notes, err := writeIndexOf(sec, &index, nil)
		if err != nil {
			t.Fatal(err)
		}
		written, err := openWrittenBase(sec, index.Bytes(), notes)
		if err != nil {
			t.Fatalf("parts of %d, opened as written: %v", size, err)
		}
		checkBaseReads(t, fmt.Sprintf("parts of %d, opened as written", size), written, want)
	}
}

// indexOf is the index section a writer makes of sec.
func indexOf(t *testing.T, sec []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, _, err := writeIndexOf(sec, &buf, nil)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("%v: %d bytes written, %d said", err, buf.Len(), n)
	}
	return buf.Bytes()
}

// checkBaseReads holds b, entry by entry and list by list, to the
// decoded entries want.
func checkBaseReads(t *testing.T, where string, b *fileBase, want []world.Entry) {
	t.Helper()
	if b.Len() != len(want) {
		t.Fatalf("%s: %d entries, decoded %d", where, b.Len(), len(want))
	}
	for i, e := range want {
		if b.ID(i) != e.ID || b.Type(i) != e.Object.Type() || !reflect.DeepEqual(b.Object(i), e.Object) {
			t.Fatalf("%s: entry %d reads %+v, decoded %+v", where, i, b.Object(i), e.Object)
		}
		if f, ok := e.Object.(*objects.Fact); ok && f.Provenance != nil {
			// Read again, a record shares the provenance it read before.
			x, y := b.Object(i).(*objects.Fact), b.Object(i).(*objects.Fact)
			if x.Provenance != y.Provenance {
				t.Fatalf("%s: entry %d read twice holds two provenances", where, i)
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
			t.Fatalf("%s: entry %d named %q, want %q", where, i, b.Name(i), name)
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
			t.Fatalf("%s: entries of type %s at %v, want %v", where, ty, b.OfType(ty), of)
		}
	}
	checkBaseEntities(t, where, b, want)
	for _, key := range world.KeysFiled {
		var keyed []int
		for i, e := range want {
			if f, ok := e.Object.(*objects.Fact); ok && f.Key == key {
				keyed = append(keyed, i)
			}
		}
		if len(keyed) == 0 || !slices.Equal(b.Keyed(key), keyed) {
			t.Fatalf("%s: facts of key %q at %v, want %v", where, key, b.Keyed(key), keyed)
		}
	}
}

// checkBaseEntities holds b's entity index to want's entities: ordered,
// each ident once, found where want has it first, and nothing else found.
func checkBaseEntities(t *testing.T, where string, b *fileBase, want []world.Entry) {
	t.Helper()
	// Under each ident, the entity of least position.
	first := map[string]int{}
	for i, e := range want {
		if en, ok := e.Object.(*objects.Entity); ok {
			if _, seen := first[en.Ident]; !seen {
				first[en.Ident] = i
			}
		}
	}
	ents := b.Entities()
	got := map[string]int{}
	prev := ""
	for name, pos := range ents.All() {
		if _, dup := got[name]; dup || name <= prev && len(got) > 0 {
			t.Fatalf("%s: entity %q yielded out of order or twice", where, name)
		}
		got[name], prev = pos, name
	}
	if len(first) == 0 || ents.Len() != len(first) || !maps.Equal(got, first) {
		t.Fatalf("%s: %d entities %v, want %v", where, ents.Len(), got, first)
	}
	for name, pos := range first {
		if p, ok := ents.Find(name); !ok || p != pos {
			t.Fatalf("%s: entity %q found at %d (%v), want %d", where, name, p, ok, pos)
		}
		for _, miss := range []string{name + "\x00", name[:len(name)-1]} {
			if _, ok := first[miss]; !ok {
				if _, found := ents.Find(miss); found {
					t.Fatalf("%s: entity %q found, which is none", where, miss)
				}
			}
		}
	}
}

// TestFileBaseRefusesWhatDecodeRefuses alters every byte of the first
// refuseEveryByte and of the table, and every refuseStride-th of the rest
// (fewer under the race detector: see race_test.go).
var refuseEveryByte, refuseStride = 1500, 13

// TestFileBaseRefusesWhatDecodeRefuses: with any one byte of a section
// altered, the scan takes it exactly when decodeEntries does and the
// entries are in id order, each once, and then reads what it decodes: an
// entry that scanned never fails to read. So does a base reading the
// index its scan made of the altered bytes, and a base holding the
// altered bytes to the index of the bytes before is refused or reads the
// same.
func TestFileBaseRefusesWhatDecodeRefuses(t *testing.T) {
	w := lazyTestWorld(t)
	defer func(old uint64) { partEntries = old }(partEntries)
	partEntries = 50
	sec := entriesSectionOf(t, w)
	goodIndex := indexOf(t, sec)
	refused, tried := 0, 0
	for at := range sec {
		if at > refuseEveryByte && at < len(sec)-200 && at%refuseStride != 0 {
			continue // every byte of the first parts and of the table, a sample of the rest
		}
		tried++
		for _, x := range [][]byte{{0x01}, {0x80}, {0xff}}[at%3] {
			bad := slices.Clone(sec)
			bad[at] ^= x
			want, derr := decodeEntries(bad)
			b, berr := openFileBase(bad, nil, nil)
			for i := 1; derr == nil && i < len(want); i++ {
				if bytes.Compare(want[i-1].ID[:], want[i].ID[:]) >= 0 {
					derr = errNotInOrder // decoded, but not in order as a base must be
				}
			}
			if (derr == nil) != (berr == nil) {
				t.Fatalf("byte %d ^ %#x: decode says %v, the scan %v", at, x, derr, berr)
			}
			if stale, err := openFileBase(bad, goodIndex, nil); err == nil {
				checkBaseReads(t, fmt.Sprintf("byte %d ^ %#x, the index before", at, x), stale, want)
			}
			if berr != nil {
				refused++
				continue
			}
			where := fmt.Sprintf("byte %d ^ %#x", at, x)
			for i, e := range want {
				if b.ID(i) != e.ID || !reflect.DeepEqual(b.Object(i), e.Object) {
					t.Fatalf("%s: entry %d reads %+v, decoded %+v", where, i, b.Object(i), e.Object)
				}
			}
			read, err := openFileBase(bad, indexOf(t, bad), nil)
			if err != nil {
				t.Fatalf("%s: its own index refused: %v", where, err)
			}
			for i, e := range want {
				if read.ID(i) != e.ID || !reflect.DeepEqual(read.Object(i), e.Object) {
					t.Fatalf("%s, index read: entry %d reads %+v, decoded %+v", where, i, read.Object(i), e.Object)
				}
			}
		}
	}
	if refused == 0 || refused == tried {
		t.Fatalf("%d of %d alterations refused", refused, tried)
	}
}

// TestFileBaseIndexHeldToEntries: with any one byte of the index altered,
// or the index of other entries given, the base is refused, or reads
// exactly what the entries decode to (a byte of padding).
func TestFileBaseIndexHeldToEntries(t *testing.T) {
	w := lazyTestWorld(t)
	defer func(old uint64) { partEntries = old }(partEntries)
	partEntries = 50
	sec := entriesSectionOf(t, w)
	want, err := decodeEntries(sec)
	if err != nil {
		t.Fatal(err)
	}
	index := indexOf(t, sec)
	refused := 0
	for at := range index {
		for _, x := range []byte{0x01, 0x80} {
			bad := slices.Clone(index)
			bad[at] ^= x
			b, err := openFileBase(sec, bad, nil)
			if err != nil {
				refused++
				continue
			}
			checkBaseReads(t, fmt.Sprintf("index byte %d ^ %#x", at, x), b, want)
		}
	}
	// Nearly every byte is a value the scan or the checks hold: only
	// padding may change unseen.
	if refused < 2*len(index)*9/10 {
		t.Fatalf("%d of %d alterations of the index refused", refused, 2*len(index))
	}
	for _, cut := range []int{0, 8, len(index) / 2, len(index) - 8} {
		if _, err := openFileBase(sec, index[:cut], nil); err == nil {
			t.Errorf("an index cut to %d bytes was taken", cut)
		}
	}
	// The index of the same entries but one entity renamed.
	w2 := lazyTestWorld(t)
	other, err := w2.Stage([]objects.Object{&objects.Entity{Kind: objects.KindPerson, Ident: "e-0x", Name: "X", Provenance: objects.Proposed("s-0")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openFileBase(sec, indexOf(t, entriesSectionOf(t, other)), nil); err == nil {
		t.Error("the index of other entries was taken")
	}
}
