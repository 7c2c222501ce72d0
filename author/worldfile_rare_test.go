package author

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// TestWorldFileRareEntities: in a part whose facts' entities seldom
// repeat, the writer stops looking them up after entityTries and writes
// each as a literal, so one entity that does repeat is written more than
// once; the section still reads back as the entries written (decoded, and
// as a lazy base however its index came), and its bytes are the same
// whether equal strings share their bytes or not. A part where they
// repeat keeps them interned.
func TestWorldFileRareEntities(t *testing.T) {
	defer func(old uint64) { partEntries = old }(partEntries)
	for _, c := range []struct {
		part       uint64
		rare       bool
		literals   int // the repeated entity's literals, at least
		interned   bool
		whichParts string
	}{
		{1 << 16, true, 2, false, "one part"},
		{5000, true, 2, false, "parts past entityTries"},
		{1 << 16, false, 1, true, "one part, entities repeating"},
	} {
		partEntries = c.part
		in := rareEntries(t, false, c.rare)
		sec := writeSection(t, in)
		if own := writeSection(t, rareEntries(t, true, c.rare)); !bytes.Equal(sec, own) {
			t.Fatalf("%s: shared strings write %d bytes, own copies %d, and not the same bytes", c.whichParts, len(sec), len(own))
		}
		n := bytes.Count(sec, []byte(repeatedEntity))
		if n < c.literals || c.interned && n != 1 {
			t.Fatalf("%s: the repeated entity written %d times as a literal", c.whichParts, n)
		}
		got, err := decodeEntries(sec)
		if err != nil {
			t.Fatalf("%s: %v", c.whichParts, err)
		}
		if len(got) != len(in) {
			t.Fatalf("%s: %d entries read, %d written", c.whichParts, len(got), len(in))
		}
		for i := range in {
			if got[i].ID != in[i].ID || !reflect.DeepEqual(got[i].Object, in[i].Object) {
				t.Fatalf("%s: entry %d reads %v, written %v", c.whichParts, i, got[i].Object, in[i].Object)
			}
		}
		for _, index := range [][]byte{nil, indexOf(t, sec)} {
			b, err := openFileBase(sec, index, nil)
			if err != nil {
				t.Fatalf("%s: %v", c.whichParts, err)
			}
			checkBaseReads(t, c.whichParts, b, got)
		}
	}
}

// repeatedEntity is the entity rareEntries repeats, however rare the
// others.
const repeatedEntity = "rep-entity"

// rareEntries is TestWorldFileRareEntities's entries, sorted by ID: facts
// and entities whose entities seldom repeat (rare) or do, but
// repeatedEntity every 97th; own gives each its own copy of its strings.
func rareEntries(t *testing.T, own bool, rare bool) []world.Entry {
	t.Helper()
	var in []world.Entry
	for i := range 3 * entityTries {
		e := fmt.Sprint("e-", i)
		if !rare {
			e = fmt.Sprint("e-", i%50)
		}
		if i%97 == 0 {
			e = repeatedEntity
		}
		k := []string{"k", world.KeysFiled[0]}[min(i%13, 1)]
		if i%30 == 0 {
			// Two facts each: many are met first after the lookups stop,
			// then referred to.
			k = fmt.Sprint("seldom-", (i/30)%200)
		}
		if own {
			e, k = strings.Clone(e), strings.Clone(k)
		}
		in = append(in, entryOf(t, &objects.Fact{Entity: e, Key: k, Value: fmt.Sprint(i), Provenance: objects.Proposed("s-1")}))
		if i%11 == 0 {
			in = append(in, entryOf(t, &objects.Entity{Kind: objects.KindPerson, Ident: e, Name: fmt.Sprint("E", i), Provenance: objects.Proposed("s-1")}))
		}
	}
	slices.SortFunc(in, func(a, b world.Entry) int { return bytes.Compare(a.ID[:], b.ID[:]) })
	return in
}

// writeSection writes in as an entries section, its count in the first
// eight bytes.
func writeSection(t *testing.T, in []world.Entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	bw.Write(make([]byte, 8))
	n, _, err := writeEntries(bw, slices.Values(in))
	if err != nil || bw.Flush() != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	binary.LittleEndian.PutUint64(b, n)
	return b
}
