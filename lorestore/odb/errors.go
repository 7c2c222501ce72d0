// Errors returned by package odb.

package odb

import (
	"errors"
	"fmt"
)

var (
	// ErrNotFound is returned (wrapped, with the object name) when an object
	// is neither in any pack nor loose, even after a rescan of objects/pack.
	ErrNotFound = errors.New("odb: object not found")
	// ErrClosed is returned by operations on a closed DB.
	ErrClosed = errors.New("odb: database is closed")
	// ErrCorrupt matches (via errors.Is) every *CorruptError.
	ErrCorrupt = errors.New("odb: corrupt data")
	// ErrThinPack is returned by IngestPack when a delta's base object is
	// not in the pack itself (a thin pack); such packs are not accepted.
	ErrThinPack = errors.New("odb: pack is thin: a delta base is missing from the pack")
)

// CorruptError reports malformed data in a pack, index or loose object.
type CorruptError struct {
	File   string // path of the offending file (may be empty for streams)
	Offset int64  // byte offset of the problem, or -1 when unknown
	Reason string
}

func (e *CorruptError) Error() string {
	if e.Offset >= 0 {
		return fmt.Sprintf("odb: corrupt %s at offset %d: %s", e.File, e.Offset, e.Reason)
	}
	return fmt.Sprintf("odb: corrupt %s: %s", e.File, e.Reason)
}

// Is makes errors.Is(err, ErrCorrupt) true for a *CorruptError.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

func corruptf(file string, off int64, format string, args ...any) error {
	return &CorruptError{File: file, Offset: off, Reason: fmt.Sprintf(format, args...)}
}

func notFound(h [20]byte) error {
	return fmt.Errorf("%w: %x", ErrNotFound, h[:])
}
