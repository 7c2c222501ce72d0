package lorestore

import (
	"encoding/base64"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deloreis/deloreis/lorestore/odb"
)

// reopen closes s and opens the store in dir again, so that its packs are
// mapped from their files (a pack this process wrote is read from memory)
// and a directory changed behind it is scanned afresh.
func reopen(t *testing.T, s *Store, dir string) *Store {
	t.Helper()
	s.Close()
	s2, err := Open(dir, Options{Now: fixedClock()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	return s2
}

// listLocs lists scope's claims and locates each file in the store's
// current packs.
func listLocs(t *testing.T, s *Store, scope string) (Listing, []fileRef, []odb.Loc) {
	t.Helper()
	sn, err := s.Snapshot("main")
	if err != nil {
		t.Fatal(err)
	}
	l, err := sn.List(scope, Claims)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.db.View()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	var files []fileRef
	for _, p := range l.parts {
		for i := range p.files {
			files = append(files, p.ref(i))
		}
	}
	return l, files, l.locate(v)
}

// TestReadSweptSpread reads a listing whose files lie in two packs and
// loose, in windows of several sizes: every file is handed over once, in
// its place in the listing, as the read in listing order hands it.
func TestReadSweptSpread(t *testing.T) {
	s, dir := newStore(t)
	commitFacts(t, s, "camelot", 0, 300)
	s.Close()
	// The first commit's objects go loose: its pack is unpacked and removed.
	packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "pack-*.pack"))
	if len(packs) == 0 {
		t.Fatal("no pack after a commit")
	}
	for _, p := range packs {
		moved := filepath.Join(t.TempDir(), filepath.Base(p))
		if err := os.Rename(p, moved); err != nil {
			t.Fatal(err)
		}
		os.Remove(p[:len(p)-len(".pack")] + ".idx")
		in, err := os.Open(moved)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("git", "--git-dir", dir, "unpack-objects", "-q")
		cmd.Stdin = in
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git unpack-objects: %v\n%s", err, out)
		}
		in.Close()
	}
	s = reopen(t, s, dir)
	commitFacts(t, s, "camelot", 300, 600)
	commitFacts(t, s, "camelot", 600, 900)
	s = reopen(t, s, dir)

	l, files, locs := listLocs(t, s, "camelot")
	if l.Len() != 900 || l.Len() < sweepMin {
		t.Fatalf("listing of %d files, want 900 (read in sweeps from %d)", l.Len(), sweepMin)
	}
	loose, inPack := 0, map[int]int{}
	for _, loc := range locs {
		if loc == unlocated {
			loose++
		} else {
			inPack[loc.Pack()]++
		}
	}
	if loose != 300 || len(inPack) != 2 {
		t.Fatalf("%d files loose and the rest in %d packs (%v), want 300 loose and two packs", loose, len(inPack), inPack)
	}

	want := make([]Entry, l.Len())
	if err := l.readInListingOrder(func(i int, e Entry) { want[i] = e }); err != nil {
		t.Fatal(err)
	}
	for _, window := range []int{1, 100, 512, sweepFiles} {
		got := make([]Entry, l.Len())
		seen := make([]atomic.Int32, l.Len())
		if err := l.readSweeps(window, func(i int, e Entry) { got[i] = e; seen[i].Add(1) }); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if n := seen[i].Load(); n != 1 {
				t.Fatalf("window %d: place %d handed over %d times", window, i, n)
			}
			if got[i].ID != files[i].id || got[i].ID != want[i].ID {
				t.Fatalf("window %d: place %d holds %s, the listing has %s there", window, i, got[i].ID, files[i].id)
			}
			if id, err := got[i].Object.ID(); err != nil || id != got[i].ID {
				t.Fatalf("window %d: place %d: object of id %s under %s (%v)", window, i, id, got[i].ID, err)
			}
		}
	}
}

