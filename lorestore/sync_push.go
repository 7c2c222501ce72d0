// The two halves of a sync that talk to the remote: a fetch of one branch
// whose content is verified before its remote-tracking ref moves, and a
// push whose command carries the fetched commit as the ref's old value,
// so that the remote's own compare-and-swap refuses it if anyone pushed
// in between.

package lorestore

import (
	"context"
	"errors"
	"fmt"

	"github.com/deloreis/deloreis/lorestore/odb"
)

// leaseError is a push the remote did not take because its ref was no
// longer the commit the sync had fetched.
type leaseError struct {
	ref              string
	expected, actual Hash // actual is zero when the remote did not say
	reason           string
}

func (e *leaseError) Error() string {
	msg := "lorestore: push of " + e.ref + " lost the race: the remote moved from " + short(e.expected)
	if !e.actual.IsZero() {
		msg += " to " + short(e.actual)
	}
	if e.reason != "" {
		msg += " (" + e.reason + ")"
	}
	return msg
}

// syncFetch fetches one branch of the remote and returns its head (zero
// when the remote has no such branch). The pack it receives stays in
// quarantine while every commit it brings that no local branch reaches is
// verified; only then is the pack published and the remote-tracking ref
// moved. A refused pack is discarded: the store holds nothing of it
// (DL-0252, DL-0403).
func (s *Store) syncFetch(ctx context.Context, target remoteTarget, ref string, p Progress) (Hash, error) {
	sess, err := dial(ctx, target.url, UploadPack)
	if err != nil {
		return ZeroHash, err
	}
	defer sess.Close()
	adv, err := sess.Advertised(ctx)
	if errors.Is(err, ErrEmptyRemote) {
		return ZeroHash, nil
	}
	if err != nil {
		return ZeroHash, fmt.Errorf("lorestore: fetch from %s: %w", target.url, err)
	}
	h, ok := adv.Refs[ref]
	if !ok {
		return ZeroHash, nil
	}
	heads := map[string]Hash{ref: h}
	q, err := s.fetchObjects(ctx, sess, heads, p)
	if err != nil {
		return ZeroHash, fmt.Errorf("lorestore: fetch from %s: %w", target.url, err)
	}
	if err := s.verifyFetched(h, q); err != nil {
		return ZeroHash, err
	}
	if tr := target.tracking(ref[len("refs/heads/"):]); tr != "" {
		if err := s.forceRef(tr, h); err != nil {
			return ZeroHash, err
		}
	}
	return h, nil
}

// verifyFetched verifies what head brings that no local branch reaches,
// reading through q when a pack was received, and publishes q when the
// content is accepted, discarding it otherwise.
func (s *Store) verifyFetched(head Hash, q *odb.Quarantine) error {
	v := s
	if q != nil {
		defer q.Discard() // no effect once published
		v = s.quarantined(q)
	}
	trusted, err := s.branchHeads()
	if err != nil {
		return err
	}
	if err := v.verifyNew(head, trusted); err != nil || q == nil {
		return err
	}
	return q.Publish()
}

// quarantined is a view of s for reading only, whose reads see q's
// objects over the database. Its caches are its own, so nothing read from
// q stays in s's caches when q is discarded.
func (s *Store) quarantined(q *odb.Quarantine) *Store {
	return &Store{
		gitDir:  s.gitDir,
		opts:    s.opts,
		db:      s.db,
		objs:    objectSource(q),
		refs:    s.refs,
		pinned:  s.pinned,
		trees:   make(map[Hash][]treeEntry),
		commits: make(map[Hash]*gitCommit),
	}
}

// branchHeads lists the commits the local branches point at: what a
// store already trusts.
func (s *Store) branchHeads() ([]Hash, error) {
	rs, err := s.refs.List("refs/heads/")
	if err != nil {
		return nil, err
	}
	out := make([]Hash, 0, len(rs))
	for _, r := range rs {
		out = append(out, Hash(r.Hash))
	}
	return out, nil
}

// pushLease moves the remote's ref from expected to head, sending what the
// remote lacks. A remote whose ref is not expected any more — seen in its
// advertisement, or refused by its compare-and-swap — is a *leaseError and
// nothing moved there. head must contain expected: a lease never rewinds.
func (s *Store) pushLease(ctx context.Context, target remoteTarget, ref string, expected, head Hash, p Progress) error {
	if !expected.IsZero() {
		ok, err := s.IsAncestor(expected, head)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: %s does not contain the remote's %s", ErrNonFastForward, short(head), short(expected))
		}
	}
	sess, err := dial(ctx, target.url, ReceivePack)
	if err != nil {
		return err
	}
	defer sess.Close()
	adv, err := sess.Advertised(ctx)
	if err != nil {
		return fmt.Errorf("lorestore: push to %s: %w", target.url, err)
	}
	if now := adv.Refs[ref]; now != expected {
		return &leaseError{ref: ref, expected: expected, actual: now}
	}
	cmd := RefCommand{Ref: ref, Old: expected, New: head}
	if err := s.sendLease(ctx, sess, adv, cmd, p); err != nil {
		var rs *reportError
		if errors.As(err, &rs) {
			// The remote's compare-and-swap (or a hook) refused the
			// command; the next fetch tells which.
			return &leaseError{ref: ref, expected: expected, reason: rs.Error()}
		}
		return fmt.Errorf("lorestore: push to %s: %w", target.url, err)
	}
	s.recordPushed(target, []RefCommand{cmd})
	return nil
}

// reportError is a receive-pack status report that refused the update.
type reportError struct{ err error }

func (e *reportError) Error() string { return e.err.Error() }

// sendLease sends one ref update and the objects the remote lacks for it;
// a report that refuses it is a *reportError.
func (s *Store) sendLease(ctx context.Context, sess RemoteSession, adv *Advertisement, cmd RefCommand, p Progress) error {
	report, err := s.sendPack(ctx, sess, adv, []RefCommand{cmd}, p)
	if report != nil {
		// A refused command comes with the report and its error.
		if rerr := report.Err(); rerr != nil {
			return &reportError{err: rerr}
		}
	}
	return err
}
