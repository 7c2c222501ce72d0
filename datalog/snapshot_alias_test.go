package datalog

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// snapLoader loads a snapshot's bytes as a test means to.
type snapLoader func(t *testing.T, data []byte) (*Program, *Model, error)

// snapLoaders are the ways a snapshot is loaded: copied, and aliased from
// a read-only mapping of a file, where a write into a column used in place
// faults (SIGSEGV) instead of passing unseen.
var snapLoaders = []struct {
	name string
	load snapLoader
}{
	{"copied", loadCopied},
	{"mapped", loadMapped},
}

func loadCopied(_ *testing.T, data []byte) (*Program, *Model, error) { return LoadSnapshot(data) }

func loadMapped(t *testing.T, data []byte) (*Program, *Model, error) {
	return LoadSnapshotAliased(mapReadOnly(t, data), dropPages)
}

func init() {
	// Every stretch a load is done with is given back: a column used in
	// place is then read again from the page cache, as at scale.
	releaseStep = 1
}

// dropped counts the bytes dropPages was handed.
var dropped atomic.Int64

// dropPages gives back the pages wholly inside b, a stretch of a
// read-only mapping, as a world file's loader does.
func dropPages(b []byte) {
	dropped.Add(int64(len(b)))
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(&b[0]))
	lo, hi := (start+page-1)&^(page-1), (start+uintptr(len(b)))&^(page-1)
	if hi > lo {
		unix.Madvise(b[lo-start:hi-start], unix.MADV_DONTNEED)
	}
}

// mapReadOnly writes data to a file and maps it read-only, shared, as a
// world file is mapped; the mapping lasts until the test's end.
func mapReadOnly(t *testing.T, data []byte) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "snap")
	must(t, os.WriteFile(path, data, 0o600))
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, len(data), unix.PROT_READ, unix.MAP_SHARED)
	must(t, err)
	t.Cleanup(func() { unix.Munmap(m) })
	return m
}

// alignedCopy returns a copy of b that begins at an address that is a
// multiple of 8, at offset off past such an address.
func alignedCopy(b []byte, off int) []byte {
	words := make([]uint64, (len(b)+off)/8+1)
	out := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), 8*len(words))[off : off+len(b)]
	copy(out, b)
	return out
}

// aliasProgram is a program whose snapshot has every kind of column: the
// rows of facts and derived relations, fact supports, flat hashes past one
// segment and an index built by the evaluation.
func aliasProgram(t *testing.T) (*Program, *Model) {
	t.Helper()
	p := NewProgram()
	edge, err := p.FactPred("edge", 2)
	must(t, err)
	var batch FactBatch
	for i := range 70_000 {
		batch.Add(edge, []string{fmt.Sprint("n", i), fmt.Sprint("n", i+1)}, VarPoly(fmt.Sprint("d", i%3)))
	}
	must(t, p.AddFacts(&batch))
	must(t, p.AddRule(parseRule("step", "hop(X, Z) :- edge(X, Y), edge(Y, Z)", One())))
	return p, evalOK(t, p)
}

// columnPlaces counts, by kind, the columns of a loaded program and model
// that lie inside data and those that lie outside it.
func columnPlaces(p *Program, m *Model, data []byte) (inside, outside map[string]int) {
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	hi := lo + uintptr(len(data))
	inside, outside = map[string]int{}, map[string]int{}
	note := func(kind string, first unsafe.Pointer) {
		if a := uintptr(first); lo <= a && a < hi {
			inside[kind]++
		} else {
			outside[kind]++
		}
	}
	u32s := func(kind string, v *pvec[uint32]) {
		for _, seg := range v.segs {
			if len(seg) > 0 {
				note(kind, unsafe.Pointer(&seg[0]))
			}
		}
	}
	hash := func(kind string, h *phash) {
		for _, seg := range h.segs {
			note(kind, unsafe.Pointer(&seg[0]))
		}
	}
	rel := func(r *relation) {
		u32s("rows", &r.data)
		hash("hash", &r.set)
		for _, ix := range r.idx {
			u32s("index chain", &ix.next)
			hash("index hash", &ix.heads)
		}
	}
	for _, f := range p.facts.all() {
		if f != nil {
			u32s("fact supports", &f.ents)
			rel(f.tab)
		}
	}
	for _, r := range m.rels.all() {
		if r != nil {
			rel(r)
		}
	}
	return inside, outside
}

