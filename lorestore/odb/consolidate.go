// Consolidation: a geometric roll-up of small packs into one, like
// `git repack --geometric=2 -d`, serialised across processes by an flock.

package odb

import (
	"cmp"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sys/unix"
)

// geometricFactor is the ratio the kept packs must keep between them.
const geometricFactor = 2

// lockName is the flock guarding consolidation, in objects/ (not in
// objects/pack, where `git count-objects -v` would call it garbage).
const lockName = "deloreis-consolidate.lock"

// errBusy reports that another consolidation holds the lock.
var errBusy = errors.New("odb: another consolidation is running")

// geometricSplit returns how many of the smallest packs (counts sorted
// ascending) to roll into one so that the rest, plus the new pack, form a
// progression where each pack holds at least factor times the next smaller.
func geometricSplit(counts []int, factor int) int {
	n := len(counts)
	if n < 2 {
		return 0
	}
	i := n - 1
	for ; i > 0; i-- {
		if counts[i] < factor*counts[i-1] {
			break
		}
	}
	split := i
	if split > 0 {
		split++ // the upper element of the failing pair joins the roll-up
	}
	total := 0
	for _, c := range counts[:split] {
		total += c
	}
	for split < n && counts[split] < factor*total {
		total += counts[split]
		split++
	}
	return split
}

// Consolidate rolls small packs up into one (full objects, no deltas),
// makes it visible, then deletes the rolled-up packs. Packs with a .keep,
// .promisor or .mtimes file are never touched. Only one consolidation runs
// at a time per repository (across processes); Consolidate waits for a
// running one.
// Readers in other processes keep working: they rescan on a miss, and the
// new pack is visible before any old one disappears.
func (db *DB) Consolidate() error {
	return db.consolidate(true)
}

// MaybeConsolidate runs Consolidate if this DB sees more packs than
// Options.AutoPackLimit (never when it is negative). If another
// consolidation is running, it returns nil at once instead of waiting.
// The porcelain calls it once a commit is referenced by a ref; Batch.Write
// calls it too, before writing.
func (db *DB) MaybeConsolidate() error {
	limit := db.opts.AutoPackLimit
	if limit < 0 {
		return nil
	}
	s := db.cur.Load()
	if s == nil {
		return ErrClosed
	}
	if len(s.packs) <= limit {
		return nil
	}
	err := db.consolidate(false)
	if errors.Is(err, errBusy) {
		return nil
	}
	return err
}

// autoConsolidate is MaybeConsolidate for Batch.Write: errors go to the
// hook, never to the writer.
func (db *DB) autoConsolidate() {
	if err := db.MaybeConsolidate(); err != nil && db.opts.OnAutoConsolidateError != nil {
		db.opts.OnAutoConsolidateError(err)
	}
}

func (db *DB) consolidate(wait bool) error {
	unlock, err := db.lockConsolidation(wait)
	if err != nil {
		return err
	}
	defer unlock()
	if err := db.rescan(false); err != nil {
		return err
	}
	s, err := db.acquire()
	if err != nil {
		return err
	}
	defer s.release()
	roll, keep := db.pickRollup(s.packs)
	if len(roll) < 2 {
		return nil
	}
	pub, err := db.writeRollup(roll, keep)
	if err != nil {
		return err
	}
	return db.retirePacks(pub, roll)
}

// lockConsolidation takes the consolidation flock; it is released by the
// returned function or, if the process dies, by the kernel.
func (db *DB) lockConsolidation(wait bool) (func(), error) {
	f, err := db.fs.OpenFile(filepath.Join(db.objDir, lockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("odb: %w", err)
	}
	how := unix.LOCK_EX
	if !wait {
		how |= unix.LOCK_NB
	}
	if err := unix.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, errBusy
		}
		return nil, fmt.Errorf("odb: lock consolidation: %w", err)
	}
	return func() { f.Close() }, nil
}

// pickRollup splits packs into those to roll up and those to keep.
func (db *DB) pickRollup(packs []*pack) (roll, keep []*pack) {
	marked := db.markedPacks()
	if marked == nil {
		return nil, packs // cannot tell which packs git pinned: roll none
	}
	var cand []*pack
	for _, p := range packs {
		if marked[p.base] {
			keep = append(keep, p)
		} else {
			cand = append(cand, p)
		}
	}
	slices.SortStableFunc(cand, func(a, b *pack) int { return a.count - b.count })
	counts := make([]int, len(cand))
	for i, p := range cand {
		counts[i] = max(p.count, 1) // an empty pack still costs a lookup
	}
	split := geometricSplit(counts, geometricFactor)
	return cand[:split], append(keep, cand[split:]...)
}

