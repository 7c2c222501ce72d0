// Listings: the object files of a section of a scope, listed shard by
// shard on several goroutines, then read and decoded on several more.
// A whole-scope read of 10M objects starts here (author.LoadScope).

package lorestore

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/deloreis/deloreis/objects"
)

// A Listing is the object files of one section of a scope, listed but not
// yet read, so that a caller reading several sections can size one slice
// for all of them before it reads any (a 10M-object scope must not be
// held twice, or grown by doubling). The files are kept in parts, one per
// shard, in the store's order; nothing concatenates them.
type Listing struct {
	sn    *Snapshot
	parts []listPart
	n     int
}

// A listPart is the files of one folder of a listing, each named by its
// id. Its files hold no pointer, so that the collector does not scan a
// 10M-object listing (52 B a file; as fileRefs, 88 B with two strings each),
// which lives through every collection of a whole-scope read (DL-0405).
type listPart struct {
	dir   string // ends in "/"
	files []idFile
}

// idFile is a file named by its id: the id and the blob.
type idFile struct {
	id   objects.ID
	blob Hash
}

// ref is the part's file i.
func (p listPart) ref(i int) fileRef {
	return fileRef{id: p.files[i].id, blob: p.files[i].blob, dir: p.dir}
}

// partsOf groups files named by their ids into parts, one for each run of
// files in one folder. The parts share one slice of files: a section of
// many folders of one file each (standing claims) costs a part header a
// file, not an allocation.
func partsOf(fs []fileRef) []listPart {
	var out []listPart
	files := make([]idFile, len(fs))
	for i, f := range fs {
		if f.name != "" {
			panic("lorestore: a listed file not named by its id: " + f.path())
		}
		files[i] = idFile{f.id, f.blob}
		if i == 0 || f.dir != fs[i-1].dir {
			out = append(out, listPart{dir: f.dir})
		}
		p := &out[len(out)-1]
		p.files = files[i-len(p.files) : i+1 : i+1]
	}
	return out
}

// List lists the object files of one section of a scope, in the store's
// order (by folder, then id), reading no object. A sharded section's
// shards are listed on several goroutines.
func (sn *Snapshot) List(scope string, kind Kind) (Listing, error) {
	l := Listing{sn: sn}
	if err := checkScope(scope); err != nil {
		return l, err
	}
	base := []string{scopesDir, scope, string(kind)}
	h, ok, err := sn.walk(base...)
	if err != nil || !ok {
		return l, err
	}
	dir := strings.Join(base, "/") + "/"
	if kind == Claims || kind == Standing {
		l.parts, err = sn.listShards(h, dir)
	} else {
		var fs []fileRef
		err = sn.collect(h, dir, 0, &fs)
		l.parts = partsOf(fs)
	}
	if err != nil {
		return Listing{sn: sn}, err
	}
	for _, p := range l.parts {
		l.n += len(p.files)
	}
	return l, nil
}

