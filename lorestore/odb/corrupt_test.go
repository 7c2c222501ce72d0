// Corruption: damaged packs, indexes, deltas and loose objects produce
// errors (ErrCorrupt where the data is at fault), never panics. Also the
// fuzz targets, whose seed corpora run in plain `go test`.

package odb

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// installPack writes pack bytes and an index of the given entries into
// objects/pack (no validation), as a buggy or hostile writer might.
func installPack(t testing.TB, dir string, pk []byte, entries []idxEntry) string {
	t.Helper()
	base := filepath.Join(dir, "objects", "pack", "pack-"+hex.EncodeToString(pk[len(pk)-20:]))
	var idx bytes.Buffer
	if _, err := writeIdx(&idx, entries, pk[len(pk)-20:]); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(base+".pack", pk, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(base+".idx", idx.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return base
}

// deltaEntry encodes an OFS_DELTA entry at off whose base is at baseOff.
func deltaEntry(off, baseOff uint64, delta []byte) []byte {
	raw := appendEntryHeader(nil, plumbing.OFSDeltaObject, uint64(len(delta)))
	rel := off - baseOff
	var enc []byte
	enc = append(enc, byte(rel&0x7f))
	for rel >>= 7; rel != 0; rel >>= 7 {
		rel--
		enc = append([]byte{0x80 | byte(rel&0x7f)}, enc...)
	}
	raw = append(raw, enc...)
	d := deflaters.Get().(*deflater)
	defer deflaters.Put(d)
	return appendDeflate(raw, d, plumbing.BlobObject, delta)
}

func TestCorruptPackedObjects(t *testing.T) {
	base := []byte("the quick brown fox jumps over the lazy dog\n")
	good := wholeEntry(plumbing.BlobObject, base)
	baseH := HashObject(plumbing.BlobObject, base)
	target := []byte("the quick brown fox\n")
	targetH := HashObject(plumbing.BlobObject, target)
	okDelta := []byte{byte(len(base)), byte(len(target)), 0x90, 19, 1, '\n'} // copy 0..19, insert "\n"
	garbage := append(appendEntryHeader(nil, plumbing.BlobObject, uint64(len(base))), []byte("this is not zlib at all")...)
	for _, tc := range []struct {
		name    string
		entries [][]byte
		want    plumbing.Hash // object to read; must fail with ErrCorrupt
		ok      bool          // or succeed (sanity check of the builder)
	}{
		{"sane-delta", [][]byte{good, deltaEntry(12+uint64(len(good)), 12, okDelta)}, targetH, true},
		{"garbage-zlib", [][]byte{garbage}, baseH, false},
		{"short-zlib", [][]byte{good[:len(good)-6]}, baseH, false},
		{"size-mismatch", [][]byte{append(appendEntryHeader(nil, plumbing.BlobObject, 3), good[1:]...)}, baseH, false},
		{"delta-copy-out-of-range", [][]byte{good, deltaEntry(12+uint64(len(good)), 12,
			[]byte{byte(len(base)), byte(len(target)), 0x91, 40, 20})}, targetH, false},
		{"delta-wrong-source-size", [][]byte{good, deltaEntry(12+uint64(len(good)), 12,
			[]byte{byte(len(base) + 1), byte(len(target)), 0x90, 19, 1, '\n'})}, targetH, false},
		{"delta-reserved-opcode", [][]byte{good, deltaEntry(12+uint64(len(good)), 12,
			[]byte{byte(len(base)), byte(len(target)), 0})}, targetH, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := initBare(t)
			pk := rawPack(tc.entries...)
			var entries []idxEntry
			off := uint64(12)
			for i, e := range tc.entries {
				h := baseH
				if i == 1 || (len(tc.entries) == 1 && tc.want != baseH) {
					h = tc.want
				}
				entries = append(entries, idxEntry{hash: h, offset: off})
				off += uint64(len(e))
			}
			installPack(t, dir, pk, entries)
			db := openDB(t, dir, Options{})
			_, data, err := db.Read(tc.want)
			if tc.ok {
				if err != nil || !bytes.Equal(data, target) {
					t.Fatalf("sane pack: %q, %v", data, err)
				}
				return
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Read = %v, want ErrCorrupt", err)
			}
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.File == "" {
				t.Fatalf("error %v does not name the file", err)
			}
		})
	}
}

func TestCorruptFilesOnOpen(t *testing.T) {
	dir := initBare(t)
	db := openDB(t, dir, Options{})
	b := db.NewBatch()
	h := b.Add(plumbing.BlobObject, []byte("precious\n"))
	if err := b.Write(); err != nil {
		t.Fatal(err)
	}
	base := findPackOf(t, db, h)
	db.Close()
	pk, _ := os.ReadFile(base + ".pack")
	idx, _ := os.ReadFile(base + ".idx")
	flip := func(b []byte, i int) []byte {
		c := append([]byte(nil), b...)
		c[i] ^= 0x40
		return c
	}
	for _, tc := range []struct {
		name string
		pack []byte
		idx  []byte
		bad  bool // the pack is unusable: skipped with a warning, reported by CheckPacks
	}{
		{"intact", pk, idx, false},
		{"truncated-pack", pk[:len(pk)-7], idx, true},
		{"empty-pack", nil, idx, true},
		{"empty-idx", pk, nil, true},
		{"empty-both", nil, nil, true},
		{"missing-pack", []byte("remove"), idx, true},
		{"bad-idx-checksum", pk, flip(idx, len(idx)-1), true},
		{"bad-idx-body", pk, flip(idx, 8+1024+3), true},
		{"truncated-idx", pk, idx[:len(idx)-30], true},
		{"bad-pack-signature", flip(pk, 0), idx, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.WriteFile(base+".pack", tc.pack, 0o644)
			os.WriteFile(base+".idx", tc.idx, 0o644)
			if string(tc.pack) == "remove" {
				os.Remove(base + ".pack")
			}
			var warned []error
			// Git tolerates an unusable pack (git log works beside it), so
			// Open does too: it skips the pack and warns.
			db, err := Open(dir, Options{OnSkippedPack: func(err error) { warned = append(warned, err) }})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer db.Close()
			problems := db.CheckPacks()
			if !tc.bad {
				if len(warned) != 0 || len(problems) != 0 {
					t.Fatalf("intact pack: warnings %v, problems %v", warned, problems)
				}
				mustRead(t, db, h, plumbing.BlobObject, []byte("precious\n"))
				return
			}
			if len(warned) != 1 || !errors.Is(warned[0], ErrCorrupt) || !strings.Contains(warned[0].Error(), filepath.Base(base)) {
				t.Fatalf("warnings %v, want one naming the pack", warned)
			}
			if len(problems) != 1 || !errors.Is(problems[0], ErrCorrupt) {
				t.Fatalf("CheckPacks = %v, want one problem", problems)
			}
			if _, _, err := db.Read(h); !errors.Is(err, ErrNotFound) {
				t.Fatalf("read of an object only in the skipped pack: %v", err)
			}
			// A later rescan (after a miss) does not warn again.
			db.Read(plumbing.NewHash("0123456789012345678901234567890123456789"))
			if len(warned) != 1 {
				t.Fatalf("warned %d times", len(warned))
			}
		})
	}
}

