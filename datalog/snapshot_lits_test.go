package datalog

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// litProgram is an evaluated program whose literals are thousands of
// negated atoms of predicates of arity 0, 1, 2, 7 and 300 (interned as an
// evaluation interns them, and by its negation), and variables, some of
// them with a unit entry.
func litProgram(t *testing.T) (*Program, *Model) {
	t.Helper()
	p := NewProgram()
	must(t, p.AddFact("item", []string{"i0", "c0"}, One()))
	for i := range 3000 {
		args := []string{fmt.Sprint("i", i), fmt.Sprint("c", i%13)}
		must(t, p.AddFact("item", args, VarPoly(fmt.Sprint("v", i%40))))
		must(t, p.AddFact("gone", args, VarPoly(fmt.Sprint("w", i%7))))
	}
	must(t, p.AddRule(parseRule("kept", "kept(X) :- item(X, Y), not gone(X, Y)", One())))
	for _, c := range []struct {
		pred  string
		arity int
		n     int
	}{{"flag", 0, 1}, {"one", 1, 2000}, {"seven", 7, 1500}, {"wide", 300, 40}} {
		fp, err := p.FactPred(c.pred, c.arity)
		must(t, err)
		for i := range c.n {
			args := make([]string, c.arity)
			for k := range args {
				args[k] = fmt.Sprint("a", (i*31+k)%4001)
			}
			ids := make([]uint32, c.arity)
			p.consts.internAll(args, ids)
			p.lits.negLit(fp.id, ids)
		}
	}
	return p, evalOK(t, p)
}

// litRecord is a literal as the tests compare it.
type litRecord struct {
	kind uint8
	pred uint32
	args []uint32
	name string
}

func loadedLits(p *Program) []litRecord {
	l := p.lits.snapshot()
	out := make([]litRecord, l.len())
	for id := range out {
		li := l.at(uint32(id))
		out[id] = litRecord{kind: li.kind, args: slices.Clone(li.args), name: l.name(uint32(id))}
		if li.kind == litNeg {
			out[id].pred = li.pred
		}
	}
	return out
}

// TestSnapshotLitsRoundTrip: every literal loads back the same, copied and
// aliased; a loaded negated atom is found without being interned again,
// atoms interned after the load get fresh ids and are found, a snapshot
// of them loads, and the aliased bytes are never written.
func TestSnapshotLitsRoundTrip(t *testing.T) {
	p, m := litProgram(t)
	want := loadedLits(p)
	negs := 0
	for _, r := range want {
		if r.kind == litNeg {
			negs++
		}
	}
	if negs < 6000 || len(want)-negs < 40 {
		t.Fatalf("%d negated literals of %d: too few to test", negs, len(want))
	}
	var buf bytes.Buffer
	must(t, p.Snapshot(&buf, m))
	sum := crc32.ChecksumIEEE(buf.Bytes())
	for _, c := range []struct {
		name    string
		data    func(t *testing.T) []byte
		load    func([]byte) (*Program, *Model, error)
		inPlace bool
	}{
		{"copied", func(*testing.T) []byte { return alignedCopy(buf.Bytes(), 0) }, LoadSnapshot, false},
		{"aliased", func(*testing.T) []byte { return alignedCopy(buf.Bytes(), 0) }, aliasedNoRelease, true},
		{"mapped", func(t *testing.T) []byte { return mapReadOnly(t, buf.Bytes()) }, aliasedDropping, true},
		{"odd address", func(*testing.T) []byte { return alignedCopy(buf.Bytes(), 3) }, aliasedNoRelease, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := c.data(t)
			q, qm, err := c.load(data)
			must(t, err)
			if got := loadedLits(q); !slices.EqualFunc(got, want, litRecordEqual) {
				t.Fatal("the loaded literals differ from the snapshotted ones")
			}
			checkLitPlaces(t, q.lits.base, data, c.inPlace && littleEndian)
			if fullDump(qm) != fullDump(m) {
				t.Fatal("the loaded model differs")
			}
			internAfterLoad(t, q, want)
			if crc32.ChecksumIEEE(data) != sum {
				t.Fatal("the load or what came after wrote into the snapshot's bytes")
			}
			// A snapshot of the program with literals past the loaded ones.
			qm2 := evalOK(t, q)
			if _, _, ok := snapRoundTrip(t, q, qm2); !ok {
				t.Fatal("snapshot of the loaded program refused")
			}
		})
	}
}

