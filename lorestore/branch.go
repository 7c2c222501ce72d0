// Revisions and branches: resolving a name to a commit, and creating,
// listing and deleting branches by compare-and-swap.

package lorestore

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/deloreis/deloreis/base/names"

	"github.com/deloreis/deloreis/lorestore/odb"
	"github.com/deloreis/deloreis/lorestore/refs"
	"github.com/go-git/go-git/v5/plumbing"
)

// Branch is a branch name and the commit it points at.
type Branch struct {
	Name   string
	Commit Hash
}

// Resolve names the commit a revision points at. A revision is "" or "HEAD"
// (the pinned commit, or the branch HEAD names), a 40-digit commit id, a full
// ref name ("refs/heads/main"), a branch name, a remote-tracking name
// ("origin/main"), a tag name, or an abbreviated commit id (4 or more hex
// digits naming one commit), followed by any number of git's ancestry
// suffixes: "~n" (the n-th first-parent ancestor; "~" is "~1") and "^n"
// (the n-th parent; "^" is "^1", "^0" the commit itself).
func (s *Store) Resolve(rev string) (Hash, error) {
	base, suffix := rev, ""
	if i := strings.IndexAny(rev, "~^"); i >= 0 {
		base, suffix = rev[:i], rev[i:]
	}
	h, err := s.resolveBase(base, rev)
	if err != nil || suffix == "" {
		return h, err
	}
	return s.walkSuffix(h, suffix, rev)
}

// walkSuffix follows a chain of "~n" and "^n" steps from h.
func (s *Store) walkSuffix(h Hash, suffix, rev string) (Hash, error) {
	for suffix != "" {
		op := suffix[0]
		j := 1
		for j < len(suffix) && suffix[j] >= '0' && suffix[j] <= '9' {
			j++
		}
		n := 1
		if j > 1 {
			var err error
			if n, err = strconv.Atoi(suffix[1:j]); err != nil || j-1 > 6 {
				return ZeroHash, &RevisionError{Rev: rev, Reason: "the count " + suffix[1:j] + " is out of range"}
			}
		}
		if j < len(suffix) && suffix[j] != '~' && suffix[j] != '^' {
			return ZeroHash, &RevisionError{Rev: rev, Reason: "after " + suffix[:j] + " only ~n or ^n may follow"}
		}
		suffix = suffix[j:]
		var err error
		if op == '~' {
			for k := 0; k < n && err == nil; k++ {
				h, err = s.parent(h, 1, rev)
			}
		} else if n > 0 {
			h, err = s.parent(h, n, rev)
		}
		if err != nil {
			return ZeroHash, err
		}
	}
	return h, nil
}

// parent is the n-th parent (1-based) of commit h.
func (s *Store) parent(h Hash, n int, rev string) (Hash, error) {
	c, err := s.readCommit(h)
	if err != nil {
		return ZeroHash, err
	}
	if n > len(c.parents) {
		return ZeroHash, &RevisionError{Rev: rev, Reason: fmt.Sprintf("commit %s has %d parent(s), not %d", h.String()[:12], len(c.parents), n)}
	}
	return c.parents[n-1], nil
}

// resolveBase resolves a revision without its ancestry suffixes.
func (s *Store) resolveBase(base, rev string) (Hash, error) {
	if base == "" && rev != "" {
		return ZeroHash, &RevisionError{Rev: rev, Reason: "names no commit before its ~ or ^"}
	}
	if base == "" || base == "HEAD" {
		if !s.pinned.IsZero() {
			return s.pinned, nil
		}
		target, err := s.refs.Head()
		if err != nil {
			return ZeroHash, err
		}
		return s.readRef(target, rev)
	}
	if len(base) == 40 {
		if h, err := parseHash(base); err == nil {
			if _, err := s.readCommit(h); err != nil {
				return ZeroHash, err
			}
			return h, nil
		}
	}
	if strings.HasPrefix(base, "refs/") {
		if err := refs.CheckName(base); err != nil {
			return ZeroHash, &RevisionError{Rev: rev, Reason: err.Error()}
		}
		return s.readRef(base, rev)
	}
	for _, prefix := range []string{"refs/heads/", "refs/remotes/", "refs/tags/"} {
		name := prefix + base
		if refs.CheckName(name) != nil {
			continue
		}
		h, err := s.refs.Read(name)
		if err == nil {
			return Hash(h), nil
		}
		if !errors.Is(err, refs.ErrNotFound) {
			return ZeroHash, err
		}
	}
	if len(base) >= odb.MinPrefix && isHex(base) {
		return s.expandCommit(base, rev)
	}
	return ZeroHash, &RevisionError{Rev: rev, Reason: "names no branch, tag or commit"}
}

