// This file holds the write side of the Store: Update, Delete and SetHead,
// each a compare-and-swap (SetHead a plain swap) under git's lock protocol,
// and the directory/file conflict checks that creating a ref needs.

package refs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sys/unix"
)

// current is what a ref holds, as seen under its lock.
type current struct {
	hash     plumbing.Hash // zero if absent
	loose    bool          // hash comes from the loose file
	symbolic bool          // the loose file is a symbolic ref
	dir      bool          // the loose path is a directory
	packed   *packedFile   // packed-refs, read if the loose file holds no hash
}

// current reads name's loose file and, failing that, packed-refs.
func (s *Store) current(name string) (current, error) {
	l, err := readLoose(s.path(name))
	if err != nil {
		return current{}, err
	}
	switch l.kind {
	case looseHash:
		return current{hash: l.hash, loose: true}, nil
	case looseSymbolic:
		return current{symbolic: true}, nil
	}
	p, err := readPacked(s.path(packedName))
	if err != nil {
		return current{}, err
	}
	h, _ := p.lookup(name)
	return current{hash: h, dir: l.kind == looseDir, packed: p}, nil
}

// Update sets the ref name to newHash if its current value is oldHash, where
// a zero oldHash means the ref must not exist yet. It writes the loose ref
// file (a packed entry, if any, stays behind it, as with git).
//
// Errors: *NameError; *StaleError if the value is not oldHash; *LockedError
// if another process holds the lock past LockTimeout; *ConflictError if
// name clashes with an existing ref as file and directory; ErrSymbolic if
// name is a symbolic ref; ErrZeroHash if newHash is zero (use Delete). In
// every error case nothing has changed.
func (s *Store) Update(name string, newHash, oldHash plumbing.Hash) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if newHash.IsZero() {
		return fmt.Errorf("%w: update %s: new hash is zero (use Delete)", ErrZeroHash, name)
	}
	return s.withLocks(name, []string{name}, []string{name + ".lock"}, func(t *txn) error {
		cur, err := s.current(name)
		if err != nil {
			return err
		}
		if cur.symbolic {
			return fmt.Errorf("%w: %s", ErrSymbolic, name)
		}
		if cur.hash != oldHash {
			return &StaleError{Name: name, Expected: oldHash, Actual: cur.hash}
		}
		if !cur.loose {
			if err := s.checkConflicts(name, cur.packed, cur.dir); err != nil {
				return err
			}
		}
		return t.commit(t.held[0], s.path(name), []byte(newHash.String()+"\n"))
	})
}

// Delete removes the ref name if its current value is oldHash, from
// packed-refs (under packed-refs.lock) and then its loose file, as git
// does, so that a reader sees the old value until the ref is gone.
//
// Errors are those of Update; ErrZeroHash if oldHash is zero. Deleting a
// ref that does not exist is a *StaleError with a zero Actual.
func (s *Store) Delete(name string, oldHash plumbing.Hash) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if oldHash.IsZero() {
		return fmt.Errorf("%w: delete %s: expected hash is zero", ErrZeroHash, name)
	}
	locks := []string{name + ".lock", packedName + ".lock"}
	return s.withLocks(name, []string{name, ""}, locks, func(t *txn) error {
		cur, err := s.current(name)
		if err != nil {
			return err
		}
		if cur.symbolic {
			return fmt.Errorf("%w: %s", ErrSymbolic, name)
		}
		if cur.hash != oldHash {
			return &StaleError{Name: name, Expected: oldHash, Actual: cur.hash}
		}
		packed := cur.packed
		if packed == nil {
			if packed, err = readPacked(s.path(packedName)); err != nil {
				return err
			}
		}
		if _, ok := packed.lookup(name); ok {
			if err := t.commit(t.held[1], s.path(packedName), packed.without(name)); err != nil {
				return err
			}
		}
		if cur.loose {
			if err := s.fs.Remove(s.path(name)); err != nil {
				return fmt.Errorf("refs: delete %s: %w", name, err)
			}
			if s.durable() {
				return s.syncDir(filepath.Dir(s.path(name)))
			}
		}
		return nil
	})
}

// SetHead points the symbolic ref HEAD at target (a full ref name, which
// need not exist yet), writing "ref: <target>\n" under HEAD.lock.
func (s *Store) SetHead(target string) error {
	if err := CheckName(target); err != nil {
		return err
	}
	return s.withLocks("HEAD", []string{""}, []string{"HEAD.lock"}, func(t *txn) error {
		return t.commit(t.held[0], s.path("HEAD"), []byte("ref: "+target+"\n"))
	})
}

// checkConflicts refuses to create name where a ref is a path prefix of
// it (refs/heads/a for refs/heads/a/b) or lies under it, loose or packed,
// as git does. Loose parents that are files have already failed the lock.
// A directory left at name's path with no ref in it is removed, as git
// does.
func (s *Store) checkConflicts(name string, packed *packedFile, dir bool) error {
	for i := len("refs/"); i < len(name); i++ {
		if name[i] == '/' {
			if _, ok := packed.lookup(name[:i]); ok {
				return &ConflictError{Name: name, Existing: name[:i]}
			}
		}
	}
	for _, e := range packed.entries {
		if strings.HasPrefix(e.name, name+"/") {
			return &ConflictError{Name: name, Existing: e.name}
		}
	}
	if !dir {
		return nil
	}
	blocker, err := s.removeEmptyTree(s.path(name))
	if err != nil {
		return fmt.Errorf("refs: update %s: %w", name, err)
	}
	if blocker != "" {
		rel, _ := filepath.Rel(s.gitDir, blocker)
		return &ConflictError{Name: name, Existing: filepath.ToSlash(rel)}
	}
	return nil
}

// removeEmptyTree removes dir if it holds nothing but empty directories.
// Otherwise it returns the path of something in it (a ref, a lock file)
// and removes nothing more.
func (s *Store) removeEmptyTree(dir string) (blocker string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			return p, nil
		}
		if b, err := s.removeEmptyTree(p); b != "" || err != nil {
			return b, err
		}
	}
	err = s.fs.Rmdir(dir)
	if errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST) {
		return dir, nil // something appeared meanwhile
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return "", nil
}
