// Scanning objects/pack: opening the packs other processes added, dropping
// those they removed, and deciding cheaply whether a rescan is needed.

package odb

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// dirStamp identifies a state of objects/pack. A rename or unlink in the
// directory changes its mtime; a stamp whose mtime is within racyWindow of
// the moment it was taken cannot be trusted (the kernel's coarse timestamp
// granularity, a few milliseconds, may hide a later change): git's "racy
// clean" problem. Such a stamp forces a rescan on the next miss.
type dirStamp struct {
	valid bool
	ino   uint64
	mtime int64
	ctime int64
	racy  bool
}

const racyWindow = 100 * time.Millisecond

func statDir(path string) (dirStamp, error) {
	now := time.Now().UnixNano()
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return dirStamp{}, err
	}
	s := dirStamp{valid: true, ino: st.Ino, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
	s.racy = now-s.mtime < int64(racyWindow) || now-s.ctime < int64(racyWindow)
	return s, nil
}

func (a dirStamp) same(b dirStamp) bool {
	return a.valid && b.valid && a.ino == b.ino && a.mtime == b.mtime && a.ctime == b.ctime
}

// refresh is called after a lookup in the set seen missed. Unless
// objects/pack provably has not changed since the last scan, it rescans.
// It reports whether a retry may find more: the scan changed the set, or
// another goroutine installed a newer set than seen meanwhile.
func (db *DB) refresh(seen *packSet) (bool, error) {
	db.scanMu.Lock()
	defer db.scanMu.Unlock()
	if db.cur.Load() == nil {
		return false, ErrClosed
	}
	st, err := statDir(db.packDir)
	if err != nil || db.stamp.racy || !st.same(db.stamp) {
		if _, err := db.scanLocked(false); err != nil {
			return false, err
		}
	}
	return db.cur.Load() != seen, nil
}

// rescan scans objects/pack unconditionally. With strict, a pack that fails
// to open for any reason but disappearance is an error.
func (db *DB) rescan(strict bool) error {
	db.scanMu.Lock()
	defer db.scanMu.Unlock()
	_, err := db.scanLocked(strict)
	return err
}

// scanLocked reads objects/pack and installs a set with exactly the packs
// whose .idx is present. Packs already open are reused. When a pack vanishes
// between listing and opening (another process consolidated), the directory
// is listed again: the replacement was made visible before the removal.
func (db *DB) scanLocked(strict bool) (bool, error) {
	old := db.cur.Load()
	if old == nil {
		return false, ErrClosed
	}
	known := make(map[string]*pack, len(old.packs))
	for _, p := range old.packs {
		known[p.base] = p
	}
	opened := map[string]*pack{}
	var packs []*pack
	db.scans++
	for try := 0; ; try++ {
		st, _ := statDir(db.packDir)
		bases, err := listPacks(db.packDir)
		if err != nil {
			return false, err
		}
		packs = packs[:0]
		vanished := false
		for _, base := range bases {
			if p := known[base]; p != nil {
				packs = append(packs, p)
				continue
			}
			if p := opened[base]; p != nil {
				packs = append(packs, p)
				continue
			}
			p, err := openPack(base, db.nextID.Add(1), db.trust, false)
			if errors.Is(err, os.ErrNotExist) {
				if try >= 4 && fileExists(base+".idx") {
					// Not a roll-up in flight: an index whose pack is gone.
					db.skipped(base, corruptf(base+".pack", -1, "missing beside its index"))
				}
				vanished = true
				continue
			}
			if err != nil {
				if strict {
					for _, q := range opened {
						q.unmap()
					}
					return false, err
				}
				db.skipped(base, err)
				continue // skipped, like git does; retried on the next scan
			}
			opened[base] = p
			packs = append(packs, p)
		}
		if !vanished || try >= 4 {
			db.stamp = st
			break
		}
	}
	used := make(map[*pack]bool, len(packs))
	for _, p := range packs {
		used[p] = true
	}
	for _, p := range opened {
		if !used[p] {
			p.unmap()
		}
	}
	changed := len(opened) > 0 || len(packs) != len(old.packs)
	if changed {
		db.install(packs)
	}
	db.flushTrust(packs)
	return changed, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// skipped tells OnSkippedPack, once per pack, that it cannot be used.
// Called under scanMu.
func (db *DB) skipped(base string, err error) {
	if db.opts.OnSkippedPack == nil || db.warned[base] {
		return
	}
	if db.warned == nil {
		db.warned = map[string]bool{}
	}
	db.warned[base] = true
	db.opts.OnSkippedPack(err)
}

// CheckPacks opens every pack in objects/pack afresh, as Open would, and
// returns one error per pack that cannot be used: an index or pack that is
// empty, truncated, corrupt, or missing beside its partner. (A .pack
// without an .idx is not a problem: git ignores it and so do we.) Every
// index is hashed in full, whatever the trust record says.
func (db *DB) CheckPacks() []error {
	bases, err := listPacks(db.packDir)
	if err != nil {
		return []error{err}
	}
	var out []error
	for _, base := range bases {
		p, err := openPack(base, 0, nil, false)
		if errors.Is(err, os.ErrNotExist) {
			if !fileExists(base + ".idx") {
				continue // removed by a concurrent roll-up meanwhile
			}
			err = corruptf(base+".pack", -1, "missing beside its index")
		}
		if err != nil {
			out = append(out, err)
			continue
		}
		p.unmap()
	}
	return out
}

// listPacks returns the base paths (without extension) of every pack-*.idx.
func listPacks(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var bases []string
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, "pack-") && strings.HasSuffix(n, ".idx") {
			bases = append(bases, filepath.Join(dir, strings.TrimSuffix(n, ".idx")))
		}
	}
	return bases, nil
}

const (
	tmpPackPrefix = "tmp_pack_dlr_"
	tmpIdxPrefix  = "tmp_idx_dlr_"
	// tmpMinAge protects a temporary file between its creation and its
	// writer's flock.
	tmpMinAge = time.Minute
)

// removeStale deletes our own temporary files that no live writer holds
// (writers keep an flock on them until renamed; they must also be older
// than min(staleAge, a minute)) and .pack files without an
// .idx older than staleAge (a crash between the two renames; a live writer
// renames the .idx microseconds later). Real git ignores both kinds of file,
// so this is tidiness, not correctness. Errors are ignored.
func removeStale(dir string, staleAge time.Duration) {
	// The same files fsck lists as garbage (garbageIn), each kind at its
	// own age.
	gs, _ := garbageIn(filepath.Dir(dir), dir, min(staleAge, tmpMinAge), staleAge)
	for _, g := range gs {
		os.Remove(filepath.Join(filepath.Dir(dir), g.Path))
	}
}

// lockedByWriter reports whether some process holds an flock on path.
func lockedByWriter(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true // leave it alone
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return true
	}
	unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return false
}