// expandCommit resolves an abbreviated commit id: exactly one stored
// commit must begin with it (blobs and trees that do are not candidates).
func (s *Store) expandCommit(abbrev, rev string) (Hash, error) {
	names, err := s.db.Expand(abbrev, 0)
	if err != nil {
		return ZeroHash, err
	}
	var commits []Hash
	for _, h := range names {
		if t, _, err := s.db.Read(h); err == nil && t == plumbing.CommitObject {
			commits = append(commits, Hash(h))
		}
	}
	switch len(commits) {
	case 0:
		return ZeroHash, &RevisionError{Rev: rev, Reason: "names no branch, tag or commit"}
	case 1:
		return commits[0], nil
	}
	shown := make([]string, 0, 4)
	for _, h := range commits[:min(len(commits), 4)] {
		shown = append(shown, h.String()[:12])
	}
	return ZeroHash, &RevisionError{Rev: rev, Reason: fmt.Sprintf("is ambiguous: %d commits begin with %s (%s); give more digits",
		len(commits), abbrev, strings.Join(shown, ", "))}
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func (s *Store) readRef(name, rev string) (Hash, error) {
	h, err := s.refs.Read(name)
	if errors.Is(err, refs.ErrNotFound) {
		return ZeroHash, &RevisionError{Rev: rev, Reason: "ref " + name + " does not exist"}
	}
	return Hash(h), err
}

// Head returns the commit a branch points at.
func (s *Store) Head(branch string) (Hash, error) {
	name, err := refs.BranchRef(branch)
	if err != nil {
		return ZeroHash, err
	}
	h, err := s.refs.Read(name)
	if errors.Is(err, refs.ErrNotFound) {
		return ZeroHash, branchNotFound(branch)
	}
	return Hash(h), err
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
		out = append(out, Branch{Name: strings.TrimPrefix(r.Name, "refs/heads/"), Commit: Hash(r.Hash)})
	}
	return out, nil
}

// CreateBranch points a new branch at the commit from names (default: the
// default branch). It refuses a name git would refuse and a branch that
// already exists.
func (s *Store) CreateBranch(name, from string) (Hash, error) {
	if s.ReadOnly() {
		return ZeroHash, ErrReadOnly
	}
	ref, err := refs.BranchRef(name)
	if err != nil {
		return ZeroHash, err
	}
	if from == "" {
		from = DefaultBranch
	}
	h, err := s.Resolve(from)
	if err != nil {
		return ZeroHash, err
	}
	// A branch made from a remote-tracking ref or a bare commit id takes
	// content out of quarantine: check what no branch holds yet.
	bs, err := s.Branches()
	if err != nil {
		return ZeroHash, err
	}
	known := make([]Hash, 0, len(bs))
	existing := make([]string, 0, len(bs))
	for _, b := range bs {
		known = append(known, b.Commit)
		existing = append(existing, b.Name)
	}
	if other, ok := names.Collides(name, existing); ok {
		return ZeroHash, &branchError{branch: name + " (it differs from " + other + " only by case or Unicode form)", err: ErrBranchExists}
	}
	if err := s.verifyNew(h, known); err != nil {
		return ZeroHash, err
	}
	if err := s.refs.Update(ref, plumbing.Hash(h), plumbing.Hash(ZeroHash)); err != nil {
		if errors.Is(err, refs.ErrStale) {
			return ZeroHash, &branchError{branch: name, err: ErrBranchExists}
		}
		return ZeroHash, err
	}
	return h, nil
}

// DeleteBranch removes a branch if it still points at expected (zero: at
// whatever it points at now). The default branch cannot be deleted.
func (s *Store) DeleteBranch(name string, expected Hash) error {
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
	err = s.refs.Delete(ref, plumbing.Hash(expected))
	if errors.Is(err, refs.ErrStale) {
		var se *refs.StaleError
		errors.As(err, &se)
		actual := ZeroHash
		if se != nil {
			actual = Hash(se.Actual)
		}
		return &StaleError{Branch: name, Expected: expected, Actual: actual}
	}
	return err
}

// RefNames are the short names a revision may use, each list sorted:
// the local branches ("main"), the remote-tracking branches
// ("origin/main") and the tags.
type RefNames struct {
	Branches, Tracking, Tags []string
}

// Names lists the short names of the store's branches, remote-tracking
// branches and tags (for completion: what Resolve takes by name).
func (s *Store) Names() (RefNames, error) {
	var out RefNames
	for _, l := range []struct {
		prefix string
		into   *[]string
	}{{"refs/heads/", &out.Branches}, {"refs/remotes/", &out.Tracking}, {"refs/tags/", &out.Tags}} {
		rs, err := s.refs.List(l.prefix)
		if err != nil {
			return RefNames{}, err
		}
		for _, r := range rs {
			*l.into = append(*l.into, strings.TrimPrefix(r.Name, l.prefix))
		}
		slices.Sort(*l.into)
	}
	return out, nil
}
