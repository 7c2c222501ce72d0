// The trust record: a big index is hashed once and then taken on the
// record's word, and every change to the file that the file system can see
// sends it back to a full verification before any of it is used.

package odb

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// writeBigPack writes one pack of n blobs of about size bytes each and
// returns its base path and one of its objects.
func writeBigPack(t *testing.T, dir string, n, size int, tag string) (string, plumbing.Hash) {
	t.Helper()
	db := openDB(t, dir, Options{AutoPackLimit: -1})
	b := db.NewBatch()
	var h plumbing.Hash
	pad := strings.Repeat("x", size)
	for i := 0; i < n; i++ {
		h = b.Add(plumbing.BlobObject, fmt.Appendf(nil, "%s %d %s\n", tag, i, pad))
	}
	if err := b.Write(); err != nil {
		t.Fatal(err)
	}
	base := findPackOf(t, db, h)
	db.Close()
	return base, h
}

// openedVerified opens the repository and reports, by pack base, whether
// each index was hashed in full, and which packs were skipped.
func openedVerified(t *testing.T, dir string) (verified map[string]bool, skipped []error) {
	t.Helper()
	var mu sync.Mutex
	db := openDB(t, dir, Options{AutoPackLimit: -1, OnSkippedPack: func(err error) {
		mu.Lock()
		skipped = append(skipped, err)
		mu.Unlock()
	}})
	defer db.Close()
	s, err := db.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer s.release()
	verified = map[string]bool{}
	for _, p := range s.packs {
		verified[p.base] = p.verified
	}
	return verified, skipped
}

func trustPath(dir string) string { return filepath.Join(dir, "objects", trustName) }

func idxSize(t *testing.T, base string) int64 {
	t.Helper()
	st, err := os.Stat(base + ".idx")
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// TestOwnBigIndexTrusted: a pack this process wrote is recorded at once
// (from memory or read back from disk), so the next open maps its index
// without hashing it; a small index is hashed every time.
func TestOwnBigIndexTrusted(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n, size int
	}{
		{"kept-in-memory", 3000, 10}, // under the batch's memory limit
		{"spooled", 3000, 400},       // streamed to disk and reopened
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := initBare(t)
			big, h := writeBigPack(t, dir, tc.n, tc.size, tc.name)
			small, _ := writeBigPack(t, dir, 1, 0, "small")
			if idxSize(t, big) < trustMinSize || idxSize(t, small) >= trustMinSize {
				t.Fatalf("fixture sizes: big %d, small %d", idxSize(t, big), idxSize(t, small))
			}
			rec := readTrust(trustPath(dir))
			if _, ok := rec[filepath.Base(big)+".idx"]; !ok || len(rec) != 1 {
				t.Fatalf("record after writing = %v, want just the big index", rec)
			}
			for i := 0; i < 2; i++ {
				verified, skipped := openedVerified(t, dir)
				if verified[big] || !verified[small] || len(skipped) > 0 {
					t.Fatalf("open %d: verified %v, skipped %v", i, verified, skipped)
				}
			}
			db := openDB(t, dir, Options{})
			if ok, err := db.Has(h); !ok || err != nil {
				t.Fatalf("Has = %v, %v", ok, err)
			}
			fsckClean(t, dir)
			if out := git(t, dir, nil, "count-objects", "-v"); !bytes.Contains(out, []byte("\ngarbage: 0\n")) {
				t.Fatalf("git count-objects -v:\n%s", out)
			}
		})
	}
}