// TestReadSweptReportsEarliestFileError damages two files' entries in the
// pack, the one earlier in the listing lying later in the pack: a sweep
// meets the other first, but the read reports the first file's error, as
// a read in listing order does, whatever the windows.
func TestReadSweptReportsEarliestFileError(t *testing.T) {
	s, dir := newStore(t)
	commitFacts(t, s, "camelot", 0, 700)
	s = reopen(t, s, dir)
	l, files, locs := listLocs(t, s, "camelot")
	// first: the file of the first half that lies furthest into the pack;
	// second: the file of the second half that lies least far.
	half := len(locs) / 2
	first, second := 0, half
	for i := range locs {
		if i < half && locs[i] > locs[first] {
			first = i
		}
		if i >= half && locs[i] < locs[second] {
			second = i
		}
	}
	if locs[first] == unlocated || locs[second] == unlocated || locs[first].Pack() != locs[second].Pack() || locs[second] >= locs[first] {
		t.Fatalf("files %d at %x and %d at %x: want both in one pack, the later file first", first, locs[first], second, locs[second])
	}
	v, err := s.db.View()
	if err != nil {
		t.Fatal(err)
	}
	pack := viewPackPath(t, dir, v.PackSize(locs[first].Pack()))
	v.Close()
	s.Close()

	data, err := os.ReadFile(pack)
	if err != nil {
		t.Fatal(err)
	}
	for _, loc := range []odb.Loc{locs[first], locs[second]} {
		for k := range uint64(3) {
			data[loc.Offset()+4+k] ^= 0xff // inside the entry's deflated bytes
		}
	}
	os.Chmod(pack, 0o644)
	if err := os.WriteFile(pack, data, 0o444); err != nil {
		t.Fatal(err)
	}
	s = reopen(t, s, dir)
	sn, err := s.Snapshot("main")
	if err != nil {
		t.Fatal(err)
	}
	_, errFirst := sn.read(files[first])
	_, errSecond := sn.read(files[second])
	if errFirst == nil || errSecond == nil || errFirst.Error() == errSecond.Error() {
		t.Fatalf("damaged files read with errors %v and %v, want two different errors", errFirst, errSecond)
	}
	l.sn = sn
	if err := l.readInListingOrder(func(int, Entry) {}); err == nil || err.Error() != errFirst.Error() {
		t.Fatalf("in listing order: %v, want the error of file %d, earliest in the listing: %v", err, first, errFirst)
	}
	if err := l.ReadInto(func(int, Entry) {}); err == nil || err.Error() != errFirst.Error() {
		t.Fatalf("ReadInto: %v, want the error of file %d, earliest in the listing: %v", err, first, errFirst)
	}
	for _, window := range []int{second + 1, 64} {
		if err := l.readSweeps(window, func(int, Entry) {}); err == nil || err.Error() != errFirst.Error() {
			t.Fatalf("windows of %d: %v, want the error of file %d, earliest in the listing: %v", window, err, first, errFirst)
		}
	}
}

// viewPackPath is the one .pack of the store in dir of the given size.
func viewPackPath(t *testing.T, dir string, size int64) string {
	t.Helper()
	packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "pack-*.pack"))
	for _, p := range packs {
		if st, err := os.Stat(p); err == nil && st.Size() == size {
			return p
		}
	}
	t.Fatalf("no pack of %d bytes among %v", size, packs)
	return ""
}

// TestReadSweptReleasesPassedPack reads a listing of 38 MB of pack in
// sweeps, sampling the packs' resident size (/proc/self/smaps) as files
// are handed over: the pages passed are given back as each sweep goes,
// so the pack is never more than a few MB resident (2–9 MB seen; a read
// that gives nothing back holds all 38).
func TestReadSweptReleasesPassedPack(t *testing.T) {
	if testing.Short() {
		t.Skip("commits 38 MB of facts")
	}
	s, dir := newStore(t)
	r := rand.New(rand.NewPCG(5, 6))
	b := NewBatch()
	for i := range 18000 {
		raw := make([]byte, 1500) // ~2 KB of base64, which deflates little
		for k := range raw {
			raw[k] = byte(r.Uint32())
		}
		f := fact(i)
		f.Value = base64.StdEncoding.EncodeToString(raw)
		if _, err := b.Put("camelot", f); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Commit(b, NewMessage("big facts", "materialize", "camelot"), CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	s = reopen(t, s, dir)
	l, _, _ := listLocs(t, s, "camelot")
	s.db.ReleasePages()
	var size int64
	packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "pack-*.pack"))
	for _, p := range packs {
		if st, err := os.Stat(p); err == nil {
			size += st.Size()
		}
	}
	if size < 30<<20 {
		t.Fatalf("packs of %d bytes, want more than 30 MB", size)
	}
	// The read is sampled from another goroutine; a read over before
	// enough samples were taken is repeated (the peak is the highest of
	// all), so that a fast machine still judges it and a slow one fails.
	var peak int64
	samples := 0
	for round := 0; samples < 20; round++ {
		if round == 10 {
			t.Fatalf("%d samples of the packs' resident size in %d reads: too few to judge", samples, round)
		}
		s.db.ReleasePages()
		stop := packRSSPeak(time.Millisecond)
		err := l.readSweeps(l.Len(), func(int, Entry) {}) // one sweep: runs of 256 files span 0.5 MB
		p, n := stop()
		if err != nil {
			t.Fatal(err)
		}
		peak, samples = max(peak, p), samples+n
	}
	if peak > size/3 {
		t.Fatalf("the packs (%d bytes) were up to %d bytes resident while read", size, peak)
	}
	t.Logf("packs of %.1f MB, at most %.1f MB resident while read (%d samples)", float64(size)/(1<<20), float64(peak)/(1<<20), samples)
}

