package hugemem

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// advise asks for huge pages over size bytes at p, whole huge pages.
func advise(p unsafe.Pointer, size uintptr) {
	unix.Madvise(unsafe.Slice((*byte)(p), size), unix.MADV_HUGEPAGE) // advice: an error changes nothing
}