// markedPacks lists, by base path, the packs git marked as not to be
// repacked: a .keep (e.g. receive-pack's, until refs are updated), a
// .promisor (partial clone) or a .mtimes (a cruft pack of unreachable
// objects awaiting expiry). One directory read, not three stats a pack.
// A nil map means the directory could not be read.
func (db *DB) markedPacks() map[string]bool {
	names, err := os.ReadDir(db.packDir)
	if err != nil {
		return nil
	}
	marked := map[string]bool{}
	for _, e := range names {
		n := e.Name()
		for _, ext := range []string{".keep", ".promisor", ".mtimes"} {
			if base, ok := strings.CutSuffix(n, ext); ok {
				marked[filepath.Join(db.packDir, base)] = true
			}
		}
	}
	return marked
}

type rollObj struct {
	p   *pack
	off uint64
	crc uint32
	h   plumbing.Hash
}

// writeRollup writes every object of roll that no pack of keep holds into
// one new pack (base "" when there is nothing to write).
func (db *DB) writeRollup(roll, keep []*pack) (published, error) {
	seen := map[plumbing.Hash]bool{}
	var objs []rollObj
	for _, p := range roll {
		start := len(objs)
		for i := 0; i < p.idx.n; i++ {
			h := plumbing.Hash(p.idx.name(i))
			if seen[h] || inAny(keep, &h) {
				continue
			}
			off, ok := p.idx.offset(i)
			if !ok {
				return published{}, corruptf(p.base+".idx", -1, "bad large offset for %s", h)
			}
			seen[h] = true
			objs = append(objs, rollObj{p: p, off: off, crc: p.idx.crc(i), h: h})
		}
		// Pack order keeps reads of each mapping sequential.
		slices.SortFunc(objs[start:], func(a, b rollObj) int { return cmp.Compare(a.off, b.off) })
	}
	if len(objs) == 0 {
		return published{}, nil // everything is in kept packs already
	}
	w, err := db.newPackWriter(len(objs))
	if err != nil {
		return published{}, err
	}
	d := deflaters.Get().(*deflater)
	defer deflaters.Put(d)
	var scratch []byte
	for _, o := range objs {
		if scratch, err = db.copyEntry(w, d, scratch, o); err != nil {
			w.abort()
			return published{}, err
		}
	}
	return w.finish()
}

func inAny(packs []*pack, h *plumbing.Hash) bool {
	for _, p := range packs {
		if p.idx.find(h) >= 0 {
			return true
		}
	}
	return false
}

// copyEntry appends object o to w: a whole object's entry is copied raw
// (its CRC checked against the index), a delta is resolved and recompressed.
func (db *DB) copyEntry(w *packWriter, d *deflater, scratch []byte, o rollObj) ([]byte, error) {
	raw, isDelta, err := o.p.rawEntry(o.off, o.crc)
	if err != nil {
		return scratch, err
	}
	if !isDelta {
		w.add(o.h, raw, o.crc)
		return scratch, nil
	}
	t, data, err := unpack(o.p, o.off, db.cache, db.read, 0)
	if err != nil {
		return scratch, err
	}
	return w.addObject(d, scratch, o.h, t, data), nil
}

// rawEntry returns the raw bytes of the entry at off and whether it is a
// delta. For whole objects the bytes are checked against crc.
func (p *pack) rawEntry(off uint64, crc uint32) ([]byte, bool, error) {
	h, err := p.header(off)
	if err != nil {
		return nil, false, err
	}
	if !isBaseType(h.typ) {
		return nil, true, nil
	}
	end, ok := p.entryEnd(off)
	if !ok || end <= h.dataOff {
		return nil, false, corruptf(p.base+".pack", int64(off), "cannot delimit entry")
	}
	raw := p.data[off:end]
	if crc32.ChecksumIEEE(raw) != crc {
		return nil, false, corruptf(p.base+".pack", int64(off), "entry CRC mismatch")
	}
	return raw, false, nil
}

// retirePacks makes the new pack current and deletes the rolled-up ones
// (index first, as git does, so a pack is invisible before it is gone),
// under the packs lock so that no writer adopts one of them meanwhile.
func (db *DB) retirePacks(pub published, roll []*pack) error {
	newBase := pub.base
	if newBase != "" {
		if err := db.addPack(pub); err != nil {
			return err
		}
	}
	unlock, err := db.lockPacks()
	if err != nil {
		return err
	}
	gone := map[string]bool{}
	for _, p := range roll {
		if p.base == newBase {
			continue
		}
		gone[p.base] = true
		for _, ext := range []string{".idx", ".pack", ".rev", ".bitmap", ".mtimes"} {
			db.fs.Remove(p.base + ext)
		}
	}
	// A multi-pack-index naming deleted packs would mislead git; git's own
	// repack drops it the same way.
	db.fs.Remove(filepath.Join(db.packDir, "multi-pack-index"))
	unlock()
	if db.durable() {
		if err := db.syncDir(db.packDir); err != nil {
			return err
		}
	}
	db.dropPacks(gone)
	return nil
}
