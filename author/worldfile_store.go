// World files on disk (DL-0300..DL-0302): where they live, how a miss of
// the world cache loads one, and how they are written after a compile or
// a derivation without a request waiting on it, and kept bounded.

package author

import (
	"encoding/hex"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/deloreis/deloreis/base/gcphase"
	"github.com/deloreis/deloreis/base/phases"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/world"
)

// worldsDir is the folder of world files inside the store's git dir:
// never under refs/ or objects/, so no push, fetch or clone carries it.
const worldsDir = "deloreis/worlds"

// keepPerScope bounds the files kept per scope: the newest are those a
// fresh process is likely to open (the heads), older ones are derivable.
const keepPerScope = 4

// staleTemp is the age past which a temp file is a dead writer's.
const staleTemp = time.Hour

// wfExt is a world file's extension.
const wfExt = ".dw"

// worldFilePath is the file of a (commit, scope): scopes are ids, so the
// name is unambiguous and never a path.
func worldFilePath(s *lorestore.Store, commit lorestore.Hash, scope string) string {
	return filepath.Join(s.Dir(), worldsDir, commit.String()+"-"+scope+wfExt)
}

// wantHeader is what a file for (commit, scope) must claim, read from the
// store now: the scope's tree at commit is the verification key. ok is
// false when the scope holds nothing there (no file is kept for it).
func (c *worldCache) wantHeader(s *lorestore.Store, commit lorestore.Hash, scope string) (wfHeader, bool) {
	sn, err := s.SnapshotAt(commit)
	if err != nil {
		return wfHeader{}, false
	}
	tree, ok, err := sn.ScopeTree(scope)
	if err != nil || !ok {
		return wfHeader{}, false
	}
	dh, err := dialectsHash(c.dialects)
	if err != nil {
		return wfHeader{}, false
	}
	return wfHeader{format: wfFormat, commit: commit, tree: tree, dialects: dh, scope: scope}, true
}

// loadFile builds the world of (commit, scope) from its file, when there
// is one that verifies: from its compiled section when this build wrote
// it (DL-0384), else from its entries. A file that does not verify is
// removed and counted (rejects); the caller then builds the world as if
// there were none. A file whose compiled section is another build's is
// written again, with this build's.
func (c *worldCache) loadFile(s *lorestore.Store, commit lorestore.Hash, scope string) (*world.World, bool) {
	if c.noFiles {
		return nil, false
	}
	path := worldFilePath(s, commit, scope)
	data, unmap, err := mapWorldFile(path)
	if err != nil {
		return nil, false
	}
	want, ok := c.wantHeader(s, commit, scope)
	if !ok {
		unmap()
		return nil, false
	}
	var w *world.World
	var offered, foreign, kept bool
	b, err := locateWorldFile(data, want)
	if err == nil {
		w, offered, foreign, kept, err = c.compileFile(data, b, scope)
	}
	if !kept {
		unmap() // every part kept was copied out
	}
	// else the world reads the mapping (its snapshot's columns, its
	// entries): it stays mapped for the process's life (keepMapping).
	if err != nil {
		c.reject(path, err)
		return nil, false
	}
	c.mu.Lock()
	if w.Restored() {
		c.restored++
	}
	c.mu.Unlock()
	if offered && !w.Restored() {
		// This build's snapshot did not load, or is not of this lowering
		// of the entries: the world was evaluated instead, and the file is
		// refused and written again.
		c.reject(path, wfErr("the compiled section did not load or does not fit its entries"))
		foreign = true
	}
	if foreign {
		os.Remove(path)
		if kept {
			// Its entries and index held when read in place, and stay
			// mapped: they are written again as they are.
			c.rewriteCompiled(s, commit, scope, b.input[:], w)
		} else {
			c.scheduleWrite(s, commit, scope, w.ObjectsByID(), builtWorld(w), nil)
		}
	}
	return w, true
}

