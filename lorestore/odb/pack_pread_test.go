package odb

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// preadStore builds a store whose one pack (written by git pack-objects, so
// that it holds deltas of both kinds git writes) has objects of every
// shape a positioned read must handle: small text, text past the first
// read, incompressible bytes in stored blocks, objects larger than a span,
// and runs of near copies that git stores as deltas.
func preadStore(t *testing.T) (string, []plumbing.Hash) {
	t.Helper()
	dir := initBare(t)
	db := openDB(t, dir, Options{AutoPackLimit: -1})
	r := rand.New(rand.NewPCG(3, 9))
	b := db.NewBatch()
	var hs []plumbing.Hash
	add := func(data []byte) { hs = append(hs, b.Add(plumbing.BlobObject, data)) }
	for range 300 {
		add(blob(r, 20+r.IntN(400)))
	}
	for range 40 {
		add(blob(r, 600+r.IntN(4000)))
	}
	for _, n := range []int{700, 5000, 70000, 200000, spanMax + 5000} {
		noise := make([]byte, n)
		for i := range noise {
			noise[i] = byte(r.Uint32())
		}
		add(noise)
	}
	base := blob(r, 3000)
	for i := range 30 {
		near := slices.Clone(base)
		copy(near[r.IntN(len(near)-20):], fmt.Sprintf("edit %d", i))
		add(near)
	}
	if err := b.Write(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	old := append(packFiles(t, dir, "pack"), packFiles(t, dir, "idx")...)
	// git names a pack by its objects: one more, loose, makes git's pack
	// another file than the batch's.
	extra := git(t, dir, []byte("one more\n"), "hash-object", "-w", "--stdin")
	list := bytes.NewBuffer(extra)
	for _, h := range hs {
		fmt.Fprintln(list, h)
	}
	git(t, dir, list.Bytes(), "pack-objects", "-q", "--no-reuse-object", "--window=20", "--depth=8", filepath.Join(dir, "objects", "pack", "pack"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	return dir, hs
}

// openView opens the store at dir and a view of its packs, both closed
// when the test ends.
func openView(t *testing.T, dir string) *View {
	t.Helper()
	v, err := openDB(t, dir, Options{}).View()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	return v
}

// filesOf opens v's pack files, closed when the test ends (before v).
func filesOf(t *testing.T, v *View) *PackFiles {
	pf := v.OpenFiles()
	t.Cleanup(pf.Close)
	return pf
}

// readResult is what one read gave, comparable.
type readResult struct {
	typ  plumbing.ObjectType
	data string
	err  string
}

func resultOf(typ plumbing.ObjectType, data []byte, err error) readResult {
	r := readResult{typ: typ, data: string(data)}
	if err != nil {
		r.err = err.Error()
	}
	return r
}

// readAll reads locs with ReadRun in runs of the given length (without
// an arena, with a fresh one, and with it again once reset), with ReadAt,
// and through the mapping, and fails unless all agree.
func readAll(t *testing.T, v *View, pf *PackFiles, locs []Loc, run int) {
	t.Helper()
	arena := new(Arena)
	for _, a := range []*Arena{nil, arena, arena} {
		if a != nil {
			a.Reset()
		}
		readAllIn(t, v, pf, locs, run, a)
	}
}

// readAllIn is readAll with ReadRun taking data from arena a.
func readAllIn(t *testing.T, v *View, pf *PackFiles, locs []Loc, run int, a *Arena) {
	t.Helper()
	var scratch, single []byte
	data := make([][]byte, len(locs))
	got := make([]readResult, len(locs))
	for lo := 0; lo < len(locs); lo += run {
		hi := min(len(locs), lo+run)
		pf.ReadRun(hi-lo, func(k int) Loc { return locs[lo+k] }, &scratch, a,
			func(k int, typ plumbing.ObjectType, d []byte, err error) {
				data[lo+k] = d
				got[lo+k] = resultOf(typ, nil, err)
			})
	}
	for i := range got {
		got[i].data = string(data[i]) // read when every run is over: nothing taken was overwritten
	}
	for i, l := range locs {
		want := resultOf(v.ReadAt(l))
		if got[i] != want {
			t.Fatalf("ReadRun of loc %x: %v, %d bytes, %q; mapped: %v, %d bytes, %q",
				l, got[i].typ, len(got[i].data), got[i].err, want.typ, len(want.data), want.err)
		}
		if at := resultOf(pf.ReadAt(l, &single)); at != want {
			t.Fatalf("ReadAt of loc %x: %v, %d bytes, %q; mapped: %v, %d bytes, %q",
				l, at.typ, len(at.data), at.err, want.typ, len(want.data), want.err)
		}
	}
}

// locsOf locates hs in v, sorted as a sweep reads them: by page, and out
// of order within one.
func locsOf(t *testing.T, v *View, hs []plumbing.Hash) []Loc {
	t.Helper()
	locs := make([]Loc, len(hs))
	for i, h := range hs {
		l, ok := v.Locate(h)
		if !ok {
			t.Fatalf("object %d not located", i)
		}
		locs[i] = l
	}
	slices.Sort(locs)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i+1 < len(locs); i++ {
		if locs[i]>>12 == locs[i+1]>>12 && r.IntN(2) == 0 {
			locs[i], locs[i+1] = locs[i+1], locs[i]
		}
	}
	return locs
}

// TestPackFilesReadAsMapped: every object, deltas and objects past a
// read or a span included, reads from the pack file as it reads through
// the mapping, in runs of every length and alone.
func TestPackFilesReadAsMapped(t *testing.T) {
	dir, hs := preadStore(t)
	v := openView(t, dir)
	pf := filesOf(t, v)
	if pf.Mapped() {
		t.Fatal("the pack is read through its mapping, not its file")
	}
	locs := locsOf(t, v, hs)
	deltas := 0
	for _, l := range locs {
		h, err := v.s.packs[l.Pack()].header(l.Offset())
		if err != nil {
			t.Fatal(err)
		}
		if !isBaseType(h.typ) {
			deltas++
		}
	}
	if deltas == 0 {
		t.Fatal("git stored no delta: the test reads no delta")
	}
	for _, run := range []int{1, 3, 64, len(locs)} {
		readAll(t, v, pf, locs, run)
	}
}

// packCorruptFlips is how many single-byte changes TestPackFilesCorrupt
// reads a pack with.
var packCorruptFlips = 40

// TestPackFilesCorrupt: a byte changed anywhere in the pack reads as it
// reads through the mapping (the same data or the same error), and a pack
// file gone, or not the one mapped, is read through the mapping.
func TestPackFilesCorrupt(t *testing.T) {
	dir, hs := preadStore(t)
	packs := packFiles(t, dir, "pack")
	if len(packs) != 1 {
		t.Fatalf("%d packs, want 1", len(packs))
	}
	path := packs[0]
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	clean, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for round := range packCorruptFlips {
		at := packHeaderLen + r.IntN(len(clean)-packHeaderLen-hashLen)
		bad := slices.Clone(clean)
		bad[at] ^= byte(1 + r.IntN(255))
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprint("flip-", round), func(t *testing.T) {
			v := openView(t, dir)
			readAll(t, v, filesOf(t, v), locsOf(t, v, hs), 16)
		})
	}
	if err := os.WriteFile(path, clean, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		alter func(t *testing.T)
	}{
		{"gone", func(t *testing.T) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}},
		{"other-size", func(t *testing.T) {
			if err := os.WriteFile(path, clean[:len(clean)-1], 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"other-trailer", func(t *testing.T) {
			other := slices.Clone(clean)
			other[len(other)-1] ^= 1
			if err := os.WriteFile(path, other, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(path, clean, 0o644); err != nil {
				t.Fatal(err)
			}
			v := openView(t, dir)
			// The file changes under the mapping: write it anew, so the
			// mapping keeps the old inode's pages.
			tmp := filepath.Join(t.TempDir(), "keep")
			if err := os.Rename(path, tmp); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, clean, 0o444); err != nil {
				t.Fatal(err)
			}
			c.alter(t)
			pf := filesOf(t, v)
			if !pf.Mapped() {
				t.Fatal("a pack file not the one mapped is read")
			}
			readAll(t, v, pf, locsOf(t, v, hs), 16)
			mapped := v.s.packs[0].data
			if !bytes.Equal(mapped, clean) {
				t.Fatal("the mapping changed")
			}
		})
	}
}

// TestBaseEntryHeaderAgrees holds the positioned reads' header parse to
// decodeEntryHeader's: the same type, size and length for an undeltified
// entry, false for a delta or a header that runs off its bytes.
func TestBaseEntryHeaderAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 34))
	for range 20000 {
		d := make([]byte, 1+rng.IntN(24))
		for i := range d {
			d[i] = byte(rng.Uint32())
			if i < len(d)-1 && rng.IntN(3) > 0 {
				d[i] |= 0x80 // long sizes and long relative offsets
			}
		}
		h, _, n, ok := decodeEntryHeader(d)
		bt, bsize, bn, bok := baseEntryHeader(d)
		want := ok && isBaseType(h.typ)
		if bok != want {
			t.Fatalf("% x: baseEntryHeader says %v, decodeEntryHeader %v of type %v", d, bok, ok, h.typ)
		}
		if want && (bt != h.typ || bsize != h.size || bn != n) {
			t.Fatalf("% x: baseEntryHeader %v %d %d, decodeEntryHeader %v %d %d", d, bt, bsize, bn, h.typ, h.size, n)
		}
	}
}
