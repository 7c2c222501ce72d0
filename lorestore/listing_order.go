// Reading a long listing in pack order: every file is located in the
// packs first, the files are sorted by where they lie, and the packs are
// read front to back, giving back the pages passed as the read goes.
// A listing is in id order, which is random against the packs: read in
// that order, each window between two releases touches a page per object
// (1.2 GB of a 10M-object store's pack resident). Read in pack order, the
// pack is a few MB resident; but the objects are then allocated in pack
// order, and a compile that walks them in id order pays 5x more per
// object, more than the read saves: ReadInto does not use it (DL-0380).
// It is kept, tested and benchmarked (BenchmarkReadScope) for a store
// whose packs hold files in listing order, or a caller that does not
// keep the objects.

package lorestore

import (
	"slices"
	"sort"
	"sync"

	"github.com/deloreis/deloreis/lorestore/odb"
	"github.com/deloreis/deloreis/objects"
)

// unlocated marks a file the packs do not hold as Locate can say (a loose
// object): it is read by name, after the packed ones.
const unlocated = ^odb.Loc(0)

// orderShift: files are sorted by page of 1<<orderShift bytes, in listing
// order within a page; the order inside a page changes no fault.
const orderShift = 12

// orderReleaseBytes is how much pack a read in pack order passes between
// two releases of the pages it has passed.
const orderReleaseBytes = 1 << 20

// readInPackOrder is ReadInto's read in the order the packs hold the
// files: the same files, checks, errors and places.
func (l Listing) readInPackOrder(put func(i int, e Entry)) error {
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
	order := packOrder(sizes, locs)
	starts := make([]int, len(l.parts)+1)
	for k, p := range l.parts {
		starts[k+1] = starts[k] + len(p)
	}
	file := func(i int) fileRef {
		k := sort.SearchInts(starts, i+1) - 1
		return l.parts[k][i-starts[k]]
	}
	var fail earliestError
	rel := passedSpan{v: v, locs: locs, order: order}
	runs := (len(order) + readRun - 1) / readRun
	inParallel(runs, func(k int) error {
		lo, hi := k*readRun, min(len(order), (k+1)*readRun)
		rel.begin(lo)
		defer rel.end(lo, hi)
		// Gather the run's files first: their loads, scattered over the
		// listing, then miss the cache together rather than one by one.
		var fs [readRun]fileRef
		for j, i := range order[lo:hi] {
			fs[j] = file(int(i))
		}
		for j, i := range order[lo:hi] {
			f := &fs[j]
			o, err := l.sn.readLocated(v, locs[i], *f)
			if err != nil {
				fail.note(int(i), err)
				continue // a file later in the run may come earlier in the listing
			}
			put(int(i), Entry{ID: f.id, Object: o})
		}
		return nil
	})
	return fail.err
}

// locate finds every file of the listing in v's packs, on several
// goroutines: locs[i] is where the listing's file i lies, or unlocated.
func (l Listing) locate(v *odb.View) []odb.Loc {
	const run = 1 << 12
	type part struct {
		at int
		fs []fileRef
	}
	var parts []part
	at := 0
	for _, p := range l.parts {
		for len(p) > 0 {
			k := min(len(p), run)
			parts = append(parts, part{at, p[:k]})
			at, p = at+k, p[k:]
		}
	}
	locs := make([]odb.Loc, l.n)
	inParallel(len(parts), func(k int) error {
		for i, f := range parts[k].fs {
			loc, ok := v.Locate(f.blob)
			if !ok {
				loc = unlocated
			}
			locs[parts[k].at+i] = loc
		}
		return nil
	})
	return locs
}

// packOrder returns the places 0..len(locs)-1 sorted by the page of pack
// their loc lies in, unlocated last: a counting sort over the pages of
// packs of the given sizes (4 B per page; 2 MB for a 1.9 GB pack), two
// passes over locs and no second copy of them.
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

// readLocated reads, checks and decodes file f, found at loc in v, or by
// name when it is unlocated: the same checks and errors as sn.read.
func (sn *Snapshot) readLocated(v *odb.View, loc odb.Loc, f fileRef) (objects.Object, error) {
	if loc == unlocated {
		return sn.read(f)
	}
	t, data, err := v.ReadAt(loc)
	data, err = blobData(f.blob, t, data, err)
	if err != nil {
		return nil, err
	}
	return decodeObjectFile(data, f.id, f.path)
}

// earliestError keeps, of the errors of files read in any order, the one
// of the file earliest in the listing: the one a read in listing order
// would have met first.
type earliestError struct {
	mu  sync.Mutex
	at  int
	err error
}

func (e *earliestError) note(at int, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err == nil || at < e.at {
		e.at, e.err = at, err
	}
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