// flipByte rewrites one byte of path in place, as a careless tool would.
func flipByte(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b [1]byte
	if _, err := f.ReadAt(b[:], off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x40
	if _, err := f.WriteAt(b[:], off); err != nil {
		t.Fatal(err)
	}
}

// writable makes the index writable for a tamper (the chmod alone changes
// its ctime), then waits until the record vouches for it again.
func writable(t *testing.T, idx string) {
	t.Helper()
	if err := os.Chmod(idx, 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(racyWindow + 20*time.Millisecond)
	dir := filepath.Dir(filepath.Dir(filepath.Dir(idx)))
	if v, _ := openedVerified(t, dir); !v[strings.TrimSuffix(idx, ".idx")] {
		t.Fatal("the chmod did not send the index back to verification")
	}
}

// TestTamperedIndexCaught: after the record vouches for an index, any
// change to the file is caught before the index is used: the pack is
// skipped as corrupt and its objects read as missing.
func TestTamperedIndexCaught(t *testing.T) {
	nameOff := int64(idxHeaderLen + fanoutLen + 100*hashLen + 7)
	for _, tc := range []struct {
		name   string
		tamper func(t *testing.T, idx string)
	}{
		{"flip-a-name", func(t *testing.T, idx string) { flipByte(t, idx, nameOff) }},
		{"flip-a-name-keep-mtime", func(t *testing.T, idx string) {
			st, err := os.Stat(idx)
			if err != nil {
				t.Fatal(err)
			}
			flipByte(t, idx, nameOff)
			if err := os.Chtimes(idx, st.ModTime(), st.ModTime()); err != nil {
				t.Fatal(err)
			}
		}},
		{"flip-an-offset", func(t *testing.T, idx string) {
			flipByte(t, idx, idxSize(t, strings.TrimSuffix(idx, ".idx"))-2*hashLen-8)
		}},
		{"flip-the-checksum", func(t *testing.T, idx string) {
			flipByte(t, idx, idxSize(t, strings.TrimSuffix(idx, ".idx"))-3)
		}},
		{"renamed-over", func(t *testing.T, idx string) {
			data, err := os.ReadFile(idx)
			if err != nil {
				t.Fatal(err)
			}
			data[nameOff] ^= 0x40
			tmp := idx + ".tmp"
			if err := os.WriteFile(tmp, data, 0o444); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, idx); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := initBare(t)
			base, h := writeBigPack(t, dir, 3000, 10, tc.name)
			writable(t, base+".idx")
			if v, _ := openedVerified(t, dir); v[base] {
				t.Fatal("fixture: the index was not trusted before the tamper")
			}
			// Past one tick of a coarse file clock, so the tamper's ctime differs.
			time.Sleep(20 * time.Millisecond)
			tc.tamper(t, base+".idx")
			verified, skipped := openedVerified(t, dir)
			if _, open := verified[base]; open || len(skipped) != 1 || !errors.Is(skipped[0], ErrCorrupt) {
				t.Fatalf("after the tamper: open packs %v, skipped %v", verified, skipped)
			}
			db := openDB(t, dir, Options{})
			if ok, err := db.Has(h); ok || err != nil {
				t.Fatalf("Has on a tampered pack = %v, %v", ok, err)
			}
		})
	}
}

// TestCheckPacksIgnoresTrust: damage the file system cannot see (a bit
// flipped under intact metadata, mimicked here by re-recording the
// tampered file's stamp) is beyond the record, but CheckPacks (fsck)
// hashes every index and reports it.
func TestCheckPacksIgnoresTrust(t *testing.T) {
	dir := initBare(t)
	base, _ := writeBigPack(t, dir, 3000, 10, "bitrot")
	time.Sleep(20 * time.Millisecond)
	if err := os.Chmod(base+".idx", 0o644); err != nil {
		t.Fatal(err)
	}
	flipByte(t, base+".idx", idxHeaderLen+fanoutLen+5*hashLen)
	data, st, err := mapFileStat(base + ".idx")
	if err != nil {
		t.Fatal(err)
	}
	tr := newTrustRecord(filepath.Join(dir, "objects"))
	tr.add(filepath.Base(base)+".idx", stampOf(&st, data))
	tr.flush(map[string]bool{filepath.Base(base) + ".idx": true})
	if v, skipped := openedVerified(t, dir); v[base] || len(skipped) != 0 {
		t.Fatalf("fixture: the forged record was not taken (verified %v, skipped %v)", v, skipped)
	}
	db := openDB(t, dir, Options{})
	errs := db.CheckPacks()
	if len(errs) != 1 || !errors.Is(errs[0], ErrCorrupt) || !strings.Contains(errs[0].Error(), "checksum") {
		t.Fatalf("CheckPacks = %v, want the index checksum mismatch", errs)
	}
}

// TestFirstSeenIndexRecordedWhenSettled: an index this process did not
// write is hashed; it is recorded only once its timestamps are older than
// the file clock's granularity, and trusted after that.
func TestFirstSeenIndexRecordedWhenSettled(t *testing.T) {
	src := initBare(t)
	base, _ := writeBigPack(t, src, 3000, 10, "foreign")
	dir := initBare(t)
	copied := filepath.Join(dir, "objects", "pack", filepath.Base(base))
	for _, ext := range []string{".pack", ".idx"} {
		data, err := os.ReadFile(base + ext)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(copied+ext, data, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := openedVerified(t, dir); !v[copied] {
		t.Fatal("a just-copied index was trusted")
	}
	if rec := readTrust(trustPath(dir)); len(rec) != 0 {
		t.Fatalf("a racy stamp was recorded: %v", rec)
	}
	time.Sleep(racyWindow + 20*time.Millisecond)
	if v, _ := openedVerified(t, dir); !v[copied] {
		t.Fatal("an index absent from the record was trusted")
	}
	if v, _ := openedVerified(t, dir); v[copied] {
		t.Fatal("a settled, verified index was hashed again")
	}
}

// TestDamagedRecordIgnored: a record that does not parse or whose sum is
// wrong vouches for nothing, and is written afresh.
func TestDamagedRecordIgnored(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"garbage", func([]byte) []byte { return []byte("not a record\n") }},
		{"empty", func([]byte) []byte { return nil }},
		{"bad-sum", func(b []byte) []byte { return bytes.Replace(b, []byte("sum "), []byte("sum 0"), 1) }},
		{"edited-line", func(b []byte) []byte { return bytes.Replace(b, []byte(".idx "), []byte(".idx 1"), 1) }},
		{"no-final-newline", func(b []byte) []byte { return b[:len(b)-1] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := initBare(t)
			base, _ := writeBigPack(t, dir, 3000, 10, tc.name)
			good, err := os.ReadFile(trustPath(dir))
			if err != nil {
				t.Fatal(err)
			}
			if len(readTrust(trustPath(dir))) != 1 {
				t.Fatalf("fixture record:\n%s", good)
			}
			time.Sleep(racyWindow + 20*time.Millisecond) // so the re-verified stamp is recorded
			if err := os.WriteFile(trustPath(dir), tc.damage(bytes.Clone(good)), 0o644); err != nil {
				t.Fatal(err)
			}
			if v, skipped := openedVerified(t, dir); !v[base] || len(skipped) != 0 {
				t.Fatalf("with a damaged record: verified %v, skipped %v", v, skipped)
			}
			if v, _ := openedVerified(t, dir); v[base] {
				t.Fatal("the record was not written afresh")
			}
		})
	}
}

// TestRecordKeepsOnlyLivePacks: entries of packs that are gone are
// dropped when the record is next written.
func TestRecordKeepsOnlyLivePacks(t *testing.T) {
	dir := initBare(t)
	a, _ := writeBigPack(t, dir, 3000, 10, "a")
	for _, ext := range []string{".idx", ".pack"} {
		if err := os.Remove(a + ext); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := writeBigPack(t, dir, 3000, 10, "b")
	rec := readTrust(trustPath(dir))
	if _, ok := rec[filepath.Base(b)+".idx"]; !ok || len(rec) != 1 {
		t.Fatalf("record = %v, want only %s", rec, filepath.Base(b))
	}
}

// TestEmptyZlibIsZlibs: the spelled-out empty stream that primes the
// pooled readers is the one compress/zlib writes.
func TestEmptyZlibIsZlibs(t *testing.T) {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), emptyZlib) {
		t.Fatalf("emptyZlib = %x, compress/zlib writes %x", emptyZlib, b.Bytes())
	}
}
