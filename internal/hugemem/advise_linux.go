package hugemem

import (
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
