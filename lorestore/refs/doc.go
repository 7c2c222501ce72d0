// This file holds the package documentation.

// Package refs reads and compare-and-swap updates the refs of a bare git
// repository with git's own file protocol, so that deloreis processes and
// real git can work on the same repository at the same time.
//
// A Store reads a ref from its loose file (<gitdir>/refs/...) and falls back
// to <gitdir>/packed-refs. It writes a ref the way git does: it creates
// "<gitdir>/<name>.lock" exclusively, checks the current value against the
// caller's expected one while holding that lock, writes the new value into
// the lock file and renames it over the ref. A lock file that real git holds
// is honoured (Update waits up to Options.LockTimeout and then returns a
// *LockedError); readers never see a ref missing or half written, because
// the ref file is only ever replaced by rename. Deletion also rewrites
// packed-refs under "packed-refs.lock". See lock.go for how a lock left
// behind by a killed deloreis process is recovered without ever breaking a
// lock real git holds.
//
// It is for plain refs (refs/heads/..., refs/tags/..., any refs/...) and the
// symbolic HEAD of a bare repository. It is not a general git ref backend:
// it writes no reflogs, runs no hooks, does not peel tags, handles no
// multi-ref transactions, no reftable repositories, no worktrees and no
// SHA-256 repositories, and it works on Unix only (it relies on flock(2),
// link(2) and rename(2)). Objects are not its business: it stores whatever
// hash it is given without checking that the object exists.
//
// All errors are prefixed "refs: " and classify with errors.Is against the
// sentinels (ErrNotFound, ErrStale, ErrLocked, ErrInvalidName, ErrConflict,
// ErrMalformed, ErrSymbolic, ErrDetached, ErrZeroHash); the typed errors
// *NameError, *StaleError, *LockedError and *ConflictError carry details.
package refs
