// Opening packs: memory-mapping a .pack and its .idx, validating that they
// belong together, and reference counting so a mapping outlives its last
// reader even after the files are deleted.

package odb

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

const packHeaderLen = 12

// pack is one open packfile with its index. Its mappings stay valid while
// any packSet holding it is alive (sets counts those sets).
type pack struct {
	id      uint64 // unique per DB, keys the delta-base cache
	base    string // path without extension: <dir>/pack-<sha>
	idx     *idxFile
	idxMap  []byte
	data    []byte // whole .pack mapping
	heap    bool   // data and idxMap are in memory, not mappings: a pack this process wrote, or a small one (smallFile)
	count   int
	sets    atomic.Int32
	byHash  map[[20]byte]uint64 // REF_DELTA bases while ingesting (idx is nil)
	offOnce sync.Once
	offs    []uint64 // sorted entry offsets, built lazily for raw copies
	// verified: its index was hashed in full when opened (not taken on
	// the trust record's word).
	verified bool
}

// mapFile memory-maps path read-only and returns the mapping.
func mapFile(path string) ([]byte, error) {
	data, _, err := mapFileStat(path)
	return data, err
}

// mapFileStat memory-maps path read-only and returns the mapping and the
// file's stat, taken on the descriptor it mapped. The descriptor is a bare
// one, not an os.File: os.Open would try to add a regular file to the
// runtime's poller (five system calls wasted). Its errors read as
// os.Open's.
func mapFileStat(path string) ([]byte, unix.Stat_t, error) {
	var st unix.Stat_t
	fd, err := openRead(path)
	if err != nil {
		return nil, st, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, st, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	size := st.Size
	if size <= 0 || int64(int(size)) != size {
		return nil, st, corruptf(path, -1, "unusable file size %d", size)
	}
	data, err := unix.Mmap(fd, 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	return data, st, err
}

// openRead opens path read-only (close-on-exec), retrying when a signal
// interrupts the call, as os.Open does.
func openRead(path string) (int, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// smallFile is the size up to which openPack reads a pack and its index
// into memory rather than mapping them: for a file of a few pages a read
// is one system call, where a mapping costs one to set up, a page fault
// per page touched and an unmap (a TLB shootdown on every other processor
// running the process) at Close. A store keeps up to AutoPackLimit small
// packs, each commit's own, and a short command such as log -n 2 opens
// them all.
const smallFile = 32 << 10

// openPack maps base+".idx" and base+".pack" (or reads them, when both are
// small) and checks that they match.
// The index is hashed in full unless trust vouches for it (trust nil:
// always); a verified index is added to trust when its stamp is settled,
// or at once when own says this process wrote it. A missing file yields an
// error satisfying errors.Is(err, os.ErrNotExist).
func openPack(base string, id uint64, trust *trustRecord, own bool) (*pack, error) {
	now := nowNano()
	idxPath, packPath := base+".idx", base+".pack"
	idxFd, st, err := openStat(idxPath)
	if err != nil {
		return nil, err
	}
	defer unix.Close(idxFd)
	// The pack is opened now, to know its size, but an error of its own is
	// reported only after the index is read, as it was when the pack was
	// opened after it.
	packFd, packSt, packErr := openStat(packPath)
	if packErr == nil {
		defer unix.Close(packFd)
	}
	heap := packErr == nil && st.Size <= smallFile && packSt.Size <= smallFile
	idxMap, err := loadFile(idxFd, idxPath, st.Size, heap)
	if err != nil {
		return nil, err
	}
	release := func(b []byte) {
		if !heap {
			unix.Munmap(b)
		}
	}
	name := filepath.Base(idxPath)
	stamp := stampOf(&st, idxMap)
	trusted := trust.vouches(name, stamp)
	ix, err := parseIdx(idxPath, idxMap, !trusted)
	if err != nil {
		release(idxMap)
		return nil, err
	}
	if packErr != nil {
		release(idxMap)
		return nil, packErr
	}
	data, err := loadFile(packFd, packPath, packSt.Size, heap)
	if err != nil {
		release(idxMap)
		return nil, err
	}
	p := &pack{id: id, base: base, idx: ix, idxMap: idxMap, data: data, heap: heap, count: ix.n, verified: !trusted}
	if err := p.checkPack(ix.packChecksum()); err != nil {
		p.unmap()
		return nil, err
	}
	if !trusted && trust.keeps(stamp) && (own || !stamp.racy(now)) && unchanged(idxPath, stamp) {
		trust.add(name, stamp)
	}
	return p, nil
}

// openStat opens path read-only and stats the descriptor; its errors read
// as os.Open's.
func openStat(path string) (int, unix.Stat_t, error) {
	var st unix.Stat_t
	fd, err := openRead(path)
	if err != nil {
		return -1, st, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, st, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	return fd, st, nil
}

// loadFile returns the size bytes of the file open at fd: read into
// memory when heap is set, else memory-mapped read-only.
func loadFile(fd int, path string, size int64, heap bool) ([]byte, error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, corruptf(path, -1, "unusable file size %d", size)
	}
	if !heap {
		return unix.Mmap(fd, 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	}
	data := make([]byte, size)
	for off := 0; off < len(data); {
		n, err := unix.Pread(fd, data[off:], int64(off))
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		case n == 0:
			return nil, corruptf(path, -1, "unusable file size %d: it ends at %d", size, off)
		}
		off += n
	}
	return data, nil
}

// unchanged reports whether the file at path still has the stamp s (so
// nothing wrote to it while it was being hashed).
func unchanged(path string, s idxStamp) bool {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return false
	}
	now := stampOf(&st, nil)
	now.sum = s.sum
	return now == s
}

// checkPack validates the pack header and, when sum is non-nil, that the
// trailer equals sum (the checksum the index recorded).
func (p *pack) checkPack(sum []byte) error {
	path := p.base + ".pack"
	d := p.data
	if len(d) < packHeaderLen+hashLen {
		return corruptf(path, -1, "pack too short (%d bytes)", len(d))
	}
	if string(d[:4]) != "PACK" {
		return corruptf(path, 0, "bad pack signature")
	}
	if v := binary.BigEndian.Uint32(d[4:8]); v != 2 && v != 3 {
		return corruptf(path, 4, "unsupported pack version %d", v)
	}
	n := binary.BigEndian.Uint32(d[8:12])
	if p.idx != nil && int(n) != p.idx.n {
		return corruptf(path, 8, "pack holds %d objects, its index %d", n, p.idx.n)
	}
	if sum != nil && !bytes.Equal(d[len(d)-hashLen:], sum) {
		return corruptf(path, int64(len(d)-hashLen), "pack trailer does not match its index")
	}
	p.count = int(n)
	return nil
}

// unmap releases the mappings. Only called when no reader can use p.
func (p *pack) unmap() {
	if p.heap {
		p.data, p.idxMap = nil, nil
		return
	}
	if p.data != nil {
		unix.Munmap(p.data)
		p.data = nil
	}
	if p.idxMap != nil {
		unix.Munmap(p.idxMap)
		p.idxMap = nil
	}
}

// packFromMemory opens a pack this process has just written from the bytes
// it wrote, sparing the reopen and mapping of both files: a small commit
// then costs no more file operations than git's own would.
func packFromMemory(base string, id uint64, data, idx []byte) (*pack, error) {
	ix, err := parseIdx(base+".idx", idx, false)
	if err != nil {
		return nil, err
	}
	p := &pack{id: id, base: base, idx: ix, idxMap: idx, data: data, heap: true, count: ix.n}
	if err := p.checkPack(ix.packChecksum()); err != nil {
		return nil, err
	}
	return p, nil
}

// unref drops one packSet's hold on p, unmapping it after the last.
func (p *pack) unref() {
	if p.sets.Add(-1) == 0 {
		p.unmap()
	}
}

// entryEnd returns the offset just past the raw entry starting at off,
// using the sorted offsets of all entries (built once per pack).
func (p *pack) entryEnd(off uint64) (uint64, bool) {
	p.offOnce.Do(func() {
		offs := make([]uint64, 0, p.idx.n)
		for i := 0; i < p.idx.n; i++ {
			o, ok := p.idx.offset(i)
			if ok {
				offs = append(offs, o)
			}
		}
		slices.Sort(offs)
		p.offs = offs
	})
	i, found := slices.BinarySearch(p.offs, off)
	if !found {
		return 0, false
	}
	if i+1 < len(p.offs) {
		return p.offs[i+1], true
	}
	return uint64(len(p.data) - hashLen), true
}

// packSet is an immutable snapshot of the open packs, reference counted:
// one reference for being current, one per reader using it.
type packSet struct {
	refs  atomic.Int64
	packs []*pack // searched in this order: most objects first
}

func newPackSet(packs []*pack) *packSet {
	s := &packSet{packs: packs}
	slices.SortStableFunc(s.packs, func(a, b *pack) int { return b.count - a.count })
	for _, p := range packs {
		p.sets.Add(1)
	}
	s.refs.Store(1)
	return s
}

func (s *packSet) release() {
	if s.refs.Add(-1) == 0 {
		for _, p := range s.packs {
			p.unref()
		}
	}
}

// ReleasePages drops the pages of the pack and index mappings this process
// has touched from its resident set (MADV_DONTNEED): the files' pages stay
// in the kernel's page cache, and a later read faults them back in. A
// whole-scope read touches every page of a store's packs, which a process
// would otherwise keep counted as its own until it exits (2.2 GB for a
// 10M-object store, DL-0362). Readers running meanwhile are unaffected:
// the mappings are read-only and file-backed, so a dropped page reads the
// same when faulted in again.
func (db *DB) ReleasePages() { db.releasePages(true) }

// ReleasePackPages drops the pages of the pack mappings alone, keeping the
// indexes' resident: a long read calls it as it goes, since every object
// it reads is found through the indexes, which it would otherwise fault in
// again, page by page, after each release (DL-0375). It ends with
// ReleasePages.
func (db *DB) ReleasePackPages() { db.releasePages(false) }

func (db *DB) releasePages(indexes bool) {
	v, err := db.View() // holds every pack of the set mapped meanwhile
	if err != nil {
		return
	}
	defer v.Close()
	v.ReleasePackPages(indexes)
}

func (p *pack) releasePages(indexes bool) {
	if p.heap {
		return // held in memory, not mapped: nothing to give back
	}
	maps := [][]byte{p.data}
	if indexes {
		maps = append(maps, p.idxMap)
	}
	for _, m := range maps {
		if len(m) > 0 {
			unix.Madvise(m, unix.MADV_DONTNEED) // advice: an error changes nothing
		}
	}
}
