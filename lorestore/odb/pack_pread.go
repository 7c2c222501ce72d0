// Reading packed objects with positioned reads of the pack files rather
// than through their mappings. On this project's machines a page of a
// mapping costs about 2 µs to fault in, and a read that gives the pages it
// has passed back, to keep the resident set small, faults them in again on
// its next pass: a 10M-object listing read in 40 sweeps of a 1.9 GB pack
// spent 30 s of CPU on faults and releases (DL-0396). A pread of the few
// hundred bytes an entry takes costs far less and maps nothing.

package odb

import (
	"bytes"
	"cmp"
	"os"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
)

// firstRead is how much of an entry a positioned read takes first: the
// header and the zlib stream of most lore objects (about 200 B packed).
const firstRead = 512

// PackFiles holds a View's pack files open for positioned reads. It is
// safe for concurrent use; Close it before the View.
type PackFiles struct {
	v     *View
	files []*os.File // by place in the view; nil: read through the mapping
}

// maxPackFiles is how many pack files OpenFiles opens at most, the
// largest first: a store whose packs are not rolled up must not run a
// server out of descriptors. (A variable: tests open fewer.)
var maxPackFiles = 64

// OpenFiles opens the view's pack files for ReadAt, the maxPackFiles
// largest. A pack whose file is not opened, is gone, or is not the file
// mapped (its size or trailer differs), is read through its mapping
// instead, as is a pack held in memory.
func (v *View) OpenFiles() *PackFiles {
	pf := &PackFiles{v: v, files: make([]*os.File, len(v.s.packs))}
	bySize := make([]int, len(v.s.packs))
	for i := range bySize {
		bySize[i] = i
	}
	slices.SortStableFunc(bySize, func(a, b int) int {
		return cmp.Compare(len(v.s.packs[b].data), len(v.s.packs[a].data))
	})
	for _, i := range bySize[:min(len(bySize), maxPackFiles)] {
		p := v.s.packs[i]
		if p.heap || len(p.data) < packHeaderLen+hashLen {
			continue
		}
		f, err := os.Open(p.base + ".pack")
		if err != nil {
			continue
		}
		if !sameFile(f, p.data) {
			f.Close()
			continue
		}
		pf.files[i] = f
	}
	return pf
}

// sameFile reports whether f holds what mapping does, as far as its size
// and trailer (the pack's checksum of everything before it) can tell.
func sameFile(f *os.File, mapping []byte) bool {
	st, err := f.Stat()
	if err != nil || st.Size() != int64(len(mapping)) {
		return false
	}
	var sum [hashLen]byte
	at := int64(len(mapping) - hashLen)
	if n, err := f.ReadAt(sum[:], at); n != hashLen || err != nil {
		return false
	}
	return bytes.Equal(sum[:], mapping[at:])
}

// Close closes the files.
func (pf *PackFiles) Close() {
	for _, f := range pf.files {
		if f != nil {
			f.Close()
		}
	}
	clear(pf.files)
}

// Mapped reports whether some pack of the view is read through its
// mapping.
func (pf *PackFiles) Mapped() bool {
	for i, f := range pf.files {
		if f == nil && !pf.v.s.packs[i].heap {
			return true
		}
	}
	return false
}

// ReadAt returns what View.ReadAt returns for l. An undeltified entry is
// read from the file into *scratch (grown as needed, for the caller to
// pass again); a delta, an entry of more than spanMax bytes, or one the
// read cannot make sense of, is read through the mapping, so that errors
// are View.ReadAt's own.
func (pf *PackFiles) ReadAt(l Loc, scratch *[]byte) (plumbing.ObjectType, []byte, error) {
	f, end, ok := pf.file(l)
	if !ok {
		return pf.v.ReadAt(l)
	}
	off := l.Offset()
	avail := end - off
	if got, ok := preadAt(f, scratch, off, min(avail, firstRead)); ok {
		if t, out, ok := entryIn(got, avail, nil); ok {
			return t, out, nil
		}
		if h, _, n, ok := decodeEntryHeader(got); ok && isBaseType(h.typ) && uint64(len(got)) < avail && h.size <= spanMax {
			// The stream runs past the first read: read as much as a
			// stored (uncompressed) stream of that size takes. A larger
			// entry is read through the mapping, which copies nothing:
			// its pages are faulted in once.
			if got, ok = preadAt(f, scratch, off, min(avail, uint64(n)+storedBound(h.size))); ok {
				if t, out, ok := entryIn(got, avail, nil); ok {
					return t, out, nil
				}
			}
		}
	}
	return pf.v.ReadAt(l)
}

