// Publishing a finished pack (renaming .pack, then .idx, into place) and
// taking back a pack nobody else relies on (Batch.Discard).
//
// Two writers can produce byte-identical packs (the same objects in the
// same order), hence the same name pack-<sha>. If one of them later
// discarded "its" pack it would delete the other's objects. So publication
// and deletion of packs by deloreis writers happen under one flock
// (objects/deloreis-packs.lock): a writer that finds its pack already
// present adopts it instead of renaming over it and marks the adoption by
// moving the file's mtime; Discard deletes a pack only if it is the file
// this batch created (same inode) and nobody adopted it since (same mtime).

package odb

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// packsLockName guards publication and deletion of packs, in objects/.
const packsLockName = "deloreis-packs.lock"

// published describes a pack made visible by this process.
type published struct {
	base  string // objects/pack/pack-<sha>, "" when nothing was written
	owned bool   // we created the file (rather than adopting an identical one)
	ino   uint64
	mtime int64
	data  []byte // the pack's bytes, when kept in memory
	idx   []byte // the index's bytes, when kept in memory
}

// lockPacks takes the exclusive flock guarding pack publication and
// deletion; the returned function releases it.
// The lock file stays open for the DB's life; an in-process mutex orders
// this process's goroutines, the flock other processes.
func (db *DB) lockPacks() (func(), error) {
	db.packsMu.Lock()
	if db.packsLock == nil {
		f, err := db.fs.OpenFile(filepath.Join(db.objDir, packsLockName), os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			db.packsMu.Unlock()
			return nil, fmt.Errorf("odb: %w", err)
		}
		db.packsLock = f
	}
	fd := int(db.packsLock.Fd())
	if err := unix.Flock(fd, unix.LOCK_EX); err != nil {
		db.packsMu.Unlock()
		return nil, fmt.Errorf("odb: lock packs: %w", err)
	}
	return func() {
		unix.Flock(fd, unix.LOCK_UN)
		db.packsMu.Unlock()
	}, nil
}

// publish writes the index for the complete temporary pack f, then makes
// the pair visible: the .pack first, the .idx last (flushed first, see
// publishFiles). f stays open for the caller to close.
func (db *DB) publish(f *os.File, trailer []byte, entries []idxEntry, keepIdx bool) (published, error) {
	// The first pack a process publishes tidies what a crashed writer
	// left (removeStale); a command that only reads deletes nothing, as
	// git's reading commands do, and pays no directory listing for it.
	db.tidy.Do(func() {
		removeStale(db.packDir, db.opts.StaleAge)
		removeStale(db.objDir, db.opts.StaleAge)
	})
	var idxMem *bytes.Buffer
	if keepIdx {
		idxMem = new(bytes.Buffer)
	}
	xf, err := db.tempIndex(entries, trailer, idxMem)
	if err != nil {
		return published{}, err
	}
	defer xf.Close()
	pub, err := db.publishFiles(f, xf, trailer)
	if err == nil && keepIdx {
		pub.idx = idxMem.Bytes()
	}
	return pub, err
}

// tempIndex writes the index of entries, for the pack whose trailer is
// given, to a new temporary file (and to mem, when not nil) and returns
// the file, open and flocked. On failure nothing is left behind.
func (db *DB) tempIndex(entries []idxEntry, trailer []byte, mem *bytes.Buffer) (*os.File, error) {
	xf, err := db.takeTemp(tmpIdxPrefix)
	if err != nil {
		return nil, err
	}
	var out io.Writer = xf
	if mem != nil {
		out = io.MultiWriter(xf, mem)
	}
	if _, err := writeIdx(out, entries, trailer); err != nil {
		xf.Close()
		db.fs.Remove(xf.Name())
		return nil, fmt.Errorf("odb: write index: %w", err)
	}
	return xf, nil
}

// publishFiles makes the complete temporary pack f and its index xf
// visible: the .pack first, the .idx last. Unless the DB was opened with
// NoFsync, both files are flushed before either is renamed and
// objects/pack after both renames, so that once publishFiles returns a
// ref may point into the pack and survive a crash of the machine
// (DL-0413). On failure the temporary index is removed; both files stay
// open for the caller to close.
func (db *DB) publishFiles(f, xf *os.File, trailer []byte) (published, error) {
	durable := db.durable()
	fail := func(err error) (published, error) {
		db.fs.Remove(xf.Name())
		return published{}, err
	}
	if durable {
		if err := db.fs.Sync(f); err != nil {
			return fail(fmt.Errorf("odb: fsync pack: %w", err))
		}
		if err := db.fs.Sync(xf); err != nil {
			return fail(fmt.Errorf("odb: fsync index: %w", err))
		}
	}
	unlock, err := db.lockPacks()
	if err != nil {
		return fail(err)
	}
	defer unlock()
	pub := published{base: filepath.Join(db.packDir, "pack-"+hex.EncodeToString(trailer))}
	if err := db.placePack(f.Name(), &pub); err != nil {
		return fail(err)
	}
	if err := db.fs.Rename(xf.Name(), pub.base+".idx"); err != nil {
		return fail(fmt.Errorf("odb: %w", err))
	}
	if durable {
		if err := db.syncDir(db.packDir); err != nil {
			return published{}, err
		}
	}
	return pub, nil
}

