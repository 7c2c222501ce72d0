// Typed errors of the lorestore. Callers branch on them with errors.Is and
// errors.As; every refused call leaves refs and objects as they were.

package lorestore

import (
	"errors"
	"fmt"
)

var (
	// ErrReadOnly is returned by every write on a store opened pinned to a commit.
	ErrReadOnly = errors.New("lorestore: store is pinned to a commit and read-only")
	// ErrNoAuthor refuses a commit nobody signs (Options.RequireAuthor).
	ErrNoAuthor = errors.New("lorestore: author identity unknown: no commit is written without one")
	// ErrNotLorestore means the directory is not a git repository holding a lorestore.
	ErrNotLorestore = errors.New("lorestore: not a lorestore")
	// ErrExists means Init found a repository already there.
	ErrExists = errors.New("lorestore: a repository already exists there")
	// ErrBranchNotFound means a named branch does not exist.
	ErrBranchNotFound = errors.New("lorestore: branch not found")
	// ErrBranchExists means a branch to create is already there.
	ErrBranchExists = errors.New("lorestore: branch already exists")
	// ErrStale means the branch moved away from the commit the writer read.
	ErrStale = errors.New("lorestore: branch moved since it was read")
	// ErrUnrelated means two histories share no commit and will not be merged.
	ErrUnrelated = errors.New("lorestore: refusing to merge unrelated histories")
	// ErrNotFound means an object, scope or revision is not in the snapshot.
	ErrNotFound = errors.New("lorestore: not found")
	// ErrNonFastForward means a push would drop commits the remote has.
	ErrNonFastForward = errors.New("lorestore: non-fast-forward update")
)

// StaleError reports a compare-and-swap that lost: the branch is at Actual,
// the writer read Expected.
type StaleError struct {
	Branch   string
	Expected Hash
	Actual   Hash
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("lorestore: branch %s is at %s, not at %s as read; re-read and retry",
		e.Branch, short(e.Actual), short(e.Expected))
}

// Unwrap lets errors.Is(err, ErrStale) match.
func (e *StaleError) Unwrap() error { return ErrStale }

// MessageError reports a commit message that cannot be written.
type MessageError struct {
	Field  string
	Reason string
}

func (e *MessageError) Error() string {
	return fmt.Sprintf("lorestore: commit message %s %s", e.Field, e.Reason)
}

// ScopeError reports a scope name that is not an id.
type ScopeError struct {
	Scope string
}

func (e *ScopeError) Error() string {
	return fmt.Sprintf("lorestore: scope %q is not a valid scope name", e.Scope)
}

// RevisionError reports a revision that names no commit.
type RevisionError struct {
	Rev    string
	Reason string
}

func (e *RevisionError) Error() string {
	return fmt.Sprintf("lorestore: revision %q: %s", e.Rev, e.Reason)
}

// Unwrap lets errors.Is(err, ErrNotFound) match.
func (e *RevisionError) Unwrap() error { return ErrNotFound }

// CorruptError reports stored data that breaks the store's invariants: a
// blob whose bytes do not hash to its name, a file where the layout has none.
type CorruptError struct {
	Path   string
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("lorestore: corrupt store at %s: %s", e.Path, e.Reason)
}

// MergeError reports a merge refused because its result would break the
// store's invariants.
type MergeError struct {
	Path   string
	Reason string
}

func (e *MergeError) Error() string {
	return fmt.Sprintf("lorestore: merge refused at %s: %s", e.Path, e.Reason)
}

func short(h Hash) string {
	if h.IsZero() {
		return "(none)"
	}
	return h.String()[:12]
}