// compileFile compiles the world of a mapped file, data, whose sections
// b locates, over both cores: the body's checksum and the snapshot of a
// compiled section of this build are worked on beside the decoding of
// the entries and the compile, which takes the snapshot where it needs
// it; nothing is returned before the checksum holds. offered says the
// file had a compiled section of this build, foreign one of another.
// kept says the world reads data: its snapshot was loaded in place
// (DL-0394), or its entries are read in place (DL-0395), for as long as
// it and the worlds staged from it live, so the caller must never unmap
// data; otherwise nothing reads data once compileFile returns.
func (c *worldCache) compileFile(data []byte, b wfBody, scope string) (w *world.World, offered, foreign, kept bool, err error) {
	snapshot, foreign := compiledFor(b.compiled)
	if snapshot != nil {
		// A world restored from its file is nearly all the load
		// allocates: it is loaded uncollected (DL-0390). Its heap is about
		// twice the file's size (1.9 GB from a file of 1.25 GB at 10M
		// objects). Without this build's snapshot the program is evaluated,
		// which makes garbage: that load is collected as any build is.
		loaded := gcphase.Loading(2 * uint64(len(data)))
		defer loaded()
	}
	// Each part of the mapping is given back once its reader is done
	// with it (a part read again is mapped again).
	var compiled *world.Compiled
	released := make(chan struct{})
	reserved, inPlace := false, false
	if snapshot != nil || foreign {
		// The snapshot is loaded, and the entries read, in place when the
		// mapping can be kept; the reservation is given back unless the
		// world reads the mapping. Another build's snapshot is not loaded:
		// the world is evaluated over the entries in place, so that it
		// does not hold them decoded (DL-0400).
		reserved = keepMapping(len(data))
		defer func() {
			kept = reserved && err == nil && (w.Restored() || inPlace)
			if reserved && !kept {
				unkeepMapping(len(data))
			}
			if inPlace && kept {
				c.mu.Lock()
				c.inPlace++
				c.mu.Unlock()
			}
		}()
	}
	if snapshot != nil {
		compiled = startLoadSnapshot(snapshot, reserved, released)
	}
	sum := make(chan error, 1)
	go func() { sum <- b.check(releaseMapped) }()
	w, inPlace, err = c.compileEntries(b.entries, b.index, scope, compiled, reserved)
	releaseMapped(b.entries)
	if compiled != nil {
		// The loader is done with the bytes and they are given back: the
		// caller may unmap them (a release after an unmap could give back
		// pages of whatever was mapped there next).
		<-released
	}
	if sumErr := <-sum; sumErr != nil {
		return nil, false, false, false, sumErr // the body is not what was written: nothing of it counts
	}
	if err != nil {
		// The machinery failed on what the file held: the store's own
		// objects will say whether it was the file.
		return nil, false, false, false, err
	}
	return w, compiled != nil, foreign, false, nil // kept: set by the deferred call above
}

// startLoadSnapshot starts loading a compiled section's snapshot, in
// place when the mapping is reserved (aliased to it), and gives the
// snapshot's pages back once the load is done, closing released: the
// load runs beside the entries' compile, which takes it where it needs
// it.
func startLoadSnapshot(snapshot []byte, reserved bool, released chan struct{}) *world.Compiled {
	var compiled *world.Compiled
	if reserved {
		compiled = world.StartLoadCompiledAliased(snapshot, releaseMapped)
	} else {
		compiled = world.StartLoadCompiled(snapshot)
	}
	go func() {
		compiled.Err()
		// An aliased world reads its columns again as it needs them,
		// mapped again from the page cache.
		releaseMapped(snapshot)
		close(released)
	}()
	return compiled
}