// placePack renames the temporary pack to pub.base+".pack", or, when an
// identical pack is already there, adopts that one and removes tmp.
// Caller holds the packs lock.
func (db *DB) placePack(tmp string, pub *published) error {
	path := pub.base + ".pack"
	if st, err := os.Lstat(path); err == nil && sameTail(tmp, path, st.Size()) {
		// Adopt: move the mtime so its creator will not discard it.
		mt := st.ModTime().Add(time.Microsecond)
		if now := time.Now(); now.After(mt) {
			mt = now
		}
		if err := os.Chtimes(path, mt, mt); err != nil {
			return fmt.Errorf("odb: adopt existing pack: %w", err)
		}
		db.fs.Remove(tmp)
		return nil
	}
	if err := db.fs.Rename(tmp, path); err != nil {
		return fmt.Errorf("odb: %w", err)
	}
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return fmt.Errorf("odb: %w", err)
	}
	pub.owned, pub.ino, pub.mtime = true, st.Ino, st.Mtim.Nano()
	return nil
}

// sameTail reports whether files a and b both have size n and end with
// the same 20 bytes (the pack checksum): b is then the pack a would be.
// Anything else (say, a torn file left by a power loss) is replaced.
func sameTail(a, b string, n int64) bool {
	if n < hashLen {
		return false
	}
	tail := func(path string) []byte {
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer f.Close()
		if st, err := f.Stat(); err != nil || st.Size() != n {
			return nil
		}
		buf := make([]byte, hashLen)
		if _, err := f.ReadAt(buf, n-hashLen); err != nil {
			return nil
		}
		return buf
	}
	ta, tb := tail(a), tail(b)
	return ta != nil && tb != nil && string(ta) == string(tb)
}

// Discard takes back the pack written by the last successful Write of
// this batch, for a writer whose objects turned out not to be wanted (its
// ref update lost a race). The pack is deleted only when this batch created
// it and no other writer has adopted an identical pack since, and only if
// it is still there (a consolidation may have rolled it up: its objects
// then stay, harmlessly unreferenced). Objects the batch shared with
// earlier packs are untouched. Discard after Discard, or without a Write,
// is a no-op.
//
// Callers must not Discard objects another writer could have come to rely
// on: odb never skips writing an object because it is already stored, so a
// pack is only ever relied on through a ref that points into it.
func (b *Batch) Discard() error {
	pub := b.last
	b.last = published{}
	return b.db.discard(pub)
}

// discard deletes a pack this process published, unless another writer
// adopted it (see Batch.Discard).
func (db *DB) discard(pub published) error {
	if !pub.owned {
		return nil
	}
	unlock, err := db.lockPacks()
	if err != nil {
		return err
	}
	var st unix.Stat_t
	err = unix.Stat(pub.base+".pack", &st)
	mine := err == nil && st.Ino == pub.ino && st.Mtim.Nano() == pub.mtime
	if mine {
		// Index first, as git does: the pack is invisible before it is gone.
		err = db.fs.Remove(pub.base + ".idx")
		if err == nil || errors.Is(err, os.ErrNotExist) {
			err = db.fs.Remove(pub.base + ".pack")
		}
	} else if errors.Is(err, syscall.ENOENT) {
		err = nil
	}
	unlock()
	if err != nil {
		return fmt.Errorf("odb: discard: %w", err)
	}
	if mine {
		db.dropPacks(map[string]bool{pub.base: true})
	}
	return nil
}

// dropPacks removes the named packs from the current set (their files are
// gone; readers holding an older set keep their mappings).
func (db *DB) dropPacks(gone map[string]bool) {
	db.scanMu.Lock()
	defer db.scanMu.Unlock()
	s := db.cur.Load()
	if s == nil {
		return
	}
	var packs []*pack
	for _, p := range s.packs {
		if !gone[p.base] {
			packs = append(packs, p)
		}
	}
	if len(packs) != len(s.packs) {
		db.install(packs)
	}
}
