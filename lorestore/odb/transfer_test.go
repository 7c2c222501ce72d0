// Packs crossing the wire: IngestPack of packs made by real git (with
// OFS_DELTA and REF_DELTA entries), WritePack read back by git index-pack,
// and our own round trip.

package odb

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// deltaRepo makes a bare repository (with one git fast-import) holding
// 30 versions of three files, repacked so that git stores most versions as
// deltas, and returns its git dir.
func deltaRepo(t testing.TB) string {
	t.Helper()
	dir := initBare(t)
	r := rand.New(rand.NewPCG(7, 7))
	text := blob(r, 20000)
	var in bytes.Buffer
	for v := 0; v < 30; v++ {
		fmt.Fprintf(&in, "commit refs/heads/main\ncommitter T <t@example.com> %d +0000\ndata 10\nversion %02d\n", 1700000000+v, v)
		for i := 0; i < 3; i++ {
			p := r.IntN(len(text) - 100)
			copy(text[p:], blob(r, 40))
			content := append([]byte(fmt.Sprintf("v%d\n", v)), text...)
			fmt.Fprintf(&in, "M 100644 inline file%d.txt\ndata %d\n", i, len(content))
			in.Write(content)
			in.WriteString("\n")
		}
	}
	git(t, dir, in.Bytes(), "fast-import", "--quiet")
	git(t, dir, nil, "repack", "-adf", "-q", "--threads=1") // the same deltas on every run
	return dir
}

// allObjects lists every object of a repository with real git.
func allObjects(t testing.TB, gitDir string) []plumbing.Hash {
	t.Helper()
	out := git(t, gitDir, nil, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
	var hs []plumbing.Hash
	for _, l := range strings.Fields(string(out)) {
		hs = append(hs, plumbing.NewHash(l))
	}
	return hs
}

// compareWithGit reads every object with db and with `git cat-file --batch`
// from gitDir and fails on any difference.
func compareWithGit(t testing.TB, db objectReader, gitDir string, hs []plumbing.Hash) {
	t.Helper()
	var in bytes.Buffer
	for _, h := range hs {
		in.WriteString(h.String() + "\n")
	}
	out := bufio.NewReader(bytes.NewReader(git(t, gitDir, in.Bytes(), "cat-file", "--batch")))
	for _, h := range hs {
		line, _ := out.ReadString('\n')
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("cat-file: %q", line)
		}
		n, _ := strconv.Atoi(f[2])
		want := make([]byte, n+1)
		if _, err := ioReadFull(out, want); err != nil {
			t.Fatal(err)
		}
		wantT, _ := plumbing.ParseObjectType(f[1])
		mustRead(t, db, h, wantT, want[:n])
	}
}

func TestIngestGitPack(t *testing.T) {
	src := deltaRepo(t)
	hs := allObjects(t, src)
	// First, git's own pack and index, read in place.
	inPlace := openDB(t, src, Options{})
	if types := entryTypes(t, inPlace); types[plumbing.OFSDeltaObject] < 10 {
		t.Fatalf("git's repacked pack has too few deltas: %v", types)
	}
	compareWithGit(t, inPlace, src, hs)
	var in bytes.Buffer
	for _, h := range hs {
		in.WriteString(h.String() + "\n")
	}
	for _, tc := range []struct {
		name  string
		args  []string
		delta plumbing.ObjectType // must appear among the stored entries
	}{
		{"ofs-delta", []string{"pack-objects", "--stdout", "-q", "--delta-base-offset"}, plumbing.OFSDeltaObject},
		{"ref-delta", []string{"pack-objects", "--stdout", "-q"}, plumbing.REFDeltaObject},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pk := git(t, src, in.Bytes(), tc.args...)
			if !packHasDeltas(t, pk) {
				t.Fatalf("git's pack has no deltas; the test would prove nothing")
			}
			dir := initBare(t)
			db := openDB(t, dir, Options{})
			var calls int
			if err := db.IngestPack(bytes.NewReader(pk), func(int) { calls++ }); err != nil {
				t.Fatalf("IngestPack: %v", err)
			}
			if calls == 0 {
				t.Fatalf("progress never called")
			}
			compareWithGit(t, db, src, hs)
			if types := entryTypes(t, db); types[tc.delta] < 10 {
				t.Fatalf("stored entry types %v: too few %v", types, tc.delta)
			}
			idxs := packFiles(t, dir, "idx")
			if len(idxs) != 1 {
				t.Fatalf("%d packs after ingest", len(idxs))
			}
			vp := string(git(t, dir, nil, "verify-pack", "-v", idxs[0]))
			if !strings.Contains(vp, "chain length = 1") {
				t.Fatalf("verify-pack shows no delta chains:\n%s", vp)
			}
			// A second DB (fresh process state) reads it too.
			db2 := openDB(t, dir, Options{DeltaBaseCacheBytes: -1})
			compareWithGit(t, db2, src, hs)
			// Ingesting a mangled copy fails cleanly.
			bad := append([]byte(nil), pk...)
			bad[len(bad)/2] ^= 0x55
			if err := db.IngestPack(bytes.NewReader(bad), nil); err == nil {
				t.Fatalf("IngestPack accepted a corrupted pack")
			}
		})
	}
}

