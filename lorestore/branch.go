// Revisions and branches: resolving a name to a commit, and creating,
// listing and deleting branches by compare-and-swap.

package lorestore

import (
	"errors"
	"strings"

	"github.com/deloreis/deloreis/lorestore/refs"
	"github.com/go-git/go-git/v5/plumbing"
)

// Branch is a branch name and the commit it points at.
type Branch struct {
	Name   string
	Commit plumbing.Hash
}

// Resolve names the commit a revision points at. A revision is "" or "HEAD"
// (the pinned commit, or the branch HEAD names), a 40-digit commit id, a full
// ref name ("refs/heads/main"), a branch name, a remote-tracking name
// ("origin/main") or a tag name.
func (s *Store) Resolve(rev string) (plumbing.Hash, error) {
	if rev == "" || rev == "HEAD" {
		if !s.pinned.IsZero() {
			return s.pinned, nil
		}
		target, err := s.refs.Head()
		if err != nil {
			return plumbing.ZeroHash, err
		}
		return s.readRef(target, rev)
	}
	if len(rev) == 40 {
		if h, err := parseHash(rev); err == nil {
			if _, err := s.readCommit(h); err != nil {
				return plumbing.ZeroHash, err
			}
			return h, nil
		}
	}
	if strings.HasPrefix(rev, "refs/") {
		if err := refs.CheckName(rev); err != nil {
			return plumbing.ZeroHash, &RevisionError{Rev: rev, Reason: err.Error()}
		}
		return s.readRef(rev, rev)
	}
	for _, prefix := range []string{"refs/heads/", "refs/remotes/", "refs/tags/"} {
		name := prefix + rev
		if refs.CheckName(name) != nil {
			continue
		}
		h, err := s.refs.Read(name)
		if err == nil {
			return h, nil
		}
		if !errors.Is(err, refs.ErrNotFound) {
			return plumbing.ZeroHash, err
		}
	}
	return plumbing.ZeroHash, &RevisionError{Rev: rev, Reason: "names no branch, tag or commit"}
}

func (s *Store) readRef(name, rev string) (plumbing.Hash, error) {
	h, err := s.refs.Read(name)
	if errors.Is(err, refs.ErrNotFound) {
		return plumbing.ZeroHash, &RevisionError{Rev: rev, Reason: "ref " + name + " does not exist"}
	}
	return h, err
}

// Head returns the commit a branch points at.
func (s *Store) Head(branch string) (plumbing.Hash, error) {
	name, err := refs.BranchRef(branch)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	h, err := s.refs.Read(name)
	if errors.Is(err, refs.ErrNotFound) {
		return plumbing.ZeroHash, branchNotFound(branch)
	}
	return h, err
}

func branchNotFound(branch string) error {
	return &branchError{branch: branch, err: ErrBranchNotFound}
}

type branchError struct {
	branch string
	err    error
}

func (e *branchError) Error() string { return e.err.Error() + ": " + e.branch }
func (e *branchError) Unwrap() error { return e.err }

// Branches lists the local branches, sorted by name.
func (s *Store) Branches() ([]Branch, error) {
	rs, err := s.refs.List("refs/heads/")
	if err != nil {
		return nil, err
	}
	out := make([]Branch, 0, len(rs))
	for _, r := range rs {
		out = append(out, Branch{Name: strings.TrimPrefix(r.Name, "refs/heads/"), Commit: r.Hash})
	}
	return out, nil
}

// CreateBranch points a new branch at the commit from names (default: the
// default branch). It refuses a name git would refuse and a branch that
// already exists.
func (s *Store) CreateBranch(name, from string) (plumbing.Hash, error) {
	if s.ReadOnly() {
		return plumbing.ZeroHash, ErrReadOnly
	}
	ref, err := refs.BranchRef(name)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if from == "" {
		from = DefaultBranch
	}
	h, err := s.Resolve(from)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if err := s.refs.Update(ref, h, plumbing.ZeroHash); err != nil {
		if errors.Is(err, refs.ErrStale) {
			return plumbing.ZeroHash, &branchError{branch: name, err: ErrBranchExists}
		}
		return plumbing.ZeroHash, err
	}
	return h, nil
}

// DeleteBranch removes a branch if it still points at expected (zero: at
// whatever it points at now). The default branch cannot be deleted.
func (s *Store) DeleteBranch(name string, expected plumbing.Hash) error {
	if s.ReadOnly() {
		return ErrReadOnly
	}
	ref, err := refs.BranchRef(name)
	if err != nil {
		return err
	}
	if name == DefaultBranch {
		return &branchError{branch: name, err: errors.New("lorestore: the default branch cannot be deleted")}
	}
	if expected.IsZero() {
		if expected, err = s.Head(name); err != nil {
			return err
		}
	}
	err = s.refs.Delete(ref, expected)
	if errors.Is(err, refs.ErrStale) {
		var se *refs.StaleError
		errors.As(err, &se)
		actual := plumbing.ZeroHash
		if se != nil {
			actual = se.Actual
		}
		return &StaleError{Branch: name, Expected: expected, Actual: actual}
	}
	return err
}