// compileEntries compiles the world of a file's entries. With the
// mapping reserved it reads them in place, restored from compiled or,
// without one, evaluated (compileInPlace): a section the scan refuses is
// an error, and a snapshot that does not load or fit falls back to what
// is done without a reservation, decoding the entries and compiling them
// (from compiled while no Compile has taken it). inPlace says the world
// reads the entries in place. It is the compile proper; compileFile runs
// the loads and the checksum beside it and decides what is kept.
func (c *worldCache) compileEntries(entries, index []byte, scope string, compiled *world.Compiled, reserved bool) (w *world.World, inPlace bool, err error) {
	restore := compiled
	refused := false
	if reserved {
		// A world restored from this build's snapshot reads its entries
		// in place (DL-0395). A file whose entries or index the scan
		// refuses is refused: a file of this format is written in id
		// order with the index its entries make (DL-0400).
		var tried bool
		w, tried, err = c.compileInPlace(entries, index, scope, compiled)
		inPlace = err == nil
		refused = !tried && err != nil
		if tried && !inPlace {
			restore = nil // a Compiled serves one Compile: the decoded entries are evaluated
		}
	}
	if !inPlace && !refused {
		var base []world.Entry
		base, err = decodeEntries(entries)
		if err == nil {
			w, err = world.Compile(world.Input{Scope: scope, Base: base, Dialects: c.dialects, Owned: true, Compiled: restore})
		}
	}
	return w, inPlace, err
}

// compileInPlace compiles a world over the entries read in place,
// restored from compiled or, when it is nil, evaluated. A section that
// does not scan, or is not in id order, or whose index does not hold, is
// an error, and tried is false; one whose snapshot does not load or fit
// is an error the caller decodes the entries after. tried says the
// entries were handed to a Compile.
func (c *worldCache) compileInPlace(entries, index []byte, scope string, compiled *world.Compiled) (w *world.World, tried bool, err error) {
	fb, err := openFileBase(entries, index, releaseMapped)
	if err != nil {
		return nil, false, err
	}
	// A snapshot that does not load or fit (a file altered, its checksum
	// made again) is refused, not evaluated over: the caller decodes the
	// entries and evaluates, and the mapping is not kept for nothing.
	w, err = world.Compile(world.Input{Scope: scope, Lazy: fb, Dialects: c.dialects, Compiled: compiled, RestoreOnly: compiled != nil})
	return w, true, err
}

// builtWorld is the outcome of a build that is over.
func builtWorld(w *world.World) func() (*world.World, error) {
	return func() (*world.World, error) { return w, nil }
}

// fileAncestor walks the first parents of commit, at most maxFollow, to
// one whose world file of scope exists and verifies, and loads it: a
// fresh process opening a head whose own file was not written (the writer
// coalesced it away, or had not finished) derives it from an older one.
func (c *worldCache) fileAncestor(s *lorestore.Store, commit lorestore.Hash, scope string) (lorestore.Hash, *world.World, bool) {
	if c.noFiles {
		return lorestore.ZeroHash, nil, false
	}
	h := commit
	for range maxFollow {
		p, ok, err := s.FirstParent(h)
		if err != nil || !ok {
			break
		}
		if _, err := os.Stat(worldFilePath(s, p, scope)); err == nil {
			if w, ok := c.loadFile(s, p, scope); ok {
				return p, w, true
			}
		}
		h = p
	}
	return lorestore.ZeroHash, nil, false
}

// reject removes a file that failed verification and notes why.
func (c *worldCache) reject(path string, err error) {
	os.Remove(path)
	c.mu.Lock()
	c.rejects++
	c.lastReject = err
	c.mu.Unlock()
}

// writeJob is one file to write: a world's entries, and its world,
// which built waits for when it is still being compiled. The entries are
// written while the compile runs; the file is named only once the
// compile has succeeded.
type writeJob struct {
	path    string
	hd      wfHeader
	entries iter.Seq[world.Entry]
	input   [][]byte // in place of entries: sections written as they are (rewriteCompiled)
	built   func() (*world.World, error)
	offer   *baseOffer // the compile beside the writer takes the entries back from the file (nil: none)
}