// file returns the open file of l's pack and where its entries end, or
// false when l is read through the mapping.
func (pf *PackFiles) file(l Loc) (*os.File, uint64, bool) {
	i := l.Pack()
	if i >= len(pf.files) || pf.files[i] == nil {
		return nil, 0, false
	}
	end := uint64(len(pf.v.s.packs[i].data) - hashLen)
	off := l.Offset()
	return pf.files[i], end, off >= packHeaderLen && off < end
}

// entryIn inflates the undeltified entry at the start of got, of which
// the pack holds avail bytes from there on; false when got does not hold
// all of it, or it is a delta, or it does not inflate.
func entryIn(got []byte, avail uint64, a *Arena) (plumbing.ObjectType, []byte, bool) {
	t, size, n, ok := baseEntryHeader(got)
	if !ok {
		return 0, nil, false
	}
	out, _, err := inflateIn(got[n:], size, a)
	return t, out, err == nil
}

// baseEntryHeader is decodeEntryHeader for an undeltified entry, false for
// a delta: its type, inflated size and header length, returned in
// registers (the whole header, through memory, cost 2 s of a 10M-object
// read).
func baseEntryHeader(d []byte) (plumbing.ObjectType, uint64, int, bool) {
	t, size, p, ok := entryTypeSize(d)
	return t, size, p, ok && isBaseType(t) && p < len(d)
}

// spanGap and spanMax: ReadRun reads entries less than spanGap apart with
// one read, of at most about spanMax bytes. A read costs about as much as
// copying 20 KB on this project's machines.
const (
	spanGap = 16 << 10
	spanMax = 1 << 20
)

// ReadRun reads the entries at n locs, in pack order or nearly (out of
// order within a few KB), and hands each to put with what ReadAt returns
// for it. Entries close together are read with one positioned read into
// *scratch. The data of entries read so is taken from arena a when it is
// not nil: it is valid until a is reset.
func (pf *PackFiles) ReadRun(n int, loc func(k int) Loc, scratch *[]byte, a *Arena, put func(k int, t plumbing.ObjectType, data []byte, err error)) {
	var single []byte
	for k := 0; k < n; {
		l := loc(k)
		f, end, ok := pf.file(l)
		if !ok {
			t, data, err := pf.ReadAt(l, &single)
			put(k, t, data, err)
			k++
			continue
		}
		lo, hi := l.Offset(), l.Offset()
		j := k + 1
		for ; j < n; j++ {
			m := loc(j)
			if m.Pack() != l.Pack() || m.Offset() >= end {
				break
			}
			o := m.Offset()
			nlo, nhi := min(lo, o), max(hi, o)
			if o+spanGap < lo || o > hi+spanGap || nhi-nlo > spanMax {
				break
			}
			lo, hi = nlo, nhi
		}
		stop := min(end, hi+firstRead)
		chunk, ok := preadAt(f, scratch, lo, stop-lo)
		for ; k < j; k++ {
			l := loc(k)
			off := l.Offset()
			if ok && off >= lo {
				if t, out, ok := entryIn(chunk[off-lo:], end-off, a); ok {
					put(k, t, out, nil)
					continue
				}
			}
			t, data, err := pf.ReadAt(l, &single)
			put(k, t, data, err)
		}
	}
}

// preadAt reads n bytes at off of f into *scratch, growing it.
func preadAt(f *os.File, scratch *[]byte, off, n uint64) ([]byte, bool) {
	if uint64(cap(*scratch)) < n {
		*scratch = make([]byte, max(n, 2*uint64(cap(*scratch))))
	}
	b := (*scratch)[:n]
	got, err := f.ReadAt(b, int64(off))
	return b, err == nil && uint64(got) == n
}

// storedBound is the length of a zlib stream holding size bytes in stored
// blocks of 64 KiB, the most an encoder needs: 2 bytes of header, 5 per
// block and 4 of checksum.
func storedBound(size uint64) uint64 {
	return size + 5*(size/65535+1) + 6
}
