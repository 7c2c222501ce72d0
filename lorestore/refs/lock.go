// This file holds the locking protocol: git's "<name>.lock" files, the
// deloreis sidecar flock that serializes deloreis writers, and the recovery
// of lock files left behind by a deloreis writer that died.
//
// # Ruling: stale locks
//
// Git's protocol is an exclusive "<name>.lock" file that the writer renames
// over the ref. A writer killed between creating and renaming the lock
// leaves it behind for good; git then refuses to touch the ref and tells
// the user to remove the file. Deloreis recovers from its own dead writers
// automatically and never breaks a lock that someone else (real git, a
// user) holds. It does so as follows.
//
//  1. Every deloreis writer (Update, Delete, SetHead) first takes an
//     exclusive flock(2) on the persistent sidecar file
//     <gitdir>/deloreis-refs.lock, and keeps it until its lock files are
//     renamed or removed. The kernel drops a flock when its process dies,
//     so holding the flock proves that no other live deloreis process is
//     between creating and removing a lock file. (After locking, the
//     writer checks that the file it locked is still the one at that path,
//     so a sidecar deleted by hand cannot admit two holders.) Within a
//     process a channel gate per git directory queues the goroutines, so
//     that only one of them waits in flock.
//
//  2. The sidecar's content is the writer's record. Before creating any
//     lock file the writer writes one line per lock it is about to take:
//     "<token> <lock>", where <token> is a fresh, uniquely named file in
//     <gitdir> ("deloreis-refs.token.<pid>.<random>.<i>") and <lock> the
//     lock path relative to <gitdir>.
//
//  3. It then creates the token with O_CREAT|O_EXCL and takes the lock by
//     hard-linking the token to "<name>.lock" with link(2), which, like
//     O_CREAT|O_EXCL, fails if the lock exists. The lock file is thus the
//     token's inode. The content ("<hex>\n") is written through the token,
//     and the lock is renamed over the ref.
//
//  4. When it is done (renamed, or lock removed on a stale compare or an
//     error), it removes the token and only then truncates the record. If
//     removing a lock fails, its token and the record stay, for recovery.
//
//  5. Every writer, right after taking the flock, reads the record. A
//     non-empty one means its holder died mid-update. For each line whose
//     token still exists: if the lock path exists and is the same file
//     (device and inode) as the token, that lock was made by the dead
//     writer, and it is removed; then the token is removed. Lines whose
//     token is gone are skipped (the writer died before creating it, so no
//     lock of its can exist, or after the lock was renamed or removed).
//     Then the record is truncated.
//
// Why this never removes someone else's lock: a lock file is removed only
// if it is the very inode of a token that still exists. As the token still
// exists, its inode cannot have been freed and reused by a lock real git
// made later, and only a deloreis writer links a token to a lock path. As
// we hold the flock, that writer is dead. A lock that matches no recorded
// token is foreign: the writer drops the flock, waits with backoff and
// retries until Options.LockTimeout, then returns *LockedError.
//
// This is preferred to creating the lock with O_EXCL and recording its
// inode afterwards: that leaves a window (killed between the two) in which
// the lock is unrecorded and must be told from a later git lock by
// timestamps, and a recorded inode can be freed and reused by a later git
// lock. Here the identity (the token) is recorded before the lock exists
// and pins the inode while it matters.
//
// Limits. The record is not fsynced, so a lock orphaned by a machine crash
// (not a process crash) is treated as foreign and must be removed by hand,
// as with git. The token and the lock must be on one file system
// (link(2)); a <gitdir>/refs on another mount gives an error. Recovery
// checks and removes a lock in two steps, so a user who removes a dead
// writer's lock by hand at the very instant a new git writer takes it
// could lose the new lock; nothing else can interleave there.

package refs

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/deloreis/deloreis/lorestore/fsys"
	"golang.org/x/sys/unix"
)

const (
	sidecarName = "deloreis-refs.lock"
	tokenPrefix = "deloreis-refs.token."
	packedName  = "packed-refs"

	// Backoff while waiting for a foreign lock file, as git's own
	// lock_file_timeout does: start small, double, cap.
	firstPause = time.Millisecond
	maxPause   = 50 * time.Millisecond
)

// testHook, when set by tests, is called at each stage of taking locks
// ("recorded", "token", "locked", "renamed") with the path concerned.
var testHook func(stage, path string)