// scheduleWrite files the world file of entries in the store's background
// (Close waits for it), never on the request's path. Writes are coalesced
// per scope: while one runs, only the newest pending world is kept, so a
// run of materializes costs one write in flight and one waiting, not one
// each.
//
// offer, when not nil, is offered the file's entries once they are
// written, or nothing when the write is not started now.
func (c *worldCache) scheduleWrite(s *lorestore.Store, commit lorestore.Hash, scope string, entries iter.Seq[world.Entry], built func() (*world.World, error), offer *baseOffer) {
	if offer != nil {
		defer func() {
			if offer != nil {
				offer.give(offered{}) // not written now: the compile goes on over its own entries
			}
		}()
	}
	if entries == nil {
		return
	}
	path, hd, ok := c.toWrite(s, commit, scope)
	if ok && c.startWrite(s, scope, writeJob{path: path, hd: hd, entries: entries, built: built}, offer) {
		offer = nil // the writer offers it
	}
}

// toWrite returns the path and header of the file of (commit, scope)
// when it is to be written.
func (c *worldCache) toWrite(s *lorestore.Store, commit lorestore.Hash, scope string) (string, wfHeader, bool) {
	if c.noFiles {
		return "", wfHeader{}, false
	}
	path := worldFilePath(s, commit, scope)
	if _, err := os.Stat(path); err == nil {
		return "", wfHeader{}, false // a verified file was just loaded, or a peer wrote it
	}
	hd, ok := c.wantHeader(s, commit, scope)
	return path, hd, ok
}

// rewriteCompiled files, as scheduleWrite does, the world file of w, a
// world evaluated over the entries of a file whose compiled section is
// another build's: input is that file's entries and index sections, read
// in place and held to each other, which the new file takes as they are.
// input must stay mapped while the write may run.
func (c *worldCache) rewriteCompiled(s *lorestore.Store, commit lorestore.Hash, scope string, input [][]byte, w *world.World) {
	if path, hd, ok := c.toWrite(s, commit, scope); ok {
		c.startWrite(s, scope, writeJob{path: path, hd: hd, input: input, built: builtWorld(w)}, nil)
	}
}

// startWrite starts job in the background, or keeps it as the scope's
// pending write while another runs (a job that replaces it later drops
// it). started says it started, and then its writer offers offer.
func (c *worldCache) startWrite(s *lorestore.Store, scope string, job writeJob, offer *baseOffer) (started bool) {
	c.mu.Lock()
	if c.writing == nil {
		c.writing, c.pending = map[string]bool{}, map[string]writeJob{}
	}
	if c.writing[scope] {
		c.pending[scope] = job
		c.mu.Unlock()
		return false
	}
	c.writing[scope] = true
	c.mu.Unlock()
	job.offer = offer
	s.Background(func() {
		// Writing walks a built world's every entry and relation beside
		// whatever the process does next: paced as a build is, the heap
		// is collected before it doubles past the world (gcphase).
		done := gcphase.Building()
		defer done()
		for {
			err := writeWorldFile(&job)
			c.mu.Lock()
			if err == nil {
				c.written++
			}
			next, more := c.pending[scope]
			delete(c.pending, scope)
			if !more {
				c.writing[scope] = false
				c.mu.Unlock()
				evictFiles(filepath.Dir(job.path), keepPerScope)
				return
			}
			c.mu.Unlock()
			job = next
		}
	})
	return true
}

// writeBeside returns the Indexed hook of a compile of (commit, scope),
// which starts writing the world file while the compile goes on, and the
// function that hands the compile's outcome to that writer: on two cores
// a 10M-object file is written on the core the single-threaded lowering
// and evaluation leave free, not after them (DL-0373).
//
// The compile's Rebase takes the entries back from the file once they are
// written (DL-0532).
func (c *worldCache) writeBeside(s *lorestore.Store, commit lorestore.Hash, scope string) (beside fileBeside, compiled func(*world.World, error)) {
	if c.noFiles {
		return fileBeside{}, func(*world.World, error) {}
	}
	type outcome struct {
		w   *world.World
		err error
	}
	ready := make(chan outcome, 1) // never waited on when the hook did not run
	built := func() (*world.World, error) { o := <-ready; return o.w, o.err }
	offer := newBaseOffer()
	return fileBeside{
			indexed: func(entries iter.Seq[world.Entry]) {
				offer.scheduled.Store(true)
				c.scheduleWrite(s, commit, scope, entries, built, offer)
			},
			rebase: func(n int) (world.EntryBase, func(bool)) {
				base, done := offer.take(n)
				if base == nil {
					return nil, nil
				}
				return base, func(taken bool) {
					if taken {
						c.mu.Lock()
						c.rebased++
						c.mu.Unlock()
					}
					done(taken)
				}
			},
		}, func(w *world.World, err error) {
			offer.finish()
			ready <- outcome{w, err}
		}
}