func TestCorruptLoose(t *testing.T) {
	dir := initBare(t)
	db := openDB(t, dir, Options{})
	h := HashObject(plumbing.BlobObject, []byte("x"))
	path := loosePath(filepath.Join(dir, "objects"), h)
	os.MkdirAll(filepath.Dir(path), 0o755)
	for name, content := range map[string][]byte{
		"not-zlib":   []byte("plain text"),
		"bad-header": zlibOf([]byte("blob\x00x")),
		"bad-type":   zlibOf([]byte("blurb 1\x00x")),
		"too-long":   zlibOf([]byte("blob 1\x00xy")),
		"too-short":  zlibOf([]byte("blob 5\x00x")),
		"no-nul":     zlibOf(bytes.Repeat([]byte("blob 1"), 20)),
	} {
		os.WriteFile(path, content, 0o444)
		if _, _, err := db.Read(h); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Read = %v, want ErrCorrupt", name, err)
		}
		os.Remove(path)
	}
}

func zlibOf(b []byte) []byte {
	d := deflaters.Get().(*deflater)
	defer deflaters.Put(d)
	return appendDeflate(nil, d, plumbing.BlobObject, b)
}

func TestIngestCorruptStreams(t *testing.T) {
	dir := initBare(t)
	db := openDB(t, dir, Options{})
	blobA := []byte("object A\n")
	good := rawPack(wholeEntry(plumbing.BlobObject, blobA))
	refDelta := append(appendEntryHeader(nil, plumbing.REFDeltaObject, 4), make([]byte, 20)...)
	refDelta = append(refDelta, zlibOf([]byte{1, 1, 0x90, 1})...)
	for _, tc := range []struct {
		name string
		pk   []byte
		want error
	}{
		{"truncated", good[:len(good)-3], ErrCorrupt},
		{"bad-trailer", append(append([]byte(nil), good[:len(good)-1]...), good[len(good)-1]^1), ErrCorrupt},
		{"bad-signature", append([]byte("KCAP"), good[4:]...), ErrCorrupt},
		{"thin", rawPack(refDelta), ErrThinPack},
		{"duplicate", rawPack(wholeEntry(plumbing.BlobObject, blobA), wholeEntry(plumbing.BlobObject, blobA)), ErrCorrupt},
		{"empty", rawPack(), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(packFiles(t, dir, "pack"))
			err := db.IngestPack(bytes.NewReader(tc.pk), nil)
			if !errors.Is(err, tc.want) && !(tc.want == nil && err == nil) {
				t.Fatalf("IngestPack = %v, want %v", err, tc.want)
			}
			if n := len(packFiles(t, dir, "pack")); n != before {
				t.Fatalf("a failed or empty ingest left a pack")
			}
			left, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "tmp_*"))
			if len(left) != 0 {
				t.Fatalf("temporary files left: %v", left)
			}
		})
	}
	if err := db.IngestPack(bytes.NewReader(good), nil); err != nil {
		t.Fatal(err)
	}
	mustRead(t, db, HashObject(plumbing.BlobObject, blobA), plumbing.BlobObject, blobA)
}

