// Mapping a world file: its bytes are read in place, not copied onto the
// heap, and given back to the system as soon as the open is done with
// them. The entries' decoder copies what it keeps; a compiled section's
// snapshot is loaded aliased (its columns used in place, DL-0394) when
// the mapping may be kept for the process's life (keepMapping), and
// copied otherwise.

package author

import (
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapWorldFile maps path read-only. Files are replaced by rename, never
// written in place, so the mapping stays whole whatever writers do. (A
// file truncated in place under the process would make a read of a
// mapped page past its new end fault: nothing here does that, and a
// person who does it to a running server's store gets a crash, not
// wrong answers.)
func mapWorldFile(path string) ([]byte, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	if size <= 0 || int64(int(size)) != size {
		return []byte{}, func() {}, nil // refused by the header check
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() { unix.Munmap(data) }, nil
}

// releaseMapped gives back the pages of b, a part of a mapping, that lie
// wholly inside it: the process's resident size drops at once, and a
// later read of them maps them again from the page cache (the file is
// unchanged). An open releases each part of the file it is done with, so
// that a file of a gigabyte is never resident whole beside the world
// built from it.
func releaseMapped(b []byte) {
	if len(b) == 0 {
		return
	}
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(&b[0]))
	lo, hi := (start+page-1)&^(page-1), (start+uintptr(len(b)))&^(page-1)
	if hi <= lo {
		return
	}
	unix.Madvise(b[lo-start:hi-start], unix.MADV_DONTNEED)
}

// The budget of kept mappings. A kept mapping is never unmapped, since
// the world and every version staged from it may point into it, so it
// holds its address space and, once its file is replaced or evicted, the
// file's disk space, until the process exits. Its resident pages are
// another matter: they are given back after the load (releaseMapped) and
// mapped again from the page cache as they are read, so they cost what a
// session touches. Address space is plentiful (128 TiB); the disk held
// by replaced files is what must stay bounded. A command opens one or
// two files; a server opens one a scope it is asked for, and derives
// later heads from the worlds it holds rather than from files, so
// sixteen files cover the usual life of a process, and 64 GiB caps the
// disk they can hold at sixteen files of 4 GiB (a world of 10M objects
// is a file of about 1.25 GB). Past either bound a snapshot is copied,
// as before, and its file unmapped.
const (
	maxKeptMappings = 16
	maxKeptBytes    = 64 << 30
)

// kept counts the mappings kept for the process's life, and their bytes.
var kept struct {
	mu         sync.Mutex
	files      int
	bytes      int64
	limit      int   // maxKeptMappings; tests change it
	limitBytes int64 // maxKeptBytes; tests change it
}

func init() { kept.limit, kept.limitBytes = maxKeptMappings, maxKeptBytes }

// keepMapping reserves, within the budget, the keeping of a mapping of
// size bytes for the process's life, and reports whether it did. The
// caller keeps the mapping, or gives the reservation back (unkeepMapping)
// and unmaps it.
func keepMapping(size int) bool {
	kept.mu.Lock()
	defer kept.mu.Unlock()
	if kept.files+1 > kept.limit || kept.bytes+int64(size) > kept.limitBytes {
		return false
	}
	kept.files++
	kept.bytes += int64(size)
	return true
}

// unkeepMapping gives back a reservation of keepMapping whose mapping
// ended up unused (the world was not restored from it): it is unmapped.
func unkeepMapping(size int) {
	kept.mu.Lock()
	kept.files--
	kept.bytes -= int64(size)
	kept.mu.Unlock()
}

// keptMappings reports the mappings kept and their bytes.
func keptMappings() (files int, bytes int64) {
	kept.mu.Lock()
	defer kept.mu.Unlock()
	return kept.files, kept.bytes
}