// TestSnapshotAliasesColumns: an aliased load of aligned bytes uses every
// column in place, one of bytes at an odd address copies every column
// (and loads the same model), and LoadSnapshot copies every column.
func TestSnapshotAliasesColumns(t *testing.T) {
	if !littleEndian {
		t.Skip("columns are copied on a big-endian machine")
	}
	p, m := aliasProgram(t)
	var buf bytes.Buffer
	must(t, p.Snapshot(&buf, m))
	want := fullDump(m)
	kinds := []string{"rows", "hash", "index chain", "index hash", "fact supports"}
	for _, c := range []struct {
		name    string
		data    func(t *testing.T) []byte
		load    func([]byte) (*Program, *Model, error)
		inPlace bool
	}{
		{"aliased", func(*testing.T) []byte { return alignedCopy(buf.Bytes(), 0) }, aliasedNoRelease, true},
		{"mapped", func(t *testing.T) []byte { return mapReadOnly(t, buf.Bytes()) }, aliasedDropping, true},
		{"odd address", func(*testing.T) []byte { return alignedCopy(buf.Bytes(), 1) }, aliasedNoRelease, false},
		{"4 past 8", func(*testing.T) []byte { return alignedCopy(buf.Bytes(), 4) }, aliasedNoRelease, false},
		{"copied", func(*testing.T) []byte { return alignedCopy(buf.Bytes(), 0) }, LoadSnapshot, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := c.data(t)
			before := dropped.Load()
			q, qm, err := c.load(data)
			must(t, err)
			if c.name == "mapped" && dropped.Load() == before {
				t.Error("the load gave back nothing of the mapping")
			}
			if got := fullDump(qm); got != want {
				t.Fatal("the loaded model differs from the snapshotted one")
			}
			inside, outside := columnPlaces(q, qm, data)
			for _, k := range kinds {
				// At 4 past an 8 boundary the uint32 columns are aligned
				// and the hash segments are not.
				in := c.inPlace || c.name == "4 past 8" && !strings.Contains(k, "hash")
				got, other := inside[k], outside[k]
				if !in {
					got, other = other, got
				}
				if got == 0 || other != 0 {
					t.Errorf("%s: %d columns in the bytes, %d outside; want all %s", k, inside[k], outside[k],
						map[bool]string{true: "in the bytes", false: "copied"}[in])
				}
			}
		})
	}
}

func aliasedNoRelease(b []byte) (*Program, *Model, error) { return LoadSnapshotAliased(b, nil) }

func aliasedDropping(b []byte) (*Program, *Model, error) { return LoadSnapshotAliased(b, dropPages) }

// TestSnapshotPadding: a snapshot pads its columns with zero bytes, and a
// load refuses a padding byte that is not zero.
func TestSnapshotPadding(t *testing.T) {
	p := NewProgram()
	for i := range 40 {
		must(t, p.AddFact("seen", []string{fmt.Sprint("k", i), fmt.Sprint("place-", i*7)}, VarPoly(fmt.Sprint("s", i%4))))
	}
	must(t, p.AddRule(parseRule("near", "near(X, Z) :- seen(X, Y), seen(Z, Y)", One())))
	m := evalOK(t, p)
	var buf bytes.Buffer
	must(t, p.Snapshot(&buf, m))
	good := buf.Bytes()
	for _, load := range []func([]byte) (*Program, *Model, error){LoadSnapshot, aliasedNoRelease} {
		pads := 0
		for i, c := range good {
			if c != 0 {
				continue
			}
			bad := alignedCopy(good, 0)
			bad[i] = 1
			if _, _, err := load(bad); err != nil && strings.Contains(err.Error(), "padding") {
				pads++
			}
		}
		if pads == 0 {
			t.Fatal("no padding byte made non-zero was refused")
		}
	}
}

// TestSnapshotColumnsSwapped: a snapshot written from the columns' own
// bytes, as on a little-endian machine (long columns handed to the writer
// in place, short ones copied), is byte for byte the one written a value
// at a time, as on a big-endian machine.
func TestSnapshotColumnsSwapped(t *testing.T) {
	if !littleEndian {
		t.Skip("only the value-by-value path runs on a big-endian machine")
	}
	small := NewProgram()
	must(t, small.AddFact("edge", []string{"a", "b"}, VarPoly("d")))
	must(t, small.AddRule(parseRule("step", "hop(X, Z) :- edge(X, Y), edge(Y, Z)", One())))
	big, bigModel := aliasProgram(t)
	for _, c := range []struct {
		name string
		p    *Program
		m    *Model
	}{{"small", small, evalOK(t, small)}, {"large", big, bigModel}} {
		t.Run(c.name, func(t *testing.T) {
			var native, swapped bytes.Buffer
			must(t, c.p.Snapshot(&native, c.m))
			littleEndian = false
			err := c.p.Snapshot(&swapped, c.m)
			littleEndian = true
			must(t, err)
			if !bytes.Equal(native.Bytes(), swapped.Bytes()) {
				i := 0
				for i < min(native.Len(), swapped.Len()) && native.Bytes()[i] == swapped.Bytes()[i] {
					i++
				}
				t.Fatalf("%d bytes from the columns' own, %d a value at a time; they differ from byte %d", native.Len(), swapped.Len(), i)
			}
		})
	}
}