func litRecordEqual(a, b litRecord) bool {
	return a.kind == b.kind && a.pred == b.pred && slices.Equal(a.args, b.args) && a.name == b.name
}

// checkLitPlaces fails unless b's columns all lie inside data (inPlace)
// or all outside it.
func checkLitPlaces(t *testing.T, b *litCols, data []byte, inPlace bool) {
	t.Helper()
	for name, at := range map[string]unsafe.Pointer{"heads": unsafe.Pointer(&b.heads[0]), "offsets": unsafe.Pointer(&b.offs[0]),
		"arguments": unsafe.Pointer(&b.args[0]), "hash": unsafe.Pointer(&b.negs[0])} {
		if off := colOffset(data, at); (off >= 0) != inPlace {
			t.Errorf("%s at offset %d of the bytes; in place %v wanted", name, off, inPlace)
		}
	}
}

// colOffset is the offset in data of a column at p, -1 when outside.
func colOffset(data []byte, p unsafe.Pointer) int {
	off := int(uintptr(p) - uintptr(unsafe.Pointer(&data[0])))
	if uintptr(p) < uintptr(unsafe.Pointer(&data[0])) || off >= len(data) {
		return -1
	}
	return off
}

// internAfterLoad checks that q's loaded negated atoms are found and that
// atoms, variables new to q get fresh ids, found afterwards.
func internAfterLoad(t *testing.T, q *Program, want []litRecord) {
	t.Helper()
	n := q.lits.n
	for id, r := range want {
		if r.kind == litNeg {
			if got := q.lits.negLit(r.pred, r.args); got != uint32(id) {
				t.Fatalf("negLit of loaded literal %d: %d", id, got)
			}
		}
	}
	if v, ok := q.lits.vars["v7"]; !ok || q.lits.varLit("v7") != v || q.lits.n != n {
		t.Fatal("a loaded variable was interned again")
	}
	one, _ := q.preds.lookup("one")
	fresh := map[uint32]string{}
	for i := range 500 {
		c := q.consts.intern(fmt.Sprint("after-", i))
		fresh[q.lits.negLit(one, []uint32{c})] = fmt.Sprintf("not one(after-%d)", i)
		fresh[q.lits.varLit(fmt.Sprint("late-", i))] = fmt.Sprint("late-", i)
	}
	if len(fresh) != 1000 || q.lits.n != n+1000 {
		t.Fatalf("%d fresh ids, table of %d; want 1000 past %d", len(fresh), q.lits.n, n)
	}
	l := q.lits.snapshot()
	for id, name := range fresh {
		if int(id) < n || l.name(id) != name {
			t.Fatalf("fresh literal %d: %q, want %q past %d", id, l.name(id), name, n)
		}
		if li := l.at(id); li.kind == litNeg && q.lits.negLit(li.pred, li.args) != id {
			t.Fatalf("fresh literal %d not found again", id)
		}
	}
	for id, r := range want {
		if r.kind == litNeg && q.lits.negLit(r.pred, r.args) != uint32(id) {
			t.Fatalf("loaded literal %d lost after interning more", id)
		}
	}
}

// litColumns returns where the literals' columns lie in a snapshot:
// [start, end) of the heads, offsets, arguments and hash slots.
func litColumns(t *testing.T, snap []byte) map[string][2]int {
	t.Helper()
	data := alignedCopy(snap, 0)
	q, _, err := aliasedNoRelease(data)
	must(t, err)
	b := q.lits.base
	span := func(p unsafe.Pointer, size int) [2]int {
		off := colOffset(data, p)
		if off < 0 {
			t.Fatal("a literal column not in place")
		}
		return [2]int{off, off + size}
	}
	return map[string][2]int{
		"heads":     span(unsafe.Pointer(&b.heads[0]), 4*len(b.heads)),
		"offsets":   span(unsafe.Pointer(&b.offs[0]), 4*len(b.offs)),
		"arguments": span(unsafe.Pointer(&b.args[0]), 4*len(b.args)),
		"hash":      span(unsafe.Pointer(&b.negs[0]), 8*len(b.negs)),
	}
}