// TestPackOrder sorts places by the page their loc lies in, pack by pack,
// in listing order within a page, the unlocated last in listing order.
func TestPackOrder(t *testing.T) {
	s, dir := newStore(t)
	commitFacts(t, s, "camelot", 0, 700)
	s = reopen(t, s, dir)
	v, err := s.db.View()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	size := uint64(v.PackSize(0))
	if size < 3<<orderShift {
		t.Fatalf("pack of %d bytes, want three pages or more", size)
	}
	at := func(off uint64) odb.Loc { return odb.Loc(off) } // in pack 0
	locs := []odb.Loc{unlocated, at(size - 1), at(2<<orderShift + 7), unlocated, at(12), at(1 << orderShift), at(40)}
	want := []int32{4, 6, 5, 2, 1, 0, 3} // 12 and 40 share a page: listing order
	if got := packOrder([]int64{int64(size)}, locs); !slices.Equal(got, want) {
		t.Fatalf("packOrder = %v, want %v", got, want)
	}
}

// TestPackOrderSparse: packs of far more pages than locs (a short listing
// of a very large store) are ordered by a comparison sort, to the order
// the counting sort gives the same locs in packs just big enough to hold
// them: by pack, then page, then listing order, the unlocated last.
func TestPackOrderSparse(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const packs, span = 3, 1 << 20
	locs := make([]odb.Loc, 600)
	for i := range locs {
		if r.IntN(10) == 0 {
			locs[i] = unlocated
			continue
		}
		locs[i] = odb.Loc(uint64(r.IntN(packs))<<48 | uint64(r.IntN(span/64)*64))
	}
	dense, sparse := make([]int64, packs), make([]int64, packs)
	for p := range packs {
		dense[p], sparse[p] = span, 1<<40
	}
	if pages := packs * (span >> orderShift); pages > sparseBuckets*len(locs) {
		t.Fatalf("the dense packs have %d pages: want them counted for %d locs", pages, len(locs))
	}
	want := packOrder(dense, locs)
	if got := packOrder(sparse, locs); !slices.Equal(got, want) {
		t.Fatalf("packOrder over terabyte packs = %v,\nwant %v", got, want)
	}
	for k := 1; k < len(want); k++ {
		a, b := locs[want[k-1]], locs[want[k]]
		if a == unlocated && b != unlocated || a != unlocated && b != unlocated && a>>orderShift > b>>orderShift {
			t.Fatalf("places %d and %d out of order: locs %x then %x", want[k-1], want[k], a, b)
		}
	}
}

// TestSweepWindow: a listing is read in windows of at least sweepFiles
// files and, when longer, in at most mostSweeps sweeps.
func TestSweepWindow(t *testing.T) {
	for _, n := range []int{1, sweepFiles, 1_000_000, 3_000_000, 10_000_018} {
		w := sweepWindow(n)
		if sweeps := (n + w - 1) / w; w < sweepFiles || sweeps > mostSweeps {
			t.Errorf("%d files: windows of %d, %d sweeps", n, w, sweeps)
		}
	}
	if got := sweepWindow(10_000_000); got != 1_000_000 {
		t.Errorf("10M files: windows of %d, want 1M", got)
	}
}