// listShards lists the files of every shard of a section tree (a folder
// of folders of object files) in order, the shards on several goroutines.
// Each shard's tree is parsed in place, not decoded into entries, and not
// cached (DL-0313). On errors in several shards the first shard's is
// reported, as a walk in order would.
func (sn *Snapshot) listShards(tree Hash, dir string) ([]listPart, error) {
	es, err := sn.s.readTree(tree)
	if err != nil {
		return nil, err
	}
	for _, e := range es {
		if !e.isTree() {
			return nil, &CorruptError{Path: dir + e.name, Reason: "a file where a folder belongs"}
		}
	}
	parts := make([]listPart, len(es))
	var listed atomic.Int64
	err = inParallel(len(es), func(k int) error {
		var err error
		parts[k], err = sn.listShard(es[k].hash, dir+es[k].name+"/")
		if listed.Add(1)%releaseShards == 0 {
			sn.s.db.ReleasePackPages() // the trees listed are not read again (2 MB each at 10M objects)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(es) >= 16 {
		sn.s.db.ReleasePages() // the shard trees are listed: their pages are not needed again
	}
	return parts, nil
}

// objectEntryLen is the length of an object file's entry in a tree: its
// mode, a space, <id>.json, a NUL and its hash. A shard of object files
// only is that many bytes an entry, so its files are counted without a
// pass over the tree (the part keeps its slice for the listing's life).
const objectEntryLen = len("100644 ") + 2*len(objects.ID{}) + len(".json") + 1 + 20

// listShard lists one shard: a tree of object files <id>.json only. The
// tree is parsed straight into the part's files, with nothing collected
// between (a slice of its entries was 490 MB of garbage at 10M objects);
// a tree that does not parse is refused as such, even where an earlier
// entry is not an object file.
func (sn *Snapshot) listShard(tree Hash, dir string) (listPart, error) {
	if tree.IsZero() {
		return listPart{dir: dir}, nil
	}
	data, err := sn.s.readTreeData(tree)
	if err != nil {
		return listPart{}, err
	}
	out := listPart{dir: dir, files: make([]idFile, 0, len(data)/objectEntryLen)}
	var bad error
	err = eachTreeEntry(data, func(mode uint32, name, hash []byte) error {
		id, ok := objectFileIDBytes(name)
		if (!ok || mode == modeTree) && bad == nil {
			bad = &CorruptError{Path: dir + string(name), Reason: "not an object file <id>.json"}
		}
		f := idFile{id: id}
		copy(f.blob[:], hash)
		out.files = append(out.files, f)
		return nil
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return listPart{}, err
	}
	return out, nil
}

// Len is how many files the listing holds.
func (l Listing) Len() int { return l.n }

// ReadInto reads, checks and decodes every file of the listing, on
// several goroutines when there are many, and hands each to put with its
// place in the listing; put is called once per file, from several
// goroutines at once. A long listing is read in sweeps of the packs
// (listing_order.go), a short one in its order. The files are taken in
// runs of at most readRun, each run by one goroutine, so that a goroutine
// reads neighbouring files together, and one big part (an unsharded
// section, a diff's files) is shared out as well as many small ones. On
// an error some files may have been handed over already; the error of the
// file earliest in the listing among those that failed is returned.
func (l Listing) ReadInto(put func(i int, e Entry)) error {
	read := l.readInListingOrder
	if l.n >= sweepMin {
		read = l.readSwept
	}
	err := read(put)
	if l.n >= releaseEvery {
		l.sn.s.db.ReleasePages()
	}
	return err
}

// readInListingOrder is ReadInto's read of a short listing: on an error
// in a run the run stops, and the error of the earliest run is returned,
// which is that of the earliest file that failed.
func (l Listing) readInListingOrder(put func(i int, e Entry)) error {
	runs := l.runs(readRun)
	var read atomic.Int64
	return inParallel(len(runs), func(k int) error {
		defer l.sn.s.releasePagesEvery(&read, len(runs[k].part.files))
		for i := range runs[k].part.files {
			f := runs[k].part.ref(i)
			o, err := l.sn.read(f)
			if err != nil {
				return err
			}
			put(runs[k].at+i, Entry{ID: f.id, Object: o})
		}
		return nil
	})
}

// fileRun is a run of a listing's files: at is the place of its first.
type fileRun struct {
	at   int
	part listPart // a slice of one of the listing's parts
}

// runs cuts the listing into runs of at most size files, in its order.
func (l Listing) runs(size int) []fileRun {
	var out []fileRun
	at := 0
	for _, p := range l.parts {
		for fs := p.files; len(fs) > 0; {
			k := min(len(fs), size)
			out = append(out, fileRun{at, listPart{dir: p.dir, files: fs[:k]}})
			at, fs = at+k, fs[k:]
		}
	}
	return out
}

// inParallel runs job for 0..n-1 on up to GOMAXPROCS goroutines, each
// taking the next job when it finishes one, and returns the error of the
// lowest-numbered job that failed (the one a walk in order would meet).
func inParallel(n int, job func(k int) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < n; k = int(next.Add(1) - 1) {
				errs[k] = job(k)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// sweepMin is the shortest listing ReadInto reads in sweeps of the packs:
// a shorter one touches too few pages to repay locating and sorting.
const sweepMin = 512

// releaseShards is how many shards listShards lists between two releases
// of the packs' pages.
const releaseShards = 16

// readRun is the most files one goroutine of ReadInto reads in a row.
const readRun = 256

// releaseEvery is how many objects a whole-scope read reads between two
// releases of the packs' pages (DL-0362): about 50 MB of a store's packs.
const releaseEvery = 1 << 18

// releasePagesEvery counts n more objects read on read, and gives the
// packs' pages back each time the count passes a multiple of
// releaseEvery, so that a read of every object of a large store does not
// hold the whole store resident.
func (s *Store) releasePagesEvery(read *atomic.Int64, n int) {
	after := read.Add(int64(n))
	if after/releaseEvery != (after-int64(n))/releaseEvery {
		s.db.ReleasePackPages() // the indexes are read on: ReadInto releases them at its end
	}
}

// readAll reads every file of the listing into a slice, in its order.
func (l Listing) readAll() ([]Entry, error) {
	out := make([]Entry, l.n)
	if err := l.ReadInto(func(i int, e Entry) { out[i] = e }); err != nil {
		return nil, err
	}
	return out, nil
}

// readFiles reads and checks object files, decoding in parallel when
// there are many.
func (sn *Snapshot) readFiles(fs []fileRef) ([]Entry, error) {
	return Listing{sn: sn, parts: partsOf(fs), n: len(fs)}.readAll()
}
