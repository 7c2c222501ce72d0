// Mapping a world file: its bytes are read in place, not copied onto the
// heap, and given back to the system as soon as the open is done with
// them (the decoders copy what they keep).

package author

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapWorldFile maps path read-only. Files are replaced by rename, never
// written in place, so the mapping stays whole whatever writers do.
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
