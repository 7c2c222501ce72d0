// Reading a long listing in sweeps of the packs: every file is located
// in the packs first; then, window by window of the listing, the window's
// files are inflated in the order the packs hold them, read with
// positioned reads of the pack files, and decoded in the listing's order.
//
// A listing is in id order, which is random against the packs: read in
// that order, each window between two releases faulted in a page per
// object, about all of the pack (1.2 GB of a 10M-object store's). Read
// wholly in pack order, the pack stays a few MB resident, but the objects
// are allocated in pack order, and a compile that walks them in id order
// pays 5x more per object (DL-0380). The sweeps keep both: the pack's
// pages bounded, and the objects allocated in the listing's order.

package lorestore

import (
	"cmp"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/deloreis/deloreis/lorestore/odb"
	"github.com/deloreis/deloreis/objects"
	"github.com/go-git/go-git/v5/plumbing"
)

// unlocated marks a file the packs do not hold as Locate can say (a loose
// object): it is read by name, when it is decoded.
const unlocated = ^odb.Loc(0)

// orderShift: files are sorted by page of 1<<orderShift bytes, in listing
// order within a page; the order inside a page changes no fault.
const orderShift = 12

// orderReleaseBytes is how much pack a read in pack order passes between
// two releases of the pages it has passed.
const orderReleaseBytes = 1 << 20

// locate finds every file of the listing in v's packs, on several
// goroutines: locs[i] is where the listing's file i lies, or unlocated.
// The names are met in sorted order (View.LocateAll), through a list of
// them that lives as long as the call (8 B a file).
func (l Listing) locate(v *odb.View) []odb.Loc {
	names := make([]*Hash, 0, l.n)
	for _, p := range l.parts {
		for j := range p.files {
			names = append(names, &p.files[j].blob)
		}
	}
	locs := make([]odb.Loc, l.n)
	v.LocateAll(l.n, func(i int) *plumbing.Hash { return (*plumbing.Hash)(names[i]) }, locs, unlocated)
	return locs
}

// packOrder returns the places 0..len(locs)-1 sorted by the page of pack
// their loc lies in, unlocated last, in listing order within a page: a
// counting sort over the pages of packs of the given sizes (4 B per page;
// 2 MB for a 1.9 GB pack), two passes over locs and no second copy of
// them. When the packs have many more pages than there are locs (a few
// hundred files of a very large store), the same order comes from a
// comparison sort instead, so that the cost follows the files read, not
// the size of the store.
func packOrder(sizes []int64, locs []odb.Loc) []int32 {
	first := make([]int, len(sizes)+1) // the first bucket of each pack
	for p, size := range sizes {
		first[p+1] = first[p] + int(size>>orderShift) + 1
	}
	last := first[len(sizes)] // the bucket of the unlocated
	bucket := func(l odb.Loc) int {
		if l == unlocated || l.Pack() >= len(sizes) {
			return last
		}
		return min(first[l.Pack()]+int(l.Offset()>>orderShift), first[l.Pack()+1]-1)
	}
	if last > sparseBuckets*len(locs) {
		return sortedByBucket(locs, bucket)
	}
	next := make([]int32, last+2)
	for _, l := range locs {
		next[bucket(l)+1]++
	}
	for b := 1; b < len(next); b++ {
		next[b] += next[b-1]
	}
	order := make([]int32, len(locs))
	for i, l := range locs {
		b := bucket(l)
		order[next[b]] = int32(i)
		next[b]++
	}
	return order
}

// sparseBuckets: packOrder counts by page while the pages are at most
// this many times the locs.
const sparseBuckets = 8

