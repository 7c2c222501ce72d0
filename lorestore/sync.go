// Sync: one round trip with a remote that several replicas share. Fetch
// the branch into its remote-tracking ref (verified before the ref moves),
// bring it into the local branch (fast-forward, or a two-parent merge
// commit), and push the result with a lease: the remote ref must still be
// what was fetched. A lost race fetches and tries again, a bounded number
// of times with a growing, jittered wait. Nothing is ever force-pushed.
//
// The world conflicts a merge brings are not this package's to judge: a
// sync writes its merge commit as pull does (DL-0027) and hands back every
// merge it wrote and every merge commit it fetched, for the caller to
// report (DL-0250).

package lorestore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/deloreis/deloreis/lorestore/refs"
)

// ErrSyncRace means every attempt of a sync lost the race to another
// pusher: the remote ref moved between each fetch and its push.
var ErrSyncRace = errors.New("lorestore: sync: the remote kept moving")

// SyncOptions say what a sync moves and how hard it tries.
type SyncOptions struct {
	Branch   string        // local and remote branch; default main
	Attempts int           // fetch-merge-push rounds before giving up; default 6
	Backoff  time.Duration // wait after the first lost race, doubled each time; default 50ms
	Message  Message       // the merge commit's message; default "sync: merge <branch> of <remote>"
	Progress Progress

	// beforePush runs between the merge and the push of each attempt;
	// tests use it to move the remote in between.
	beforePush func(attempt int)
}

// SyncResult tells what a sync did.
type SyncResult struct {
	Remote string // the remote's name, or its URL when it has none
	URL    string
	Branch string
	Before Hash // the local branch when the sync began
	Head   Hash // the local branch (and the remote's) when it ended
	// Fetched is the remote branch as first fetched (Old) and as last
	// fetched (New); zero when the remote has no such branch yet.
	Fetched RefUpdate
	// Merges are the merge commits this sync wrote, in order.
	Merges []MergeResult
	// Incoming are the merge commits this sync brought into the local
	// branch from the remote (written by another replica), newest first,
	// each with its two parents as Target and Source and their merge base.
	Incoming    []MergeResult
	FastForward bool // the local branch moved to the remote's head without a merge
	Pushed      bool // the remote ref moved
	Attempts    int  // rounds taken (1 when no race was lost)
}

// Sync fetches a branch from remote, brings it into the local branch and
// pushes the result with a lease, retrying a lost race (see the file
// comment). Incoming content is verified (as a merge verifies it) before
// even the remote-tracking ref moves; a refusal is a *ContentError and
// leaves every ref where it was.
func (s *Store) Sync(ctx context.Context, remote string, o SyncOptions) (SyncResult, error) {
	if s.ReadOnly() {
		return SyncResult{}, ErrReadOnly
	}
	if o.Branch == "" {
		o.Branch = DefaultBranch
	}
	if o.Attempts <= 0 {
		o.Attempts = 6
	}
	if o.Backoff <= 0 {
		o.Backoff = 50 * time.Millisecond
	}
	target, err := s.resolveRemote(remote)
	if err != nil {
		return SyncResult{}, err
	}
	ref, err := refs.BranchRef(o.Branch)
	if err != nil {
		return SyncResult{}, err
	}
	if o.Message.Summary == "" {
		o.Message = NewMessage("sync: merge "+o.Branch+" of "+orURL(target)+" into "+o.Branch, "merge", "")
	}
	if err := o.Message.check(); err != nil {
		return SyncResult{}, err
	}
	res := SyncResult{Remote: orURL(target), URL: target.url, Branch: o.Branch}
	if res.Before, err = s.Head(o.Branch); err != nil {
		return SyncResult{}, err
	}
	seen := map[Hash]bool{}
	var lastRace error
	for attempt := 0; attempt < o.Attempts; attempt++ {
		if attempt > 0 {
			if err := syncWait(ctx, o.Backoff, attempt); err != nil {
				return res, err
			}
		}
		res.Attempts = attempt + 1
		remoteHead, err := s.syncFetch(ctx, target, ref, o.Progress)
		if err != nil {
			return res, err
		}
		if attempt == 0 {
			res.Fetched.Old = remoteHead
		}
		res.Fetched.Ref, res.Fetched.New = ref, remoteHead
		if err := s.syncMerge(ref, remoteHead, o, &res, seen); err != nil {
			return res, err
		}
		if o.beforePush != nil {
			o.beforePush(attempt)
		}
		head, err := s.Head(o.Branch)
		if err != nil {
			return res, err
		}
		res.Head = head
		if head == remoteHead {
			return res, nil // nothing of ours is missing there
		}
		err = s.pushLease(ctx, target, ref, remoteHead, head, o.Progress)
		var lost *leaseError
		if errors.As(err, &lost) {
			lastRace = err
			continue
		}
		if err != nil {
			return res, err
		}
		res.Pushed = true
		return res, nil
	}
	return res, fmt.Errorf("%w after %d attempts: %v", ErrSyncRace, o.Attempts, lastRace)
}

