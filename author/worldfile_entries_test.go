package author

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// TestWorldFileEntriesShareProvenance writes the entries of a world whose
// facts and entities carry a few provenances, each from its own pointer,
// and reads them back: every record comes back equal to what was written,
// and records with equal provenances (by value) hold one pointer, while
// records with different ones do not.
func TestWorldFileEntriesShareProvenance(t *testing.T) {
	provs := func() []*objects.Provenance {
		return []*objects.Provenance{
			objects.Proposed("session-1"), objects.Proposed("session-2"),
			objects.Cited(objects.CitedRatified, "d-1", "d-2"), objects.Cited(objects.CitedProvisional, "d-1", "d-2"),
			objects.Cited(objects.CitedRatified, "d-1"),
		}
	}
	var in []world.Entry
	add := func(o objects.Object) { in = append(in, entryOf(t, o)) }
	for i := range 200 {
		p := provs()[i%5] // a fresh pointer each time: sharing is the reader's
		e := fmt.Sprintf("e-%d", i)
		add(&objects.Entity{Kind: objects.KindPerson, Ident: e, Name: "E " + e, Provenance: p})
		add(&objects.Fact{Entity: e, Key: "k", Value: fmt.Sprint(i), Provenance: p})
	}
	w, err := world.Compile(world.Input{Scope: "s", Base: in})
	if err != nil {
		t.Fatal(err)
	}
	out, err := decodeEntries(entriesSectionOf(t, w))
	if err != nil {
		t.Fatal(err)
	}
	want := map[objects.ID]objects.Object{}
	for _, e := range in {
		want[e.ID] = e.Object
	}
	byValue := map[string]*objects.Provenance{}
	pointers := map[*objects.Provenance]bool{}
	for _, e := range out {
		if !reflect.DeepEqual(e.Object, want[e.ID]) {
			t.Fatalf("read %+v, wrote %+v", e.Object, want[e.ID])
		}
		p, _ := objects.ProvenanceOf(e.Object)
		k := fmt.Sprintf("%+v", *p)
		if q, ok := byValue[k]; ok && q != p {
			t.Fatalf("two records of provenance %s hold different pointers", k)
		}
		byValue[k] = p
		pointers[p] = true
	}
	if len(out) != len(in) || len(byValue) != 5 || len(pointers) != 5 {
		t.Fatalf("read %d entries with %d provenances in %d pointers; want %d, 5, 5", len(out), len(byValue), len(pointers), len(in))
	}
}

// TestStrArena checks that arena strings keep their bytes while more are
// added (chunks are never written again or moved), whatever their size,
// and share nothing with the buffer they were copied from.
func TestStrArena(t *testing.T) {
	var a strArena
	src := make([]byte, arenaChunk)
	var got, want []string
	for i, n := range []int{0, 1, 7, arenaChunk / 8, arenaChunk / 4, arenaChunk/4 + 1, 3, arenaChunk / 3, 100, arenaChunk / 5, arenaChunk / 5, arenaChunk / 5, 9} {
		for j := range src[:n] {
			src[j] = byte('a' + (i+j)%26)
		}
		want = append(want, string(src[:n]))
		got = append(got, a.add(src[:n]))
	}
	for j := range src {
		src[j] = '#' // the arena copied: the source may change
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("string %d (%d bytes) changed after later adds", i, len(want[i]))
		}
	}
}

