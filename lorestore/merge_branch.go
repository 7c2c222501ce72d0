// A vetted merge: the merge commit is written and readable, a caller's
// check looks at it, and only then does the target move — or the commit's
// pack is taken back and nothing is left behind. author.merge needs it: a
// merge whose world brings conflicts must write nothing, and the world of
// the merge is only known once its tree exists.

package lorestore

import (
	"errors"

	"github.com/deloreis/deloreis/lorestore/odb"
	"github.com/deloreis/deloreis/lorestore/refs"
	"github.com/go-git/go-git/v5/plumbing"
)

// MergeCheck looks at a merge commit before its target moves: r.Commit is
// readable (SnapshotAt) while it runs. An error keeps the target where it
// was and is returned by MergeChecked as it is.
type MergeCheck func(r MergeResult) error

// MergeChecked merges the commit source into branch target, which must
// still be at head (the commit the caller read): the union of both sides
// over their merge base, written as a two-parent commit (never a
// fast-forward) whose parents are head and source. A target that moved is
// a *StaleError and nothing is written. A source already contained in the
// target writes nothing and answers UpToDate, without calling check.
// Otherwise check runs on the written commit under the write lock; when it
// fails, the commit's pack is taken back and the result names the base and
// the two heads, with no Commit. Unrelated histories are
// ErrUnrelated, a source holding invalid content a *ContentError and a
// merge that would break the layout a *MergeError — all before anything is
// written.
func (s *Store) MergeChecked(target string, head, source Hash, m Message, check MergeCheck) (MergeResult, error) {
	if s.ReadOnly() {
		return MergeResult{}, ErrReadOnly
	}
	ref, err := refs.BranchRef(target)
	if err != nil {
		return MergeResult{}, err
	}
	if err := m.check(); err != nil {
		return MergeResult{}, err
	}
	unlock, err := s.lockWrites()
	if err != nil {
		return MergeResult{}, err
	}
	defer unlock()
	if err := s.stillAt(ref, target, head); err != nil {
		return MergeResult{}, err
	}
	base, err := s.MergeBase(head, source)
	if err != nil {
		return MergeResult{}, err
	}
	res := MergeResult{Base: base, Target: head, Source: source}
	if base == source {
		res.UpToDate, res.Commit = true, head
		return res, nil
	}
	if err := s.authorKnown(); err != nil {
		return MergeResult{}, err
	}
	// What the source brings is checked before anything refers to it
	// (DL-0030), as Merge does.
	if err := s.verifyNew(source, []Hash{head}); err != nil {
		return MergeResult{}, err
	}
	ob, ch, err := s.writeMerge(base, head, source, m)
	if err != nil {
		return MergeResult{}, err
	}
	res.Commit = Hash(ch)
	takeBack := func(err error) (MergeResult, error) {
		_ = ob.Discard()
		s.cacheMu.Lock()
		delete(s.commits, Hash(ch)) // the check read it; it is gone now
		s.cacheMu.Unlock()
		return MergeResult{}, err
	}
	if check != nil {
		if err := check(res); err != nil {
			out := res
			out.Commit = ZeroHash
			_, err = takeBack(err)
			return out, err
		}
	}
	if err := s.refs.Update(ref, ch, plumbing.Hash(head)); err != nil {
		// Only a writer outside deloreis (real git) moves a ref while the
		// write lock is held.
		var se *refs.StaleError
		if errors.As(err, &se) {
			if se.Actual.IsZero() {
				return takeBack(branchNotFound(target))
			}
			return takeBack(&StaleError{Branch: target, Expected: head, Actual: Hash(se.Actual)})
		}
		return takeBack(err)
	}
	s.afterCommit()
	return res, nil
}

// stillAt is nil while branch target (at ref) is at head, the commit the
// caller read, and a *StaleError once it moved: the fence MergeChecked
// takes under the write lock, before it reads or writes anything.
func (s *Store) stillAt(ref, target string, head Hash) error {
	now, err := s.refs.Read(ref)
	if errors.Is(err, refs.ErrNotFound) {
		return branchNotFound(target)
	}
	if err != nil {
		return err
	}
	if Hash(now) != head {
		return &StaleError{Branch: target, Expected: head, Actual: Hash(now)}
	}
	return nil
}

// writeMerge writes the union of head and source over base as a
// two-parent commit in a pack of its own, and returns that pack with the
// commit: nothing refers to the commit yet, so a failed check can take
// the whole pack back (Discard).
func (s *Store) writeMerge(base, head, source Hash, m Message) (*odb.Batch, plumbing.Hash, error) {
	bc, err := s.readCommit(base)
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	hc, err := s.readCommit(head)
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	sc, err := s.readCommit(source)
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	ob := s.db.NewBatch()
	tree, err := s.merge3(ob, bc.tree, hc.tree, sc.tree, "")
	if err != nil {
		ob.Abort()
		return nil, plumbing.ZeroHash, err
	}
	ch := ob.Add(plumbing.CommitObject, encodeCommit(s.newCommit(tree, []Hash{head, source}, m)))
	if err := ob.Write(); err != nil {
		return nil, plumbing.ZeroHash, err
	}
	return ob, ch, nil
}

// ScopeTree is the tree of one scope in the snapshot (ok false when the
// scope holds nothing): two snapshots whose scope trees are equal hold the
// same objects in that scope.
func (sn *Snapshot) ScopeTree(scope string) (Hash, bool, error) {
	if err := checkScope(scope); err != nil {
		return ZeroHash, false, err
	}
	return sn.walk(scopesDir, scope)
}

// MergeScope is one scope of a merge commit. Kept names the side (the
// target or source commit) whose tree of the scope the merge kept as it
// was; it is zero when both sides changed the scope.
type MergeScope struct {
	Scope string
	Kept  Hash
}

// MergeScopes lists the scopes of a merge's commit and, for each, the
// side it kept unchanged: only scopes with a zero Kept can bring
// conflicts between the sides.
func (s *Store) MergeScopes(r MergeResult) ([]MergeScope, error) {
	commits := [3]Hash{r.Commit, r.Target, r.Source}
	var snaps [3]*Snapshot
	for i, c := range commits {
		sn, err := s.SnapshotAt(c)
		if err != nil {
			return nil, err
		}
		snaps[i] = sn
	}
	scopes, err := snaps[0].Scopes()
	if err != nil {
		return nil, err
	}
	out := make([]MergeScope, len(scopes))
	for i, scope := range scopes {
		var trees [3]Hash
		for j, sn := range snaps {
			if trees[j], _, err = sn.ScopeTree(scope); err != nil {
				return nil, err
			}
		}
		out[i].Scope = scope
		switch {
		case trees[0] == trees[1]:
			out[i].Kept = r.Target
		case trees[0] == trees[2]:
			out[i].Kept = r.Source
		}
	}
	return out, nil
}
