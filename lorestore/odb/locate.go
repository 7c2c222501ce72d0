// Reading in pack order: a View pins the current packs so that a long
// read can find where each object lies first, sort by that, and then read
// the packs front to back instead of in the random order of object names.

package odb

import (
	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sys/unix"
)

// A Loc is where a packed object's entry starts in the packs of one View:
// the pack's place in the view in the top 16 bits, the entry's offset in
// the rest. Locs compare as their View reads them: by pack, then offset.
type Loc uint64

const (
	locOffBits = 48
	locMaxOff  = 1<<locOffBits - 1
	locMaxPack = 1<<(64-locOffBits) - 1
)

// Pack is the place of the loc's pack in its View (0, 1, ...).
func (l Loc) Pack() int { return int(l >> locOffBits) }

// Offset is where the loc's entry starts in its pack.
func (l Loc) Offset() uint64 { return uint64(l) & locMaxOff }

// A View holds the packs current when it was taken mapped until Close, so
// that the Locs it hands out stay readable even if the packs are rolled up
// meanwhile (the files go; the mappings stay). It is safe for concurrent
// use.
type View struct {
	db *DB
	s  *packSet
}

// View pins the current packs. Close it when done.
func (db *DB) View() (*View, error) {
	s, err := db.acquire()
	if err != nil {
		return nil, err
	}
	return &View{db: db, s: s}, nil
}

// Close lets the packs go.
func (v *View) Close() { v.s.release() }

// Packs is how many packs the view holds.
func (v *View) Packs() int { return len(v.s.packs) }

// PackSize is the size in bytes of the view's pack i.
func (v *View) PackSize(i int) int64 { return int64(len(v.s.packs[i].data)) }

// Locate finds the pack entry Read would read h from. ok is false when h
// is not packed (it may be loose), or when the view cannot express where
// it lies: read such an object with DB.Read.
func (v *View) Locate(h plumbing.Hash) (Loc, bool) {
	if len(v.s.packs) > locMaxPack+1 {
		return 0, false
	}
	for i, p := range v.s.packs {
		if k := p.idx.find(&h); k >= 0 {
			off, ok := p.idx.offset(k)
			if !ok || off >= locMaxOff {
				return 0, false // DB.Read reports or reads it
			}
			return Loc(uint64(i)<<locOffBits | off), true
		}
	}
	return 0, false
}

// ReadAt returns the type and content of the object at l, found by
// Locate: what DB.Read returns for it, errors included, without looking
// its name up again.
func (v *View) ReadAt(l Loc) (plumbing.ObjectType, []byte, error) {
	return unpack(v.s.packs[l.Pack()], l.Offset(), v.db.cache, v.db.read, 0)
}

// ReleasePackPages drops the view's pack mappings' pages from the
// process's resident set, as DB.ReleasePackPages does; the indexes' too
// when indexes is set (a read that has located every object no longer
// needs them).
func (v *View) ReleasePackPages(indexes bool) {
	for _, p := range v.s.packs {
		p.releasePages(indexes)
	}
}

// ReleaseBetween drops the pages of the view's packs from the page that
// holds from up to the page that holds to (excluded), every pack between
// included, from the process's resident set. A read in pack order calls
// it with the span it has passed since it last did, giving that back and
// keeping what it is about to read.
func (v *View) ReleaseBetween(from, to Loc) {
	page := uint64(unix.Getpagesize())
	for i := from.Pack(); i <= to.Pack() && i < len(v.s.packs); i++ {
		p := v.s.packs[i]
		if p.heap || len(p.data) == 0 {
			continue // held in memory, not mapped: nothing to give back
		}
		start, end := uint64(0), uint64(len(p.data))
		if i == from.Pack() {
			start = min(end, from.Offset()) &^ (page - 1) // the mapping starts on a page
		}
		if i == to.Pack() {
			end = min(end, to.Offset())
		}
		end &^= page - 1
		if start < end {
			unix.Madvise(p.data[start:end], unix.MADV_DONTNEED) // advice: an error changes nothing
		}
	}
}
