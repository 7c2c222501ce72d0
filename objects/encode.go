// This file holds the shared machinery of the hand-written encoders: an
// appending encoder with a sticky error, canonical sets, and the pooled
// buffers behind ID and Canonical.

package objects

import (
	"slices"
	"sync"

	"github.com/deloreis/deloreis/jcs"
)

// enc appends canonical JSON. Members are written by the caller in sorted
// key order; all keys are ASCII, so byte order is RFC 8785's UTF-16 order.
type enc struct {
	b   []byte
	err error
}

// raw appends literal JSON text.
func (e *enc) raw(s string) { e.b = append(e.b, s...) }

// str appends s as a canonical JSON string.
func (e *enc) str(s string) {
	b, err := jcs.AppendString(e.b, s)
	if err != nil && e.err == nil {
		e.err = err
	}
	e.b = b
}

// objectID appends an object ID as a JSON string of 64 hex digits.
func (e *enc) objectID(id ID) {
	e.b = append(e.b, '"')
	e.b = id.appendHex(e.b)
	e.b = append(e.b, '"')
}

// strs appends a JSON array of strings in the given order.
func (e *enc) strs(ss []string) {
	e.b = append(e.b, '[')
	for i, s := range ss {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.str(s)
	}
	e.b = append(e.b, ']')
}

// strSet appends a set of strings: sorted by bytes, without repeats. The
// caller's slice is not modified.
func (e *enc) strSet(ss []string) {
	if !sortedUnique(ss) {
		ss = normalStrings(ss)
	}
	e.strs(ss)
}

// idSet appends a set of object IDs, sorted and without repeats. The
// caller's slice is not modified.
func (e *enc) idSet(ids []ID) {
	if !sortedUniqueIDs(ids) {
		ids = normalIDs(ids)
	}
	e.b = append(e.b, '[')
	for i, id := range ids {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.objectID(id)
	}
	e.b = append(e.b, ']')
}

// done returns the appended bytes, or dst and the first error.
func (e *enc) done(dst []byte) ([]byte, error) {
	if e.err != nil {
		return dst, e.err
	}
	return e.b, nil
}

// sortedUnique reports whether ss is strictly increasing.
func sortedUnique(ss []string) bool {
	for i := 1; i < len(ss); i++ {
		if ss[i-1] >= ss[i] {
			return false
		}
	}
	return true
}

// normalStrings returns a sorted copy of ss without repeats.
func normalStrings(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return slices.Compact(out)
}

// sortedUniqueIDs reports whether ids is strictly increasing.
func sortedUniqueIDs(ids []ID) bool {
	for i := 1; i < len(ids); i++ {
		if compareIDs(ids[i-1], ids[i]) >= 0 {
			return false
		}
	}
	return true
}

// normalIDs returns a sorted copy of ids without repeats.
func normalIDs(ids []ID) []ID {
	out := slices.Clone(ids)
	slices.SortFunc(out, compareIDs)
	return slices.Compact(out)
}

// compareIDs orders IDs by their bytes, which is also the order of their hex
// forms.
func compareIDs(a, b ID) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// maxPooled is the largest buffer kept for reuse.
const maxPooled = 256 << 10

// bufPool holds encoding buffers for ID and Canonical.
var bufPool = sync.Pool{New: func() any {
	b := make([]byte, 0, 512)
	return &b
}}

// getBuf takes a buffer from the pool.
func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

// putBuf returns a buffer to the pool unless it grew too large.
func putBuf(bp *[]byte) {
	if cap(*bp) <= maxPooled {
		*bp = (*bp)[:0]
		bufPool.Put(bp)
	}
}

// idOf encodes o into a pooled buffer and hashes the bytes.
func idOf(o Object) (ID, error) {
	bp := getBuf()
	b, err := o.AppendCanonical((*bp)[:0])
	*bp = b
	var id ID
	if err == nil {
		id = idFromDigest(jcs.Sum(b))
	}
	putBuf(bp)
	return id, err
}