// sortedByBucket is packOrder's order by a comparison sort of the places,
// for pages far more than locs.
func sortedByBucket(locs []odb.Loc, bucket func(odb.Loc) int) []int32 {
	order := make([]int32, len(locs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int {
		return cmp.Or(cmp.Compare(bucket(locs[x]), bucket(locs[y])), cmp.Compare(x, y))
	})
	return order
}

// passedSpan gives back the pages of pack a read in pack order has
// passed, each time it has passed orderReleaseBytes more: those before the
// earliest run still being read. A run taken but not yet begun may lose a
// few pages it is about to read; it merely faults them in again.
type passedSpan struct {
	v       *odb.View
	locs    []odb.Loc
	order   []int32
	mu      sync.Mutex
	reading []int   // the first places in order of the runs being read
	from    odb.Loc // where the next release starts
}

// begin notes that the run at place lo of order is being read.
func (r *passedSpan) begin(lo int) {
	r.mu.Lock()
	r.reading = append(r.reading, lo)
	r.mu.Unlock()
}

// end notes that the run from lo to hi of order is read, and gives back
// what every run has passed if that is enough to bother.
func (r *passedSpan) end(lo, hi int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reading = slices.DeleteFunc(r.reading, func(at int) bool { return at == lo })
	low := hi
	if len(r.reading) > 0 {
		low = slices.Min(r.reading)
	}
	if low >= len(r.order) {
		return // past the packs: the caller's end gives back the rest
	}
	to := r.locs[r.order[low]]
	if to == unlocated || to <= r.from {
		return
	}
	if to.Pack() == r.from.Pack() && to.Offset()-r.from.Offset() < orderReleaseBytes {
		return
	}
	r.v.ReleaseBetween(r.from, to)
	r.from = to
}

// sweepFiles is how many files of the listing readSwept reads per sweep
// of the packs at least, and mostSweeps how many sweeps it makes at most
// of a longer listing (DL-0405): a window's inflated bytes (about 55 MB of
// lore objects a 256K window) are held from its sweep until they are
// decoded, and each sweep reads about all of a large pack.
const (
	sweepFiles = 1 << 18
	mostSweeps = 10
)

// sweepWindow is how many files a sweep of a listing of n files takes.
func sweepWindow(n int) int {
	return max(sweepFiles, (n+mostSweeps-1)/mostSweeps)
}

// readSwept is ReadInto's read in windows of sweepWindow files of the
// listing. Each window's packed files are inflated in pack order, and
// then checked and decoded in the listing's order, so that the objects
// are allocated in the order a compile walks them. The packs are read
// with positioned reads of their files, which map nothing: a window
// touches about every page of a big pack, and faulting a mapping's pages
// in again on each of 40 sweeps cost more than the rest of the read
// (DL-0396). The same files, checks, errors and places as ReadInto: on an
// error the windows after it are not read.
func (l Listing) readSwept(put func(i int, e Entry)) error {
	return l.readSweeps(sweepWindow(l.n), put)
}

// readSweeps is readSwept in windows of window files.
func (l Listing) readSweeps(window int, put func(i int, e Entry)) error {
	v, err := l.sn.s.db.View()
	if err != nil {
		return err
	}
	defer v.Close()
	locs := l.locate(v)
	if l.n >= releaseEvery {
		v.ReleasePackPages(true) // every file is located: the indexes' pages are not needed again
	}
	sizes := make([]int64, v.Packs())
	for p := range sizes {
		sizes[p] = v.PackSize(p)
	}
	n := min(l.n, window)
	files := v.OpenFiles()
	defer files.Close()
	sw := sweep{v: v, files: files, types: make([]plumbing.ObjectType, n), data: make([][]byte, n), errs: make([]error, n)}
	starts := l.partStarts()
	for w := 0; w < l.n; w += window {
		hi := min(l.n, w+window)
		sw.inflate(locs[w:hi], sizes)
		runs := (hi - w + readRun - 1) / readRun
		err := inParallel(runs, func(k int) error {
			lo := w + k*readRun
			c := l.cursorAt(starts, lo)
			end := min(hi, w+(k+1)*readRun)
			for j := lo; j < end; j++ {
				if (j-lo)%touchAhead == 0 {
					sw.touch(j-w, min(end, j+touchAhead)-w)
				}
				f := c.next()
				o, err := sw.decode(l.sn, j-w, locs[j], f)
				if err != nil {
					return err
				}
				put(j, Entry{ID: f.id, Object: o})
			}
			return nil
		})
		clear(sw.data)
		sw.arenas.reset() // the window's bytes are decoded: the next window's take their place
		if err != nil {
			return err
		}
	}
	return nil
}

// partStarts returns the place in the listing of each part's first file,
// and the listing's length last.
func (l Listing) partStarts() []int {
	starts := make([]int, len(l.parts)+1)
	for k, p := range l.parts {
		starts[k+1] = starts[k] + len(p.files)
	}
	return starts
}

// A fileCursor walks the listing's files in order from a place: the next
// file is its part's next, or the first of the next part. (A search of
// the parts for every file cost 1.5 s of CPU in a 10M-object read.)
type fileCursor struct {
	parts []listPart
	k, i  int // the part, and the place in it, of the next file
}

// cursorAt returns a cursor whose next file is the one at place at, of a
// listing whose parts start at starts.
func (l Listing) cursorAt(starts []int, at int) fileCursor {
	k := sort.SearchInts(starts, at+1) - 1
	return fileCursor{parts: l.parts, k: k, i: at - starts[k]}
}

// next returns the file at the cursor and moves past it; there must be one.
func (c *fileCursor) next() fileRef {
	for c.i >= len(c.parts[c.k].files) {
		c.k, c.i = c.k+1, 0 // past an empty part, too
	}
	f := c.parts[c.k].ref(c.i)
	c.i++
	return f
}

// A sweep holds what one window of readSwept inflated, by place in the
// window, until it is decoded.
type sweep struct {
	v      *odb.View
	files  *odb.PackFiles
	types  []plumbing.ObjectType
	data   [][]byte
	errs   []error
	arenas arenas // what data lies in, reused window after window (DL-0405)
}

// arenas are the byte arenas a sweep's runs inflate into: a run takes one
// that no other run is using, and gives it back when done; all are reset
// once a window is decoded.
type arenas struct {
	mu   sync.Mutex
	all  []*odb.Arena
	free []*odb.Arena
}

// take returns an arena no other run is using.
func (as *arenas) take() *odb.Arena {
	as.mu.Lock()
	defer as.mu.Unlock()
	if n := len(as.free); n > 0 {
		a := as.free[n-1]
		as.free = as.free[:n-1]
		return a
	}
	a := new(odb.Arena)
	as.all = append(as.all, a)
	return a
}

// give hands an arena back, its data still valid until reset.
func (as *arenas) give(a *odb.Arena) {
	as.mu.Lock()
	as.free = append(as.free, a)
	as.mu.Unlock()
}

// reset frees every arena's bytes for reuse; no run is using one.
func (as *arenas) reset() {
	for _, a := range as.all {
		a.Reset()
	}
}

// inflate reads the window's packed files (locs, by place in the window)
// in pack order on several goroutines. They are read from the pack files
// (sw.files) where it can; a pack read through its mapping has the pages
// passed given back as the sweep goes.
func (sw *sweep) inflate(locs []odb.Loc, sizes []int64) {
	clear(sw.errs)
	order := packOrder(sizes, locs)
	mapped := sw.files.Mapped()
	rel := passedSpan{v: sw.v, locs: locs, order: order}
	runs := (len(order) + readRun - 1) / readRun
	inParallel(runs, func(k int) error {
		lo, hi := k*readRun, min(len(order), (k+1)*readRun)
		if mapped {
			rel.begin(lo)
			defer rel.end(lo, hi)
		}
		run := order[lo:hi]
		for len(run) > 0 && locs[run[len(run)-1]] == unlocated {
			run = run[:len(run)-1] // the unlocated sort last; decode reads them
		}
		scratch := scratchPool.Get().(*[]byte)
		defer scratchPool.Put(scratch)
		a := sw.arenas.take()
		defer sw.arenas.give(a)
		sw.files.ReadRun(len(run), func(k int) odb.Loc { return locs[run[k]] }, scratch, a,
			func(k int, t plumbing.ObjectType, data []byte, err error) {
				i := run[k]
				sw.types[i], sw.data[i], sw.errs[i] = t, data, err
			})
		return nil
	})
	sw.v.ReleasePackPages(false) // the sweep is over: what the last runs passed too
}

// touchAhead is how many inflated files a decoding run touches at once,
// before it decodes them (sweep.touch).
const touchAhead = 16

// touchBytes is how much of each file touch loads: all of a lore object
// of a few hundred bytes, and no more of a large document.
const touchBytes = 512

// touch loads the first touchBytes of the window's inflated files
// lo..hi-1, one cache line after another with nothing waiting on them.
// The files were inflated in pack order and are decoded in the listing's,
// so each lies far from the one before, out of the cache by then: loads
// that wait on nothing overlap their misses, where hashing and decoding
// file after file waits out each. A larger file's rest is read in order,
// which the processor prefetches itself.
func (sw *sweep) touch(lo, hi int) {
	var x byte
	for _, d := range sw.data[lo:hi] {
		n := min(len(d), touchBytes)
		for i := 0; i < n; i += 64 {
			x ^= d[i]
		}
		if n > 0 {
			x ^= d[n-1] // the last line, when d does not start one
		}
	}
	runtime.KeepAlive(x)
}

// scratchPool holds the buffers the sweeps read packs into.
var scratchPool = sync.Pool{New: func() any { return new([]byte) }}

// decode checks and decodes file f, at place i of the window: what sweep
// inflated, or read now when it is not packed.
func (sw *sweep) decode(sn *Snapshot, i int, loc odb.Loc, f fileRef) (objects.Object, error) {
	if loc == unlocated {
		return sn.read(f)
	}
	data, err := blobData(f.blob, sw.types[i], sw.data[i], sw.errs[i])
	if err != nil {
		return nil, err
	}
	return decodeObjectFile(data, f.id, f.path)
}