// fileBeside is the hooks of a compile whose world file is written
// beside it: Input.Indexed and Input.Rebase.
type fileBeside struct {
	indexed func(iter.Seq[world.Entry])
	rebase  func(n int) (world.EntryBase, func(bool))
}

// writeWorldFile writes a file atomically: a temp file in the same
// folder, renamed over the name once the world is built, and not flushed
// (DL-0302). Concurrent writers of one name
// each rename a whole file; the last rename wins and both are the same.
//
// It lets go of the job's entries once they are written: they may be a
// world's decoded entries, which the world lets go of too (DL-0532).
func writeWorldFile(j *writeJob) (err error) {
	defer phases.Start(PhaseFileWrite)()
	dir := filepath.Dir(j.path)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(j.path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	// The compiled section waits for the world: a world that did not
	// compile fails the write, and no file names it.
	entries := j.entries
	j.entries = nil
	var indexed func(*os.File, uint64, span, span, scanNotes)
	if j.offer != nil {
		indexed = j.offer.offerFile
		defer j.offer.give(offered{}) // a write that failed before offering
	}
	if j.input != nil {
		err = encodeKeptWorldFile(f, j.hd, j.input, writeCompiled(j.built))
	} else {
		err = encodeWorldFile(f, j.hd, entries, writeCompiled(j.built), indexed)
	}
	if err != nil {
		return err
	}
	// Not flushed to the disk: a file that a crash leaves cut short or
	// empty fails its checksum or its header, and is rebuilt (DL-0302).
	endClose := phases.Start(PhaseFileClose)
	defer endClose()
	if err = f.Chmod(0o644); err != nil { // readable as the store's other files are
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), j.path)
}

// evictFiles keeps the newest keep files of each scope (by modification
// time) and removes dead writers' temp files.
func evictFiles(dir string, keep int) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type file struct {
		name string
		mod  time.Time
	}
	byScope := map[string][]file{}
	for _, de := range des {
		info, err := de.Info()
		if err != nil {
			continue
		}
		name := de.Name()
		if strings.HasPrefix(name, ".") {
			if time.Since(info.ModTime()) > staleTemp {
				os.Remove(filepath.Join(dir, name))
			}
			continue
		}
		_, scope, ok := parseWorldFileName(name)
		if !ok {
			continue
		}
		byScope[scope] = append(byScope[scope], file{name, info.ModTime()})
	}
	for _, fs := range byScope {
		slices.SortFunc(fs, func(a, b file) int { return b.mod.Compare(a.mod) })
		for _, f := range fs[min(keep, len(fs)):] {
			os.Remove(filepath.Join(dir, f.name))
		}
	}
}

// parseWorldFileName splits "<commit>-<scope>.dw".
func parseWorldFileName(name string) (lorestore.Hash, string, bool) {
	base, ok := strings.CutSuffix(name, wfExt)
	if !ok || len(base) < 42 || base[40] != '-' {
		return lorestore.ZeroHash, "", false
	}
	var h lorestore.Hash
	if _, err := hex.Decode(h[:], []byte(base[:40])); err != nil {
		return lorestore.ZeroHash, "", false
	}
	return h, base[41:], true
}

// The phases of writing a world file (DL-0503): the entries are written
// beside the compile, the compiled section once the world is built.
const (
	PhaseFileWrite    = "world file: write, in all"
	PhaseFileEntries  = "world file: entries"
	PhaseFileIndex    = "world file: index"
	PhaseFileWait     = "world file: waiting for the compile"
	PhaseFileCompiled = "world file: compiled section"
	PhaseFileSum      = "world file: checksum"
	PhaseFileClose    = "world file: close and rename"
)
