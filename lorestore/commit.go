// Committing a batch: build the new trees over the parent's (reusing every
// unchanged subtree), write objects as one pack, and move the branch by
// compare-and-swap, rebasing an additive write onto a branch that moved.

package lorestore

import (
	"errors"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/deloreis/deloreis/jcs"
	"github.com/deloreis/deloreis/lorestore/odb"
	"github.com/deloreis/deloreis/lorestore/refs"
	"github.com/go-git/go-git/v5/plumbing"
)

// CommitOptions say where a commit goes and what the writer read.
type CommitOptions struct {
	// Branch to commit to; default main. It must exist.
	Branch string
	// Parent is the commit the writer read. Zero means the branch head as
	// it is when the commit starts.
	Parent plumbing.Hash
	// Refuse makes a moved branch a *StaleError instead of a rebase. Use it
	// when what is written depends on what was read (a materialize whose
	// findings were computed on Parent). A batch of puts alone is additive:
	// by default it is rebased onto the moved branch, at most
	// Options.MaxRetries times.
	Refuse bool
	// AllowEmpty writes a commit even when the tree does not change.
	AllowEmpty bool
}

// CommitResult tells what a commit did.
type CommitResult struct {
	Commit  plumbing.Hash // the new head (the old one if nothing changed)
	Parent  plumbing.Hash // the commit it was written on
	Retries int           // how often it rebased onto a moved branch
	Empty   bool          // the batch changed nothing; no commit was written
}

func sumID(data []byte) jcs.Digest { return jcs.Sum(data) }

// Commit writes the batch as one commit on a branch. A refused call (invalid
// message, unknown branch, stale parent under Refuse, read-only store)
// leaves refs and objects as they were.
func (s *Store) Commit(b *Batch, m Message, o CommitOptions) (CommitResult, error) {
	if s.ReadOnly() {
		return CommitResult{}, ErrReadOnly
	}
	if err := m.check(); err != nil {
		return CommitResult{}, err
	}
	if o.Branch == "" {
		o.Branch = DefaultBranch
	}
	ref, err := refs.BranchRef(o.Branch)
	if err != nil {
		return CommitResult{}, err
	}
	return s.commitLoop(ref, o, o.Parent, m, func(ob *odb.Batch, parent, base plumbing.Hash) (plumbing.Hash, []plumbing.Hash, error) {
		tree, err := s.applyBatch(ob, base, b)
		return tree, []plumbing.Hash{parent}, err
	})
}

// buildFunc writes the new root tree (and anything under it) into ob, given
// the commit being built upon and its tree, and names the new commit's
// parents.
type buildFunc func(ob *odb.Batch, parent, baseTree plumbing.Hash) (plumbing.Hash, []plumbing.Hash, error)

// commitLoop holds the write lock, builds on the branch head, writes one
// pack, and moves ref from that head to the new commit.
//
// parent is the commit the writer read (zero: whatever the head is). When
// the head is elsewhere by the time the lock is held, a Refuse write fails
// before writing anything; an additive one builds on the head. The
// compare-and-swap can then only lose to a writer outside deloreis (real
// git); an additive write then builds again, at most Options.MaxRetries
// times.
func (s *Store) commitLoop(ref string, o CommitOptions, parent plumbing.Hash, m Message, build buildFunc) (CommitResult, error) {
	unlock, err := s.lockWrites()
	if err != nil {
		return CommitResult{}, err
	}
	defer unlock()
	head, err := s.refs.Read(ref)
	if errors.Is(err, refs.ErrNotFound) {
		return CommitResult{}, branchNotFound(o.Branch)
	}
	if err != nil {
		return CommitResult{}, err
	}
	if !parent.IsZero() && parent != head && o.Refuse {
		return CommitResult{}, &StaleError{Branch: o.Branch, Expected: parent, Actual: head}
	}
	parent = head
	for attempt := 0; ; attempt++ {
		pc, err := s.readCommit(parent)
		if err != nil {
			return CommitResult{}, err
		}
		ob := s.db.NewBatch()
		tree, parents, err := build(ob, parent, pc.tree)
		if err != nil {
			return CommitResult{}, err
		}
		if tree == pc.tree && !o.AllowEmpty {
			return CommitResult{Commit: parent, Parent: parent, Retries: attempt, Empty: true}, nil
		}
		ch := ob.Add(plumbing.CommitObject, encodeCommit(s.newCommit(tree, parents, m)))
		if err := ob.Write(); err != nil {
			return CommitResult{}, err
		}
		err = s.refs.Update(ref, ch, parent)
		if err == nil {
			s.afterCommit()
			return CommitResult{Commit: ch, Parent: parent, Retries: attempt}, nil
		}
		// The pack holds only what this attempt wrote and nothing refers
		// to it: take it back, so a refused write stores nothing.
		_ = ob.Discard()
		var se *refs.StaleError
		if !errors.As(err, &se) {
			return CommitResult{}, err
		}
		if se.Actual.IsZero() {
			return CommitResult{}, branchNotFound(o.Branch)
		}
		if o.Refuse || attempt+1 >= s.opts.MaxRetries {
			return CommitResult{}, &StaleError{Branch: o.Branch, Expected: parent, Actual: se.Actual}
		}
		parent = se.Actual
		backoff(attempt)
	}
}