func hook(stage, path string) {
	if testHook != nil {
		testHook(stage, path)
	}
}

// gates holds one gate per git directory for this process (see processGate).
var gates sync.Map // string → chan struct{}

// processGate returns this process's gate for gitDir: a one-slot channel
// that goroutines of this process hold while they hold the sidecar flock.
func processGate(gitDir string) chan struct{} {
	g, _ := gates.LoadOrStore(gitDir, make(chan struct{}, 1))
	return g.(chan struct{})
}

// txn is one critical section: the sidecar flock, and the lock files taken
// under it.
type txn struct {
	s        *Store
	side     *os.File
	held     []*heldLock
	recorded bool // the sidecar holds our record
}

// heldLock is one lock file of a txn.
type heldLock struct {
	ref       string // the ref name the lock guards, "" for HEAD and packed-refs
	rel       string // lock path relative to gitDir, with '/'
	path      string // absolute lock path
	tokenPath string
	token     *os.File // open while the token exists
	linked    bool     // path is our link of token
	renamed   bool     // path has been renamed into place
}

// withLocks runs body holding the lock files rels (relative to gitDir, in
// that order) for the operation on name. A lock file that someone else
// holds is waited for until LockTimeout, with the flock released meanwhile.
func (s *Store) withLocks(name string, refNames, rels []string, body func(*txn) error) error {
	deadline := time.Now().Add(s.opts.LockTimeout)
	pause := firstPause
	for {
		t, err := s.begin(name, deadline)
		if err != nil {
			return err
		}
		busy, err := t.lockAll(refNames, rels)
		if err == nil && busy == "" {
			err = body(t)
		}
		if endErr := t.end(); err == nil {
			err = endErr
		}
		if busy == "" || err != nil {
			return err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return &LockedError{Name: name, LockPath: busy}
		}
		time.Sleep(min(jitter(pause), left))
		pause = min(2*pause, maxPause)
	}
}

// jitter returns a duration between d/2 and 3d/2.
func jitter(d time.Duration) time.Duration {
	var b [1]byte
	rand.Read(b[:])
	return d/2 + d*time.Duration(b[0])/256
}

// begin passes this process's gate, takes the sidecar flock and recovers
// what a dead holder left.
func (s *Store) begin(name string, deadline time.Time) (*txn, error) {
	sidecar := s.path(sidecarName)
	select {
	case s.sem <- struct{}{}:
	default:
		timer := time.NewTimer(time.Until(deadline))
		defer timer.Stop()
		select {
		case s.sem <- struct{}{}:
		case <-timer.C:
			return nil, &LockedError{Name: name, LockPath: sidecar}
		}
	}
	f, err := s.lockSidecar(sidecar, deadline)
	if err != nil {
		<-s.sem
		if err == errTimeout {
			return nil, &LockedError{Name: name, LockPath: sidecar}
		}
		return nil, err
	}
	t := &txn{s: s, side: f}
	if err := t.recover(); err != nil {
		t.release()
		return nil, err
	}
	s.sweepDeadTokens()
	return t, nil
}

var errTimeout = errors.New("refs: timeout")

// lockSidecar opens the sidecar file at path and flocks it, retrying if the
// file it locked is no longer the one at path.
func (s *Store) lockSidecar(path string, deadline time.Time) (*os.File, error) {
	for {
		f, err := s.fs.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
		if err != nil {
			return nil, fmt.Errorf("refs: open %s: %w", path, err)
		}
		if err := flockUntil(f, deadline); err != nil {
			return nil, err
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return f, nil
		}
		unlockClose(f)
		if err1 != nil {
			return nil, fmt.Errorf("refs: stat %s: %w", path, err1)
		}
		if err2 != nil && !errors.Is(err2, fs.ErrNotExist) {
			return nil, fmt.Errorf("refs: stat %s: %w", path, err2)
		}
	}
}