// orURL names a remote target the way a user named it.
func orURL(t remoteTarget) string {
	if t.name != "" {
		return t.name
	}
	return t.url
}

// syncWait waits before attempt: base·2^(attempt-1), at most 2 s, plus up
// to as much again at random, so replicas that collided in step do not
// collide again.
func syncWait(ctx context.Context, base time.Duration, attempt int) error {
	d := base << min(attempt-1, 16)
	d = min(d, 2*time.Second)
	d += time.Duration(rand.Int64N(int64(d) + 1))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// syncMerge brings the fetched remote head into the local branch: nothing
// when the branch has it, a fast-forward when the branch is behind it,
// else a merge commit (written whatever the world thinks of it, DL-0250).
// A branch that moves meanwhile (a local commit) is merged at its new head.
func (s *Store) syncMerge(ref string, remoteHead Hash, o SyncOptions, res *SyncResult, seen map[Hash]bool) error {
	if remoteHead.IsZero() {
		return nil
	}
	for range 16 {
		head, err := s.Head(o.Branch)
		if err != nil {
			return err
		}
		if err := s.collectIncoming(remoteHead, head, res, seen); err != nil {
			return err
		}
		r, done, err := s.fastForward(ref, MergeOptions{Target: o.Branch}, head, remoteHead)
		if err != nil {
			return err
		}
		if done {
			res.FastForward = res.FastForward || r.FastForward
			return nil
		}
		m, err := s.MergeChecked(o.Branch, head, remoteHead, o.Message, nil)
		var stale *StaleError
		if errors.As(err, &stale) {
			continue
		}
		if err != nil {
			return err
		}
		if !m.UpToDate {
			res.Merges = append(res.Merges, m)
		}
		return nil
	}
	return fmt.Errorf("lorestore: sync: branch %s keeps moving under the merge", o.Branch)
}

// collectIncoming records the merge commits the remote head brings that
// the local head lacks: another replica's merges, whose conflicts this
// replica must hear about too.
func (s *Store) collectIncoming(remoteHead, head Hash, res *SyncResult, seen map[Hash]bool) error {
	fresh, err := s.newCommits([]Hash{remoteHead}, []Hash{head})
	if err != nil {
		return err
	}
	for _, h := range fresh {
		if seen[h] {
			continue
		}
		seen[h] = true
		c, err := s.readCommit(h)
		if err != nil {
			return err
		}
		if len(c.parents) != 2 {
			continue
		}
		base, err := s.MergeBase(c.parents[0], c.parents[1])
		if err != nil && !errors.Is(err, ErrUnrelated) {
			return err
		}
		res.Incoming = append(res.Incoming, MergeResult{Commit: h, Base: base, Target: c.parents[0], Source: c.parents[1]})
	}
	return nil
}
