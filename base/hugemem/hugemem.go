// Package hugemem makes the large slices that opening a big world fills at
// once, and asks the kernel to back them with huge pages (DL-0386).
//
// Each first touch of a 4 KiB page of anonymous memory is a page fault,
// and on the virtual machines deloreis is served from a fault costs about
// 10 µs: filling a gigabyte of fresh heap cost 2.7 s in faults alone, and
// 1.5 s (first use) to 0.06 s (reused) when the same gigabyte was backed
// by 2 MiB pages. Go's runtime does not ask for huge pages for its heap,
// and the system's transparent-huge-page setting is usually "madvise", so
// the slices worth it ask themselves: a slice made here is advised as
// MADV_HUGEPAGE and backed as soon as it is made (memory the runtime
// takes fresh from the system for a large slice is untouched until
// then), or, made by MakeUnbacked, backed part by part by the goroutines
// that fill it (Back), and AdviseHeap advises heap the runtime places later
// allocations in. The advice
// changes nothing but how the memory is backed; where it is refused or
// unknown, the slice is an ordinary one.
package hugemem

import (
	"runtime"
	"runtime/debug"
	"unsafe"
)

// minBytes is the least size worth advising: below it no 2 MiB page fits
// well inside the slice.
const minBytes = 4 << 20

// hugePage is the size of a transparent huge page on amd64 and arm64.
const hugePage = 2 << 20

// Make returns make([]T, n); when it is large, its whole huge pages are
// advised for huge pages and backed at once (DL-0388).
func Make[T any](n int) []T { return makeAdvised[T](n, advise) }

// MakeUnbacked returns make([]T, n); when it is large, its whole huge
// pages are advised for huge pages but not backed: its user backs each
// part (Back) before it writes there, on whichever goroutines write it,
// so that the kernel's zeroing of a large table is shared between cores
// instead of done by one before any of them starts.
func MakeUnbacked[T any](n int) []T { return makeAdvised[T](n, adviseOnly) }

// makeAdvised returns make([]T, n), calling f on its whole huge pages
// when it is large.
func makeAdvised[T any](n int, f func(unsafe.Pointer, uintptr)) []T {
	s := make([]T, n)
	if n == 0 {
		return s
	}
	if size := uintptr(n) * unsafe.Sizeof(s[0]); size >= minBytes {
		onInterior(unsafe.Pointer(unsafe.SliceData(s)), size, f)
	}
	return s
}

// Back has the kernel back the memory of s now (the whole small pages
// inside it), in one call, as Make does: a part of a slice made by
// MakeUnbacked, before it is written.
func Back[T any](s []T) {
	if len(s) == 0 {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(s))
	if lo, hi := within(uintptr(p), uintptr(len(s))*unsafe.Sizeof(s[0]), smallPage); hi > lo {
		populate(unsafe.Add(p, lo-uintptr(p)), hi-lo)
	}
}

// smallPage is the size of a base page.
const smallPage = 4 << 10

// onInterior calls f on the whole huge pages of the size bytes at p.
func onInterior(p unsafe.Pointer, size uintptr, f func(unsafe.Pointer, uintptr)) {
	if lo, hi := interior(uintptr(p), size); hi > lo {
		f(unsafe.Add(p, lo-uintptr(p)), hi-lo)
	}
}

// Grow returns s with its capacity doubled (at least 64), made by Make:
// for a table that grows by appending and is read at random (an interning
// table), whose every lookup would otherwise miss the TLB once it spans
// thousands of small pages.
func Grow[T any](s []T) []T {
	g := Make[T](max(2*cap(s), 64))
	return g[:copy(g, s)]
}

// interior is the part of [start, start+size) made of whole huge pages.
func interior(start, size uintptr) (lo, hi uintptr) { return within(start, size, hugePage) }

// within is the part of [start, start+size) made of whole pages of size
// page, a power of two.
func within(start, size, page uintptr) (lo, hi uintptr) {
	lo = (start + page - 1) &^ (page - 1)
	hi = (start + size) &^ (page - 1)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// AdviseHeap has the runtime map size bytes of heap now, advises them for
// huge pages and gives them back to the system untouched: the runtime
// reuses that mapping for the allocations that follow, which the kernel
// then backs with huge pages as they are first written (DL-0388). It
// costs a collection (of a small heap, called early) and about 7 ms a
// gigabyte; nothing is touched. Where the system does not overcommit
// memory (vm.overcommit_memory 2) it does nothing: the reservation would
// count against the commit limit.
func AdviseHeap(size int) {
	if size <= 0 || !overcommits() {
		return
	}
	reserve(size)
	// Collect it now, and return its pages as the runtime counts them,
	// so that the collector paces itself by what is live and the
	// runtime does not count the reservation as memory it holds.
	debug.FreeOSMemory()
}

// reserve allocates size bytes, advises their whole huge pages and drops
// them.
func reserve(size int) {
	s := make([]byte, size)
	onInterior(unsafe.Pointer(unsafe.SliceData(s)), uintptr(size), adviseOnly)
	runtime.KeepAlive(s)
}