func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte("hello world"), []byte{11, 5, 0x90, 5})
	f.Add([]byte("abc"), []byte{3, 6, 0x90, 3, 3, 'x', 'y', 'z'})
	f.Add([]byte{}, []byte{0, 0})
	f.Add([]byte("abc"), []byte{3, 4, 0xff, 0, 0, 0, 0, 1, 0, 0})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		out, ok := applyDelta(base, delta)
		if ok {
			_, want, _, _ := deltaSizes(delta)
			if uint64(len(out)) != want {
				t.Fatalf("applied delta gives %d bytes, announced %d", len(out), want)
			}
		}
	})
}

func FuzzParseIdx(f *testing.F) {
	var idx bytes.Buffer
	sum := sha1.Sum(nil)
	writeIdx(&idx, []idxEntry{{hash: plumbing.Hash{1}, offset: 12}, {hash: plumbing.Hash{200}, offset: 1 << 33}}, sum[:])
	f.Add(idx.Bytes())
	f.Add(idx.Bytes()[:100])
	f.Fuzz(func(t *testing.T, data []byte) {
		// Unverified (a trusted index is not reread): lookups must not
		// panic; only a sorted index whose fanout table counts its names
		// (what verification checks) promises to find its own names.
		ix, err := parseIdx("fuzz", data, false)
		if err != nil {
			return
		}
		sorted := ix.fanoutMismatch() < 0
		for i := 1; i < ix.n; i++ {
			sorted = sorted && bytes.Compare(ix.name(i-1), ix.name(i)) < 0
		}
		for i := 0; i < ix.n; i++ {
			h := plumbing.Hash(ix.name(i))
			if j := ix.find(&h); sorted && j != i {
				t.Fatalf("find(name(%d)) = %d", i, j)
			}
			ix.offset(i)
			ix.crc(i)
			ix.expand(hexPrefix{whole: h[:2]}, nil)
		}
	})
}

// FuzzIngestPack feeds arbitrary streams to IngestPack (which drives the
// entry parser, inflation and delta resolution): errors are fine, panics
// are not, and whatever it accepts must read back.
func FuzzIngestPack(f *testing.F) {
	base := []byte("the quick brown fox jumps over the lazy dog\n")
	good := wholeEntry(plumbing.BlobObject, base)
	f.Add(rawPack(good))
	f.Add(rawPack(good, deltaEntry(12+uint64(len(good)), 12, []byte{byte(len(base)), 20, 0x90, 19, 1, '\n'})))
	f.Add(rawPack())
	f.Add([]byte("PACK\x00\x00\x00\x02\x00\x00\x00\x01"))
	dir := initBare(f)
	db := openDB(f, dir, Options{AutoPackLimit: -1})
	f.Fuzz(func(t *testing.T, pk []byte) {
		if err := db.IngestPack(bytes.NewReader(pk), nil); err != nil {
			return
		}
	})
}

// failingReader returns its data, then a non-EOF error.
type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestIngestReadError(t *testing.T) {
	db := openDB(t, initBare(t), Options{})
	pk := rawPack(wholeEntry(plumbing.BlobObject, bytes.Repeat([]byte("abc"), 1000)))
	boom := errors.New("connection reset")
	err := db.IngestPack(&failingReader{data: pk[:len(pk)/2], err: boom}, nil)
	if !errors.Is(err, boom) || errors.Is(err, ErrCorrupt) {
		t.Fatalf("IngestPack over a failing reader = %v, want the read error", err)
	}
}