// backoff sleeps a short, growing, jittered time so that two writers that
// collided do not collide again in lockstep.
func backoff(attempt int) {
	limit := time.Duration(200<<min(attempt, 6)) * time.Microsecond
	time.Sleep(time.Duration(rand.Int64N(int64(limit))))
}

// afterCommit rolls small packs up once a commit is safely referenced, in
// the background: the commit is durable already, and a roll-up of a few
// dozen packs would otherwise land on one unlucky commit's latency. One
// roll-up at a time; Close waits for it. A failed roll-up loses nothing
// (the packs stay as they were) and the next commit tries again.
func (s *Store) afterCommit() {
	if !s.rolling.CompareAndSwap(false, true) {
		return
	}
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		defer s.rolling.Store(false)
		_ = s.db.MaybeConsolidate()
	}()
}

// applyBatch writes the batch's blobs and the trees that change into ob and
// returns the new root tree.
func (s *Store) applyBatch(ob *odb.Batch, base plumbing.Hash, b *Batch) (plumbing.Hash, error) {
	root := newDirIns()
	for _, p := range b.puts {
		h := ob.Add(plumbing.BlobObject, p.data)
		path := append([]string{scopesDir, p.scope}, p.dir...)
		if err := root.addFile(path, p.name, h); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	return s.writeTree(ob, base, root, "")
}

// writeTree merges the insertions of ins into the tree base (zero: an empty
// tree) and writes every tree that changes. Subtrees ins does not touch are
// reused by hash. The old entries are sorted already, so new ones are found
// by binary search and merged in, never re-sorted: a one-object commit on a
// big store costs a few tree encodings, not a sort of every shard.
func (s *Store) writeTree(ob *odb.Batch, base plumbing.Hash, ins *dirIns, path string) (plumbing.Hash, error) {
	var old []treeEntry
	if !base.IsZero() {
		var err error
		if old, err = s.readTree(base); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	var adds []treeEntry
	replace := map[int]plumbing.Hash{}
	for name, h := range ins.files {
		i, ok := entryIndex(old, name)
		if !ok {
			adds = append(adds, treeEntry{name: name, mode: modeBlob, hash: h})
			continue
		}
		if old[i].isTree() {
			return plumbing.ZeroHash, &CorruptError{Path: path + name, Reason: "a folder where a file belongs"}
		}
		if old[i].hash != h {
			// Names are content ids, so the same name with other bytes
			// means the stored blob was tampered with.
			return plumbing.ZeroHash, &CorruptError{Path: path + name, Reason: "stored blob differs from its id"}
		}
	}
	for name, sub := range ins.dirs {
		var subBase plumbing.Hash
		i, ok := entryIndex(old, name)
		if ok {
			if !old[i].isTree() {
				return plumbing.ZeroHash, &CorruptError{Path: path + name, Reason: "a file where a folder belongs"}
			}
			subBase = old[i].hash
		}
		h, err := s.writeTree(ob, subBase, sub, path+name+"/")
		if err != nil {
			return plumbing.ZeroHash, err
		}
		switch {
		case !ok:
			adds = append(adds, treeEntry{name: name, mode: modeTree, hash: h})
		case h != subBase:
			replace[i] = h
		}
	}
	if len(adds) == 0 && len(replace) == 0 {
		return base, nil
	}
	es := mergeEntries(old, adds, replace)
	data, err := encodeTree(es)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	h := ob.Add(plumbing.TreeObject, data)
	s.cacheTree(h, es)
	return h, nil
}

// entryIndex finds name in sorted entries, as a file or as a folder.
func entryIndex(es []treeEntry, name string) (int, bool) {
	for _, mode := range [2]uint32{modeBlob, modeTree} {
		probe := treeEntry{name: name, mode: mode}
		i := sort.Search(len(es), func(i int) bool { return !gitLess(es[i], probe) })
		if i < len(es) && es[i].name == name {
			return i, true
		}
	}
	return 0, false
}

// mergeEntries returns old with the replaced hashes and the new entries
// merged in, in git's order. old is not modified (it may be cached).
func mergeEntries(old, adds []treeEntry, replace map[int]plumbing.Hash) []treeEntry {
	sortEntries(adds)
	out := make([]treeEntry, 0, len(old)+len(adds))
	j := 0
	for i, e := range old {
		for j < len(adds) && gitLess(adds[j], e) {
			out = append(out, adds[j])
			j++
		}
		if h, ok := replace[i]; ok {
			e.hash = h
		}
		out = append(out, e)
	}
	return append(out, adds[j:]...)
}
