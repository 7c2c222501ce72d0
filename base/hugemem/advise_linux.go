package hugemem

import (
	"bytes"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// advise asks for huge pages over size bytes at p, whole huge pages, and
// has the kernel back them now, in one call: faulting them in one by one
// as they are first written costs far more (DL-0388). A kernel before
// 5.14 refuses MADV_POPULATE_WRITE, and the pages come at first write.
func advise(p unsafe.Pointer, size uintptr) {
	b := unsafe.Slice((*byte)(p), size)
	unix.Madvise(b, unix.MADV_HUGEPAGE)       // advice: an error changes nothing
	unix.Madvise(b, unix.MADV_POPULATE_WRITE) // likewise
}

// populate has the kernel back size bytes at p now (advice: an error
// changes nothing, and the pages then come at first write).
func populate(p unsafe.Pointer, size uintptr) {
	unix.Madvise(unsafe.Slice((*byte)(p), size), unix.MADV_POPULATE_WRITE)
}

// adviseOnly asks for huge pages over size bytes at p, without backing them.
func adviseOnly(p unsafe.Pointer, size uintptr) {
	unix.Madvise(unsafe.Slice((*byte)(p), size), unix.MADV_HUGEPAGE) // advice: an error changes nothing
}

// overcommits reports whether the system lets a process map more than it
// commits (vm.overcommit_memory 0 or 1).
func overcommits() bool {
	b, err := os.ReadFile("/proc/sys/vm/overcommit_memory")
	return err == nil && !bytes.Equal(bytes.TrimSpace(b), []byte("2"))
}
