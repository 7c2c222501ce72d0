// The DB: opening a bare repository's object store, the current set of
// packs, lookups that fall back to loose objects, and rescans of
// objects/pack when another process has changed it.

package odb

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deloreis/deloreis/lorestore/fsys"
	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sys/unix"
)

// Options tune a DB.
type Options struct {
	// NoFsync stops Batch.Write, BulkPack.Finish, IngestPack, a
	// quarantine's Publish and Consolidate from flushing the pack, its
	// index and objects/pack before a pack counts as written. The zero
	// value is durable (DL-0413): a ref moved after a write points at
	// objects that survive a crash of the machine. Set it only where a
	// lost write costs nothing (a bulk load redone from its source, tests).
	NoFsync bool
	// FS changes the disk; nil is the operating system's (fsys.OS).
	FS fsys.FS
	// AutoPackLimit: when more packs than this exist, Batch.Write and
	// MaybeConsolidate roll small packs up (Consolidate). 0 means 32; <0
	// never (Consolidate still works when called).
	AutoPackLimit int
	// ConsolidateByCaller stops Batch.Write from rolling packs up itself:
	// the caller runs MaybeConsolidate when it suits it (the lorestore does
	// so in the background, after a commit is referenced, to keep roll-ups
	// off a commit's latency).
	ConsolidateByCaller bool
	// DeltaBaseCacheBytes bounds the cache of resolved delta bases.
	// 0 means 64 MiB; <0 disables the cache.
	DeltaBaseCacheBytes int64
	// OnAutoConsolidateError, when set, receives the error of an automatic
	// roll-up in Batch.Write. Such an error never fails the Write; without
	// this hook it is dropped.
	OnAutoConsolidateError func(error)
	// OnSkippedPack, when set, hears once about each pack that cannot be
	// used (an empty, truncated or corrupt .pack or .idx). Such a pack is
	// skipped, as git skips it, and the objects only it holds read as not
	// found; CheckPacks reports it. Without the hook the skip is silent.
	OnSkippedPack func(error)
	// StaleAge is how old a .pack without its .idx must be before the
	// first pack this DB publishes deletes it (0 means 15 minutes). Our own temporary files go once no
	// writer holds their flock and they are older than the smaller of
	// StaleAge and a minute.
	StaleAge time.Duration
}

// DB is the object database of one bare git repository. It is safe for
// concurrent use by many goroutines.
type DB struct {
	gitDir  string
	objDir  string
	packDir string
	opts    Options
	fs      fsys.FS // opts.FS, or fsys.OS

	cur    atomic.Pointer[packSet]
	cache  *baseCache
	trust  *trustRecord // the indexes verified once and trusted since
	nextID atomic.Uint64

	scanMu sync.Mutex      // serialises rescans and installs of new sets
	stamp  dirStamp        // objects/pack as of the last full scan (under scanMu)
	scans  int             // directory scans so far (under scanMu; for tests)
	warned map[string]bool // packs OnSkippedPack has heard of (under scanMu)
	closed atomic.Bool

	tidy      sync.Once  // removeStale, before the first pack is published
	packsMu   sync.Mutex // held with the flock of packsLock
	packsLock *os.File   // objects/deloreis-packs.lock, opened on first use

	spares spares // temporary files created ahead of need
}

