// This file holds the errors of package refs: the sentinels that callers test
// with errors.Is, and the typed errors (*NameError, *StaleError,
// *LockedError, *ConflictError) that carry the details.

package refs

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
)

// Sentinel errors. Every error this package returns for one of these
// conditions satisfies errors.Is with the matching sentinel.
var (
	// ErrNotFound: the ref (or HEAD) does not exist, loose or packed.
	ErrNotFound = errors.New("refs: ref not found")
	// ErrStale: a compare-and-swap found a value other than the expected one.
	ErrStale = errors.New("refs: stale ref")
	// ErrLocked: another process held the lock past Options.LockTimeout.
	ErrLocked = errors.New("refs: ref locked")
	// ErrInvalidName: a ref or branch name failed CheckName or BranchRef.
	ErrInvalidName = errors.New("refs: invalid ref name")
	// ErrConflict: the name clashes with an existing ref as a directory or a
	// file (refs/heads/a against refs/heads/a/b).
	ErrConflict = errors.New("refs: ref name conflict")
	// ErrMalformed: a ref file, HEAD or packed-refs does not parse.
	ErrMalformed = errors.New("refs: malformed ref")
	// ErrSymbolic: Update or Delete was asked to overwrite a symbolic ref.
	ErrSymbolic = errors.New("refs: ref is symbolic")
	// ErrDetached: HEAD holds a hash, not "ref: <target>".
	ErrDetached = errors.New("refs: head is detached")
	// ErrZeroHash: a new hash (Update) or expected hash (Delete) is zero.
	ErrZeroHash = errors.New("refs: zero hash")
)

// NameError reports a ref or branch name that is not acceptable.
type NameError struct {
	Name   string // the name as given
	Reason string // which rule it breaks
}

func (e *NameError) Error() string {
	return fmt.Sprintf("refs: invalid ref name %q: %s", e.Name, e.Reason)
}

// Is makes errors.Is(err, ErrInvalidName) true.
func (e *NameError) Is(target error) bool { return target == ErrInvalidName }

// StaleError reports a compare-and-swap whose expected value did not match.
// Nothing was changed. A zero Expected means "expected absent"; a zero Actual
// means the ref does not exist.
type StaleError struct {
	Name     string
	Expected plumbing.Hash
	Actual   plumbing.Hash
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("refs: stale %s: expected %s, found %s",
		e.Name, describe(e.Expected), describe(e.Actual))
}

// Is makes errors.Is(err, ErrStale) true.
func (e *StaleError) Is(target error) bool { return target == ErrStale }

func describe(h plumbing.Hash) string {
	if h.IsZero() {
		return "no ref"
	}
	return h.String()
}

// LockedError reports a lock that another process held for longer than
// Options.LockTimeout. LockPath is the lock file (such as
// "<gitdir>/refs/heads/main.lock", possibly held by real git) or the
// deloreis sidecar lock file when another deloreis process was mid-update.
// Nothing was changed.
type LockedError struct {
	Name     string
	LockPath string
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("refs: %s is locked by another process (%s)", e.Name, e.LockPath)
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// ConflictError reports a directory/file clash: Name cannot be created
// because Existing is a ref that is a path prefix of it, or a ref under it.
// Nothing was changed.
type ConflictError struct {
	Name     string
	Existing string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("refs: cannot create %s: %s exists", e.Name, e.Existing)
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }
