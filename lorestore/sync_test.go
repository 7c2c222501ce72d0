// Sync between replicas through one bare remote: both sides' commits meet
// on every replica and on the remote, a push never overwrites what someone
// else pushed (the lease), a lost race is retried a bounded number of
// times, and corrupt incoming content moves no ref at all.

package lorestore

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/internal/testenv"
	"github.com/go-git/go-git/v5/plumbing"
)

// bareRemote makes an empty bare repository under base that accepts pushes
// over every transport, and returns its path.
func bareRemote(t *testing.T, base, name string) string {
	t.Helper()
	git(t, base, "init", "-q", "--bare", "-b", "main", name)
	dir := filepath.Join(base, name)
	git(t, dir, "config", "http.receivepack", "true")
	return dir
}

// seededReplicas pushes a store holding facts 0..9 to url and clones it
// twice; it returns the two replicas.
func seededReplicas(t *testing.T, url string) (*Store, *Store) {
	t.Helper()
	seed, _ := newStore(t)
	commitFacts(t, seed, "camelot", 0, 10)
	if _, err := seed.Push(context.Background(), url, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	var out [2]*Store
	for i := range out {
		c, err := Clone(context.Background(), url, filepath.Join(t.TempDir(), "r.git"), CloneOptions{Store: Options{Now: fixedClock()}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		out[i] = c
	}
	return out[0], out[1]
}

func remoteHead(t *testing.T, dir string) Hash {
	t.Helper()
	return NewHash(strings.TrimSpace(git(t, dir, "--git-dir", dir, "rev-parse", "refs/heads/main")))
}

func TestSyncTwoReplicas(t *testing.T) {
	base := t.TempDir()
	for _, tr := range []string{"file", "git", "http", "ssh"} {
		t.Run(tr, func(t *testing.T) {
			dir := bareRemote(t, base, tr+".git")
			url := map[string]func() string{
				"file": func() string { return "file://" + dir },
				"ssh":  func() string { testenv.FakeSSH(t); return "ssh://keeper@example.invalid" + dir },
				"git":  func() string { return testenv.GitDaemon(t, base) + tr + ".git" },
				"http": func() string { return startHTTP(t, base) + tr + ".git" },
			}[tr]()
			a, b := seededReplicas(t, url)
			ca := commitFacts(t, a, "camelot", 100, 101).Commit
			cb := commitFacts(t, b, "camelot", 200, 201).Commit

			ra, err := a.Sync(context.Background(), "origin", SyncOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !ra.Pushed || ra.Head != ca || len(ra.Merges)+len(ra.Incoming) != 0 || remoteHead(t, dir) != ca {
				t.Fatalf("first sync: %+v", ra)
			}
			rb, err := b.Sync(context.Background(), "origin", SyncOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !rb.Pushed || len(rb.Merges) != 1 || rb.Merges[0].Target != cb || rb.Merges[0].Source != ca || remoteHead(t, dir) != rb.Head {
				t.Fatalf("second sync: %+v", rb)
			}
			ra, err = a.Sync(context.Background(), "origin", SyncOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// a fast-forwards onto b's merge, and hears of it.
			if ra.Pushed || !ra.FastForward || ra.Head != rb.Head || len(ra.Incoming) != 1 || ra.Incoming[0].Commit != rb.Head ||
				ra.Incoming[0].Target != cb || ra.Incoming[0].Source != ca || ra.Incoming[0].Base.IsZero() {
				t.Fatalf("third sync: %+v", ra)
			}
			if tr, err := a.Resolve("origin/main"); err != nil || tr != rb.Head {
				t.Fatalf("origin/main = %s, %v", tr, err)
			}
			for _, s := range []*Store{a, b} {
				if ids := allIDs(t, s, "main"); len(ids) != 12 {
					t.Fatalf("a replica holds %d objects, want 12", len(ids))
				}
			}
			fsckClean(t, dir)
		})
	}
}

// TestSyncLeaseRetries: the remote moves between a sync's fetch and its
// push; the push is refused by the lease, the sync fetches and merges
// again, and the other pusher's commit stays in the remote's history.
func TestSyncLeaseRetries(t *testing.T) {
	dir := bareRemote(t, t.TempDir(), "r.git")
	a, b := seededReplicas(t, dir)
	commitFacts(t, a, "camelot", 100, 101)
	var raced Hash
	res, err := a.Sync(context.Background(), "origin", SyncOptions{Backoff: time.Millisecond, beforePush: func(attempt int) {
		if attempt == 0 {
			raced = commitFacts(t, b, "camelot", 200, 201).Commit
			if _, err := b.Push(context.Background(), "origin", PushOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 2 || !res.Pushed || len(res.Merges) != 1 || res.Merges[0].Source != raced {
		t.Fatalf("sync over a race: %+v", res)
	}
	head := remoteHead(t, dir)
	if head != res.Head {
		t.Fatalf("remote at %s, want %s", head, res.Head)
	}
	if ok, err := a.IsAncestor(raced, head); err != nil || !ok {
		t.Fatalf("the racing commit is not in the remote's history: %v", err)
	}
	fsckClean(t, dir)
}

// TestSyncGivesUp: a remote that moves before every push wins; the sync
// stops after its attempts and pushed nothing over it.
func TestSyncGivesUp(t *testing.T) {
	dir := bareRemote(t, t.TempDir(), "r.git")
	a, b := seededReplicas(t, dir)
	commitFacts(t, a, "camelot", 100, 101)
	n := 0
	res, err := a.Sync(context.Background(), "origin", SyncOptions{Attempts: 3, Backoff: time.Millisecond, beforePush: func(int) {
		n++
		commitFacts(t, b, "camelot", 200+n, 201+n)
		if _, err := b.Push(context.Background(), "origin", PushOptions{}); err != nil {
			t.Fatal(err)
		}
	}})
	if !errors.Is(err, ErrSyncRace) || res.Attempts != 3 || res.Pushed {
		t.Fatalf("sync against a remote that never stops: %+v, %v", res, err)
	}
	bh, _ := b.Head("main")
	if remoteHead(t, dir) != bh {
		t.Fatal("the remote is not where the other pusher left it")
	}
}

// TestLeaseRefusedByRemote: a command whose old value is not the remote's
// ref is refused by the remote itself (the race between advertisement
// and update), and the ref does not move.
func TestLeaseRefusedByRemote(t *testing.T) {
	base := t.TempDir()
	daemon, web := testenv.GitDaemon(t, base), startHTTP(t, base)
	for _, tr := range []string{"file", "git", "http"} {
		dir := bareRemote(t, base, tr+".git")
		url := map[string]string{"file": "file://" + dir, "git": daemon + tr + ".git", "http": web + tr + ".git"}[tr]
		a, _ := seededReplicas(t, url)
		before := remoteHead(t, dir)
		stale := commitFacts(t, a, "camelot", 300, 301).Commit // the remote never had it
		head := commitFacts(t, a, "camelot", 301, 302).Commit
		sess, adv := receivePack(t, url)
		err := a.sendLease(context.Background(), sess, adv, RefCommand{Ref: "refs/heads/main", Old: stale, New: head}, nil)
		sess.Close()
		var rs *reportError
		if !errors.As(err, &rs) {
			t.Fatalf("%s: a stale old value was not refused: %v", tr, err)
		}
		if remoteHead(t, dir) != before {
			t.Fatalf("%s: the remote moved under a stale lease", tr)
		}
		// And through pushLease: the advertisement already shows it.
		var le *leaseError
		if err := a.pushLease(context.Background(), remoteTarget{url: url}, "refs/heads/main", stale, head, nil); !errors.As(err, &le) {
			t.Fatalf("%s: pushLease over a stale lease: %v", tr, err)
		}
		if remoteHead(t, dir) != before {
			t.Fatalf("%s: the remote moved under a stale lease", tr)
		}
	}
}

// receivePack opens a push session to url and reads its advertisement.
func receivePack(t *testing.T, url string) (RemoteSession, *Advertisement) {
	t.Helper()
	sess, err := dial(context.Background(), url, ReceivePack)
	if err != nil {
		t.Fatal(err)
	}
	adv, err := sess.Advertised(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return sess, adv
}

// TestSyncRefusesCorruptIncoming: a remote whose branch real git moved
// onto content a lore branch must not hold is refused before any ref of
// the replica moves (not even origin/main), the replica pushes nothing
// over it, and the store keeps nothing of what it received.
func TestSyncRefusesCorruptIncoming(t *testing.T) {
	for name, edits := range badEdits(t) {
		t.Run(name, func(t *testing.T) {
			_, dir, side := corruptSide(t, edits, false)
			// The replica must not have the side branch's objects before
			// the sync: it clones the remote without that branch.
			git(t, dir, "--git-dir", dir, "update-ref", "-d", "refs/heads/side")
			c := cloneOf(t, dir)
			if ok, _ := c.db.Has(plumbing.Hash(side)); ok {
				t.Fatal("the clone already holds the side commit; the test would prove nothing")
			}
			commitFacts(t, c, "camelot", 20, 21)
			git(t, dir, "--git-dir", dir, "update-ref", "refs/heads/main", side.String())
			before := testenv.Branches(t, c.Dir())
			packs := dirState(t, filepath.Join(c.Dir(), "objects", "pack"))
			res, err := c.Sync(context.Background(), "origin", SyncOptions{})
			wantRefused(t, err)
			if res.Pushed {
				t.Fatal("a refused sync pushed")
			}
			testenv.SameBranches(t, "the refused sync", before, testenv.Branches(t, c.Dir()))
			// The refused pack was quarantined and discarded: not one of
			// its objects is in the store (DL-0403).
			sameState(t, packs, dirState(t, filepath.Join(c.Dir(), "objects", "pack")))
			if ok, err := c.db.Has(plumbing.Hash(side)); ok || err != nil {
				t.Fatalf("the refused commit is in the store: %v, %v", ok, err)
			}
			if remoteHead(t, dir) != side {
				t.Fatal("the remote moved")
			}
		})
	}
}

// TestSyncToEmptyURL: a sync to a bare URL (no named remote) whose
// repository is empty creates the branch there (the lease's old value is
// zero) and leaves no remote-tracking ref behind; a second sync has
// nothing to do.
func TestSyncToEmptyURL(t *testing.T) {
	dir := bareRemote(t, t.TempDir(), "empty.git")
	s, _ := newStore(t)
	head := commitFacts(t, s, "camelot", 0, 3).Commit
	url := "file://" + dir
	res, err := s.Sync(context.Background(), url, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Pushed || !res.Fetched.New.IsZero() || res.Head != head || remoteHead(t, dir) != head || res.Remote != url {
		t.Fatalf("sync to an empty remote: %+v", res)
	}
	if tracking, err := s.refs.List("refs/remotes/"); err != nil || len(tracking) != 0 {
		t.Fatalf("a URL sync left tracking refs %v (%v)", tracking, err)
	}
	res, err = s.Sync(context.Background(), url, SyncOptions{})
	if err != nil || res.Pushed || res.FastForward || len(res.Merges) != 0 || res.Fetched.New != head {
		t.Fatalf("second sync: %+v, %v", res, err)
	}
	fsckClean(t, dir)
}