// TestWorldFileEntriesProvenanceBytes: records whose facts share one
// provenance pointer (replayed from the writer's cache) are the bytes of
// records that each hold their own equal provenance.
func TestWorldFileEntriesProvenanceBytes(t *testing.T) {
	shared := []*objects.Provenance{objects.Proposed("s-1"), objects.Cited(objects.CitedRatified, "d-1", "d-2"), objects.Hypothetical("h-1")}
	fresh := func(i int) *objects.Provenance { // an equal provenance, its own pointer
		p := *shared[i%3]
		return &p
	}
	write := func(prov func(int) *objects.Provenance) []byte {
		var in []world.Entry
		for i := range 300 {
			f := &objects.Fact{Entity: fmt.Sprint("e-", i%7), Key: "k", Value: fmt.Sprint(i), Provenance: prov(i)}
			id, err := f.ID()
			if err != nil {
				t.Fatal(err)
			}
			in = append(in, world.Entry{ID: id, Object: f})
		}
		var buf bytes.Buffer
		bw := bufio.NewWriter(&buf)
		if _, _, err := writeEntries(bw, slices.Values(in)); err != nil || bw.Flush() != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	a, b := write(func(i int) *objects.Provenance { return shared[i%3] }), write(fresh)
	if !bytes.Equal(a, b) {
		t.Fatalf("shared provenances write %d bytes, equal ones %d, and not the same bytes", len(a), len(b))
	}
}

// TestWorldFileEntriesSharedStrings: records whose entities and keys are
// shared strings (one string's prefixes, which begin at the same byte, and
// repeats of one string) are the bytes of records whose equal strings are
// each their own copy, in parts of several sizes: the writer's strings
// found by where their bytes lie are the strings its map would find.
func TestWorldFileEntriesSharedStrings(t *testing.T) {
	defer func(old uint64) { partEntries = old }(partEntries)
	const long = "e-1234567890"
	keys := []string{"kin", "kinship", "kinsman"}
	write := func(own bool) []byte {
		var in []world.Entry
		for i := range 400 {
			e := long[:3+i%10] // e-1, e-12, ...: one pointer, ten lengths
			k := keys[i%3]
			if own {
				e, k = strings.Clone(e), strings.Clone(k)
			}
			in = append(in, entryOf(t, &objects.Fact{Entity: e, Key: k, Value: fmt.Sprint(i), Provenance: objects.Proposed("s-1")}))
		}
		var buf bytes.Buffer
		bw := bufio.NewWriter(&buf)
		if _, _, err := writeEntries(bw, slices.Values(in)); err != nil || bw.Flush() != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	for _, size := range []uint64{1, 7, 64, 1 << 16} {
		partEntries = size
		shared, own := write(false), write(true)
		if !bytes.Equal(shared, own) {
			t.Fatalf("parts of %d: shared strings write %d bytes, own copies %d, and not the same bytes", size, len(shared), len(own))
		}
	}
}

// TestWorldFileEntriesParts writes a world's entries in parts of several
// sizes (records and canonical objects mixed) and reads each back equal,
// entry for entry and in order; a section whose table of parts is
// altered is refused, never half read.
func TestWorldFileEntriesParts(t *testing.T) {
	var in []world.Entry
	add := func(o objects.Object) { in = append(in, entryOf(t, o)) }
	for i := range 150 {
		p := objects.Proposed(fmt.Sprint("s-", i%4))
		e := fmt.Sprintf("e-%d", i%40)
		add(&objects.Fact{Entity: e, Key: "k", Value: fmt.Sprint(i), Provenance: p})
		if i%3 == 0 {
			add(&objects.Entity{Kind: objects.KindPerson, Ident: e, Name: "E " + e, Provenance: p})
		}
		if i%5 == 0 {
			add(&objects.Relation{Relation: "knows", From: e, To: fmt.Sprintf("e-%d", i%7), Provenance: p})
		}
	}
	w, err := world.Compile(world.Input{Scope: "s", Base: in})
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Collect(w.Objects())
	defer func(old uint64) { partEntries = old }(partEntries)
	for _, size := range []uint64{1, 3, 64, uint64(len(want)), 1 << 20} {
		partEntries = size
		sec := entriesSectionOf(t, w)
		out, err := decodeEntries(sec)
		if err != nil {
			t.Fatalf("parts of %d: %v", size, err)
		}
		if len(out) != len(want) {
			t.Fatalf("parts of %d: read %d entries, wrote %d", size, len(out), len(want))
		}
		for i := range out {
			if out[i].ID != want[i].ID || !reflect.DeepEqual(out[i].Object, want[i].Object) {
				t.Fatalf("parts of %d: entry %d read %+v, wrote %+v", size, i, out[i].Object, want[i].Object)
			}
		}
		nparts := (uint64(len(want)) + size - 1) / size
		table := len(sec) - 16 - 8*int(nparts)
		alter := []struct {
			name string
			at   int
			v    uint64
		}{
			{"no parts", len(sec) - 8, 0},
			{"one part more", len(sec) - 8, nparts + 1},
			{"another part size", len(sec) - 16, size + 1},
			{"a zero part size", len(sec) - 16, 0},
			{"the first part not first", table, 9},
			{"the last part past the end", len(sec) - 24, uint64(table + 1)},
		}
		for _, a := range alter {
			if a.name == "another part size" && nparts == 1 {
				continue // one part holds every entry whatever its size says
			}
			bad := slices.Clone(sec)
			binary.LittleEndian.PutUint64(bad[a.at:], a.v)
			if _, err := decodeEntries(bad); err == nil {
				t.Fatalf("parts of %d: %s read without an error", size, a.name)
			}
		}
	}
}

// entriesSectionOf is the entries section of w's world file (from its
// count on).
func entriesSectionOf(t *testing.T, w *world.World) []byte {
	t.Helper()
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	bw.Write(make([]byte, 8))
	n, _, err := writeEntries(bw, w.ObjectsByID()) // as a world file holds them
	if err != nil || bw.Flush() != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint64(buf.Bytes(), n)
	return buf.Bytes()
}

// entryOf is o as an entry, under its id.
func entryOf(t *testing.T, o objects.Object) world.Entry {
	t.Helper()
	id, err := o.ID()
	if err != nil {
		t.Fatal(err)
	}
	return world.Entry{ID: id, Object: o}
}

// TestWorldFileEntriesWriteAllocates: writing entries allocates per
// section, not per entry. Handing bufio a slice of a stack value moves
// that value to the heap, once per entry: about 1 GB of garbage in a
// first compile of 10M entries, and 400 MB more at its peak.
func TestWorldFileEntriesWriteAllocates(t *testing.T) {
	prov := objects.Proposed("s-1")
	var in []world.Entry
	for i := range 4096 {
		in = append(in, entryOf(t, &objects.Fact{Entity: fmt.Sprint("e-", i%7), Key: "k", Value: fmt.Sprint(i), Provenance: prov}))
	}
	bw := bufio.NewWriterSize(io.Discard, 1<<16)
	allocs := testing.AllocsPerRun(3, func() {
		if _, _, err := writeEntries(bw, slices.Values(in)); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 64 {
		t.Fatalf("writing %d entries allocated %.0f times; want a few per section", len(in), allocs)
	}
}