// TestSnapshotLitsCorrupt: a byte changed anywhere in the literals'
// columns, or the bytes cut inside them, is refused with an error, never
// a panic, however the snapshot is loaded.
// litCorruptSamples is how many places of each column TestSnapshotLitsCorrupt
// corrupts (fewer under the race detector: see race_test.go).
var litCorruptSamples = 211

func TestSnapshotLitsCorrupt(t *testing.T) {
	if !littleEndian {
		t.Skip("the columns' places are found by aliasing")
	}
	p, m := litProgram(t)
	var buf bytes.Buffer
	must(t, p.Snapshot(&buf, m))
	good := buf.Bytes()
	for name, col := range litColumns(t, good) {
		t.Run(name, func(t *testing.T) {
			step := max(1, (col[1]-col[0])/litCorruptSamples)
			for i := col[0]; i < col[1]; i += step {
				for _, bad := range [][]byte{flipped(good, i, 0x01), flipped(good, i, 0x80), good[:i]} {
					refused(t, fmt.Sprintf("byte %d", i), bad)
				}
			}
		})
	}
}

func flipped(b []byte, i int, bit byte) []byte {
	out := slices.Clone(b)
	out[i] ^= bit
	return out
}

// refused fails unless every loader refuses bad with errSnapshot.
func refused(t *testing.T, what string, bad []byte) {
	t.Helper()
	for _, load := range []func([]byte) (*Program, *Model, error){LoadSnapshot, aliasedNoRelease} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s: load panicked: %v", what, r)
				}
			}()
			if _, _, err := load(alignedCopy(bad, 0)); !errors.Is(err, errSnapshot) {
				t.Fatalf("%s: loaded (%v)", what, err)
			}
		}()
	}
}

// TestSnapshotLitsTwice: two negated literals of one atom are refused,
// though the hash is one addNeg could have made of them.
func TestSnapshotLitsTwice(t *testing.T) {
	if !littleEndian {
		t.Skip("the columns' places are found by aliasing")
	}
	p, m := litProgram(t)
	var buf bytes.Buffer
	must(t, p.Snapshot(&buf, m))
	bad := alignedCopy(buf.Bytes(), 0)
	cols := litColumns(t, bad)
	u32 := func(col string) []uint32 {
		c := cols[col]
		return unsafe.Slice((*uint32)(unsafe.Pointer(&bad[c[0]])), (c[1]-c[0])/4)
	}
	heads, offs, args := u32("heads"), u32("offsets"), u32("arguments")
	slots := unsafe.Slice((*uint64)(unsafe.Pointer(&bad[cols["hash"][0]])), (cols["hash"][1]-cols["hash"][0])/8)
	// The first two negated literals of predicate one (arity 1) get one atom.
	var pair []int
	one, _ := p.preds.lookup("one")
	for id, h := range heads {
		if uint8(h>>litKindShift) == litNeg && h&litXMask == one {
			pair = append(pair, id)
		}
	}
	args[offs[pair[1]]] = args[offs[pair[0]]]
	clear(slots)
	b := &litCols{n: len(heads), heads: heads, offs: offs, args: args}
	for id := range uint32(b.n) {
		if li := b.at(id); li.kind == litNeg {
			placeNeg(slots, id, negHash(li.pred, li.args))
		}
	}
	for _, load := range []func([]byte) (*Program, *Model, error){LoadSnapshot, aliasedNoRelease} {
		if _, _, err := load(bad); err == nil || !strings.Contains(err.Error(), "twice") {
			t.Fatalf("two literals of one atom: %v", err)
		}
	}
}