// Open opens the object database of the bare repository at gitDir (the
// directory holding objects/). It creates objects/pack if missing, removes
// our own stale temporary files, and maps every pack. A pack whose index or
// header is unusable is skipped, as git skips it, and reported to
// Options.OnSkippedPack; CheckPacks lists it.
func Open(gitDir string, opts Options) (*DB, error) {
	if opts.AutoPackLimit == 0 {
		opts.AutoPackLimit = 32
	}
	if opts.StaleAge == 0 {
		opts.StaleAge = 15 * time.Minute
	}
	db := &DB{
		gitDir:  gitDir,
		objDir:  filepath.Join(gitDir, "objects"),
		packDir: filepath.Join(gitDir, "objects", "pack"),
		opts:    opts,
		fs:      fsys.Or(opts.FS),
	}
	db.trust = newTrustRecord(db.objDir)
	switch {
	case opts.DeltaBaseCacheBytes == 0:
		db.cache = newBaseCache(defaultCacheBytes)
	case opts.DeltaBaseCacheBytes > 0:
		db.cache = newBaseCache(opts.DeltaBaseCacheBytes)
	}
	if st, err := os.Stat(db.objDir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("odb: %s is not a git directory: no objects/", gitDir)
	}
	if err := fsys.MkdirAll(db.fs, db.packDir, 0o755, db.durable()); err != nil {
		return nil, fmt.Errorf("odb: %w", err)
	}
	db.cur.Store(newPackSet(nil))
	if err := db.rescan(false); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// durable reports whether writes are flushed before they count (the
// default; Options.NoFsync turns it off).
func (db *DB) durable() bool { return !db.opts.NoFsync }

// Close releases the database. Reads already in progress finish normally;
// the mappings are released after the last of them.
func (db *DB) Close() error {
	if db.closed.Swap(true) {
		return nil
	}
	db.dropSpares()
	db.scanMu.Lock()
	defer db.scanMu.Unlock()
	if s := db.cur.Swap(nil); s != nil {
		s.release()
	}
	db.packsMu.Lock()
	if db.packsLock != nil {
		db.packsLock.Close()
		db.packsLock = nil
	}
	db.packsMu.Unlock()
	return nil
}

// acquire returns the current pack set with a reader reference held.
func (db *DB) acquire() (*packSet, error) {
	for {
		s := db.cur.Load()
		if s == nil {
			return nil, ErrClosed
		}
		r := s.refs.Load()
		if r <= 0 {
			continue // being retired; the next Load sees its successor
		}
		if s.refs.CompareAndSwap(r, r+1) {
			return s, nil
		}
	}
}

// install makes a new set current. Caller holds scanMu.
func (db *DB) install(packs []*pack) {
	s := newPackSet(packs)
	if db.closed.Load() {
		s.release()
		return
	}
	if old := db.cur.Swap(s); old != nil {
		old.release()
	}
}

// addPack makes a pack this process just wrote visible to readers without
// a directory scan, and records its index as verified (the bytes are our
// own). If the pack is already gone (another process rolled it up right
// after it appeared), its objects are in the roll-up: rescan.
func (db *DB) addPack(pub published) error {
	base := pub.base
	var p *pack
	var err error
	if pub.data != nil && pub.idx != nil {
		p, err = packFromMemory(base, db.nextID.Add(1), pub.data, pub.idx)
		if err == nil {
			db.trustOwnIndex(base+".idx", pub.idx)
		}
	} else {
		p, err = openPack(base, db.nextID.Add(1), db.trust, true)
	}
	if errors.Is(err, os.ErrNotExist) {
		return db.rescan(false)
	}
	if err != nil {
		return err
	}
	db.scanMu.Lock()
	defer db.scanMu.Unlock()
	old := db.cur.Load()
	if old == nil {
		p.unmap()
		return ErrClosed
	}
	packs := make([]*pack, 0, len(old.packs)+1)
	for _, q := range old.packs {
		if q.base == base {
			// Rewritten with identical content: keep the existing mapping.
			p.unmap()
			return nil
		}
		packs = append(packs, q)
	}
	packs = append(packs, p)
	db.install(packs)
	db.flushTrust(packs)
	return nil
}

// trustOwnIndex records the index this process wrote from idx (kept in
// memory) when the file on disk has its size and trailing checksum.
func (db *DB) trustOwnIndex(path string, idx []byte) {
	if len(idx) < trustMinSize {
		return
	}
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil || st.Size != int64(len(idx)) {
		return
	}
	db.trust.add(filepath.Base(path), stampOf(&st, idx))
}

// flushTrust writes the trust record if it gained entries, keeping those
// of packs (the current set).
func (db *DB) flushTrust(packs []*pack) {
	live := make(map[string]bool, len(packs))
	for _, p := range packs {
		live[filepath.Base(p.base)+".idx"] = true
	}
	db.trust.flush(live)
}

// find looks h up in the packs of s.
func (s *packSet) find(h *plumbing.Hash) (*pack, uint64, bool) {
	for _, p := range s.packs {
		if i := p.idx.find(h); i >= 0 {
			off, ok := p.idx.offset(i)
			return p, off, ok
		}
	}
	return nil, 0, false
}

// Has reports whether object h is stored, packed or loose.
func (db *DB) Has(h plumbing.Hash) (bool, error) {
	for attempt := 0; ; attempt++ {
		s, err := db.acquire()
		if err != nil {
			return false, err
		}
		_, _, ok := s.find(&h)
		s.release()
		if ok || hasLoose(db.objDir, h) {
			return true, nil
		}
		if attempt == 1 {
			return false, nil
		}
		if retry, err := db.refresh(s); err != nil || !retry {
			return false, err
		}
	}
}

// Read returns the type and content of object h. A missing object yields
// an error satisfying errors.Is(err, ErrNotFound).
func (db *DB) Read(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	return db.read(h, 0)
}

func (db *DB) read(h plumbing.Hash, depth int) (plumbing.ObjectType, []byte, error) {
	for attempt := 0; ; attempt++ {
		t, data, s, found, err := db.readOnce(h, depth)
		if found || err != nil {
			return t, data, err
		}
		if attempt == 1 {
			return 0, nil, notFound(h)
		}
		if retry, err := db.refresh(s); err != nil {
			return 0, nil, err
		} else if !retry {
			return 0, nil, notFound(h)
		}
	}
}

// readOnce looks h up in the current packs, then loose. It returns the
// set it searched (released; only its identity is used).
func (db *DB) readOnce(h plumbing.Hash, depth int) (plumbing.ObjectType, []byte, *packSet, bool, error) {
	s, err := db.acquire()
	if err != nil {
		return 0, nil, nil, false, err
	}
	p, off, ok := s.find(&h)
	if ok {
		t, data, err := unpack(p, off, db.cache, db.read, depth)
		s.release()
		return t, data, s, true, err
	}
	s.release()
	if p != nil {
		return 0, nil, s, true, corruptf(p.base+".idx", -1, "bad large offset for %s", h)
	}
	t, data, err := readLoose(db.objDir, h)
	if err == nil {
		return t, data, s, true, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil, s, false, nil
	}
	return 0, nil, s, true, err
}