// flockUntil takes an exclusive flock on f, waiting until deadline. On
// failure f is closed (possibly later, by the helper that waits in flock),
// and a timeout gives errTimeout.
func flockUntil(f *os.File, deadline time.Time) error {
	fd := int(f.Fd())
	err := flock(fd, unix.LOCK_EX|unix.LOCK_NB)
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.EWOULDBLOCK) {
		f.Close()
		return fmt.Errorf("refs: flock %s: %w", f.Name(), err)
	}
	wait := time.Until(deadline)
	if wait <= 0 {
		f.Close()
		return errTimeout
	}
	// A blocking flock cannot be cancelled, so a helper goroutine waits in
	// it. If we give up first, the helper owns f and closes it, which
	// releases the lock should it get it after all.
	got := make(chan error)
	abandon := make(chan struct{})
	go func() {
		err := flock(fd, unix.LOCK_EX)
		select {
		case got <- err:
		case <-abandon:
			if err == nil {
				unlockClose(f)
			} else {
				f.Close()
			}
		}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case err := <-got:
		if err != nil {
			f.Close()
			return fmt.Errorf("refs: flock %s: %w", f.Name(), err)
		}
		return nil
	case <-timer.C:
		close(abandon)
		return errTimeout
	}
}

func flock(fd, how int) error {
	for {
		err := unix.Flock(fd, how)
		if err != unix.EINTR {
			return err
		}
	}
}

func unlockClose(f *os.File) {
	flock(int(f.Fd()), unix.LOCK_UN)
	f.Close()
}

// release drops the flock and the gate.
func (t *txn) release() {
	unlockClose(t.side)
	<-t.s.sem
}

// recover undoes what a dead holder of the flock left: see the ruling at
// the top of this file.
func (t *txn) recover() error {
	record, err := io.ReadAll(io.NewSectionReader(t.side, 0, 1<<20))
	if err != nil {
		return fmt.Errorf("refs: read %s: %w", t.side.Name(), err)
	}
	if len(record) == 0 {
		return nil
	}
	for _, line := range strings.Split(string(record), "\n") {
		token, lock, ok := strings.Cut(line, " ")
		if !ok || !validToken(token) || !validLock(lock) {
			continue // not a line we wrote: act on nothing it names
		}
		tokenPath := t.s.path(token)
		ti, err := os.Lstat(tokenPath)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("refs: recover: %w", err)
		}
		lockPath := t.s.path(lock)
		if li, err := os.Lstat(lockPath); err == nil && os.SameFile(ti, li) {
			if err := t.s.fs.Remove(lockPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("refs: recover: %w", err)
			}
		}
		if err := t.s.fs.Remove(tokenPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("refs: recover: %w", err)
		}
	}
	if err := t.s.fs.Truncate(t.side, 0); err != nil {
		return fmt.Errorf("refs: recover: %w", err)
	}
	return nil
}

func validToken(token string) bool {
	return strings.HasPrefix(token, tokenPrefix) && !strings.ContainsAny(token, "/\\") &&
		!strings.Contains(token, "..")
}

func validLock(lock string) bool {
	name, ok := strings.CutSuffix(lock, ".lock")
	return ok && (name == "HEAD" || name == packedName || CheckName(name) == nil)
}

// lockAll writes the record, then takes each lock in turn. It returns the
// path of a lock file someone else holds, if any.
func (t *txn) lockAll(refNames, rels []string) (busy string, err error) {
	var record bytes.Buffer
	spare := t.s.takeSpare()
	for i, rel := range rels {
		h := &heldLock{ref: refNames[i], rel: rel, path: t.s.path(rel)}
		token := newTokenName(i + 1)
		if i == 0 && spare != nil {
			token, h.token = spare.name, spare.f
		}
		h.tokenPath = t.s.path(token)
		t.held = append(t.held, h)
		fmt.Fprintf(&record, "%s %s\n", token, rel)
	}
	if spare != nil && len(rels) == 0 {
		spare.f.Close()
		t.s.fs.Remove(t.s.path(spare.name))
	}
	if _, err := t.s.fs.WriteAt(t.side, record.Bytes(), 0); err != nil {
		return "", fmt.Errorf("refs: write %s: %w", t.side.Name(), err)
	}
	t.recorded = true
	hook("recorded", t.side.Name())
	for _, h := range t.held {
		if h.token == nil {
			f, err := t.s.fs.OpenFile(h.tokenPath, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
			if err != nil {
				return "", fmt.Errorf("refs: create lock token: %w", err)
			}
			h.token = f
		}
		hook("token", h.tokenPath)
		if busy, err := t.link(h); busy || err != nil {
			if busy {
				return h.path, nil
			}
			return "", err
		}
		h.linked = true
		hook("locked", h.path)
	}
	return "", nil
}

// link takes the lock h by linking its token to the lock path, creating
// the lock's directory as needed. busy means the lock exists.
func (t *txn) link(h *heldLock) (busy bool, err error) {
	for attempt := 0; ; attempt++ {
		err := t.s.fs.Link(h.tokenPath, h.path)
		switch {
		case err == nil:
			return false, nil
		case errors.Is(err, fs.ErrExist):
			return true, nil
		case errors.Is(err, syscall.ENOTDIR) && h.ref != "":
			return false, t.s.fileConflict(h.ref)
		case errors.Is(err, fs.ErrNotExist) && h.ref != "" && attempt < 5:
			// The directory is missing, or was just pruned by another
			// writer: (re)create it and try again.
			err := fsys.MkdirAll(t.s.fs, filepath.Dir(h.path), 0o777, t.s.durable())
			if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrExist) {
				return false, t.s.fileConflict(h.ref)
			}
			if err != nil {
				return false, fmt.Errorf("refs: lock %s: %w", h.ref, err)
			}
		default:
			return false, fmt.Errorf("refs: lock %s: %w", h.rel, err)
		}
	}
}