// packHasDeltas scans a pack stream's entries for delta types.
func packHasDeltas(t testing.TB, pk []byte) bool {
	t.Helper()
	dir := initBare(t)
	git(t, dir, pk, "index-pack", "--stdin")
	out := string(git(t, dir, nil, "verify-pack", "-v", packFiles(t, dir, "idx")[0]))
	return strings.Contains(out, "chain length")
}

func TestWritePackGitIndexPack(t *testing.T) {
	// Source: our own packs plus an ingested deltified pack plus a loose
	// object, so WritePack exercises raw copies, delta resolution and loose.
	src := deltaRepo(t)
	dir := initBare(t)
	db := openDB(t, dir, Options{})
	objs, head := writeHistory(t, db, rand.New(rand.NewPCG(3, 4)), 2, 50)
	pk := git(t, src, joinHashes(allObjects(t, src)), "pack-objects", "--stdout", "-q")
	if err := db.IngestPack(bytes.NewReader(pk), nil); err != nil {
		t.Fatal(err)
	}
	loose := plumbing.NewHash(strings.TrimSpace(string(git(t, dir, []byte("loose\n"), "hash-object", "-w", "--stdin"))))
	var hs []plumbing.Hash
	for _, o := range objs {
		hs = append(hs, o.hash)
	}
	hs = append(hs, allObjects(t, src)...)
	hs = append(hs, loose, hs[0]) // a repeat is written once
	var out bytes.Buffer
	var last [2]int
	if err := db.WritePack(&out, hs, func(d, n int) { last = [2]int{d, n} }); err != nil {
		t.Fatalf("WritePack: %v", err)
	}
	if n := len(dedupe(hs)); last[0] != n || last[1] != n {
		t.Fatalf("final progress %v, want %d objects", last, n)
	}
	dst := initBare(t)
	git(t, dst, out.Bytes(), "index-pack", "--stdin", "--fix-thin")
	setRef(t, dst, "main", head)
	fsckClean(t, dst)
	dstDB := openDB(t, dst, Options{})
	compareWithGit(t, dstDB, dir, hs[:len(hs)-1])
	vp := string(git(t, dst, nil, "verify-pack", "-v", packFiles(t, dst, "idx")[0]))
	if strings.Contains(vp, "chain length") {
		t.Fatalf("WritePack output holds deltas:\n%s", vp)
	}

	// Round trip through our own IngestPack.
	rt := initBare(t)
	rtDB := openDB(t, rt, Options{})
	if err := rtDB.IngestPack(bytes.NewReader(out.Bytes()), nil); err != nil {
		t.Fatalf("IngestPack(WritePack output): %v", err)
	}
	compareWithGit(t, rtDB, dir, hs[:len(hs)-1])

	// A missing object is ErrNotFound.
	err := db.WritePack(&bytes.Buffer{}, []plumbing.Hash{HashObject(plumbing.BlobObject, []byte("nope"))}, nil)
	if !isNotFound(err) {
		t.Fatalf("WritePack(missing) = %v", err)
	}
}

func joinHashes(hs []plumbing.Hash) []byte {
	var b bytes.Buffer
	for _, h := range hs {
		b.WriteString(h.String() + "\n")
	}
	return b.Bytes()
}

func TestIngestThinPack(t *testing.T) {
	src := deltaRepo(t)
	dir := initBare(t)
	db := openDB(t, dir, Options{})
	// The receiver has history up to main~10 ...
	old := git(t, src, []byte("main~10\n"), "pack-objects", "--revs", "--stdout", "-q")
	if err := db.IngestPack(bytes.NewReader(old), nil); err != nil {
		t.Fatal(err)
	}
	// ... and gets the rest as a thin pack, deltas against what it has.
	// One delta-search thread, here and in deltaRepo's repack (whose deltas
	// pack-objects reuses): with several, git's choice of delta bases
	// varies from run to run, and once in a while none is outside the pack.
	thin := git(t, src, []byte("main\n^main~10\n"), "pack-objects", "--revs", "--thin", "--threads=1", "--stdout", "-q")
	probe := initBare(t)
	if _, errOut, err := gitRun(probe, thin, "index-pack", "--stdin"); err == nil {
		t.Fatalf("git's pack is not thin; the test would prove nothing")
	} else if !strings.Contains(string(errOut), "unresolved deltas") {
		t.Logf("index-pack without --fix-thin: %s", errOut)
	}
	if err := db.IngestPack(bytes.NewReader(thin), nil); err != nil {
		t.Fatalf("IngestPack(thin): %v", err)
	}
	compareWithGit(t, db, src, allObjects(t, src))
	for _, idx := range packFiles(t, dir, "idx") {
		git(t, dir, nil, "verify-pack", idx) // each pack is self-contained
	}
	setRef(t, dir, "main", plumbing.NewHash(strings.TrimSpace(string(git(t, src, nil, "rev-parse", "main")))))
	fsckClean(t, dir)
	// Into an empty repository the same pack cannot be completed.
	empty := openDB(t, initBare(t), Options{})
	if err := empty.IngestPack(bytes.NewReader(thin), nil); !errors.Is(err, ErrThinPack) {
		t.Fatalf("thin pack into an empty repository: %v", err)
	}
}