// fileConflict returns the error for a ref name one of whose parent paths
// is a file.
func (s *Store) fileConflict(name string) error {
	for i := len("refs/"); i < len(name); i++ {
		if name[i] != '/' {
			continue
		}
		if fi, err := os.Lstat(s.path(name[:i])); err == nil && !fi.IsDir() {
			return &ConflictError{Name: name, Existing: name[:i]}
		}
	}
	return &ConflictError{Name: name, Existing: "a file on its path"}
}

// commit writes content into the lock h and renames it over target. Unless
// the store was opened with NoFsync, the content is flushed before the
// rename and target's folder after it (DL-0413).
func (t *txn) commit(h *heldLock, target string, content []byte) error {
	if _, err := t.s.fs.WriteAt(h.token, content, 0); err != nil {
		return fmt.Errorf("refs: write %s: %w", h.rel, err)
	}
	durable := t.s.durable()
	if durable {
		if err := t.s.fs.Sync(h.token); err != nil {
			return fmt.Errorf("refs: fsync %s: %w", h.rel, err)
		}
	}
	if err := t.s.fs.Rename(h.path, target); err != nil {
		return fmt.Errorf("refs: rename %s: %w", h.rel, err)
	}
	h.renamed = true
	hook("renamed", target)
	if durable {
		return t.s.syncDir(filepath.Dir(target))
	}
	return nil
}

// end removes the lock files not renamed and the tokens, clears the record
// (only if all of that succeeded, so that recovery can finish it
// otherwise) and releases the flock.
func (t *txn) end() error {
	var firstErr error
	note := func(err error) {
		if err != nil && !errors.Is(err, fs.ErrNotExist) && firstErr == nil {
			firstErr = fmt.Errorf("refs: release lock: %w", err)
		}
	}
	for i := len(t.held) - 1; i >= 0; i-- {
		h := t.held[i]
		if h.token != nil {
			h.token.Close()
		}
		if h.linked && !h.renamed {
			if err := t.s.fs.Remove(h.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				note(err)
				continue // keep the token: recovery will find this lock by it
			}
			if h.ref != "" {
				t.s.pruneDirs(filepath.Dir(h.path))
			}
		}
		if h.token != nil {
			note(t.s.fs.Remove(h.tokenPath))
		}
	}
	if t.recorded && firstErr == nil {
		note(t.s.fs.Truncate(t.side, 0))
	}
	t.release()
	t.s.refillSpare()
	return firstErr
}

// pruneDirs removes dir and its parents while they are empty, stopping
// above <gitdir>/refs/<first> (which git keeps, as refs/heads).
func (s *Store) pruneDirs(dir string) {
	refs := s.path("refs")
	for strings.HasPrefix(dir, refs+string(filepath.Separator)) &&
		strings.Contains(dir[len(refs)+1:], string(filepath.Separator)) {
		if s.fs.Rmdir(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// durable reports whether writes are flushed before they return (the
// default; Options.NoFsync turns it off).
func (s *Store) durable() bool { return !s.opts.NoFsync }

// syncDir flushes the names in dir.
func (s *Store) syncDir(dir string) error {
	if err := s.fs.SyncDir(dir); err != nil {
		return fmt.Errorf("refs: fsync %s: %w", dir, err)
	}
	return nil
}
