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
	Parent Hash
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
	Commit  Hash // the new head (the old one if nothing changed)
	Parent  Hash // the commit it was written on
	Retries int  // how often it rebased onto a moved branch
	Empty   bool // the batch changed nothing; no commit was written
}

func sumID(data []byte) jcs.Digest { return jcs.Sum(data) }

// Commit writes the batch as one commit on a branch. A refused call (invalid
// message, unknown branch, stale parent under Refuse, read-only store)
// leaves refs and objects as they were. A streaming batch (Store.NewBatch)
// is spent by the call, whatever its outcome.
func (s *Store) Commit(b *Batch, m Message, o CommitOptions) (CommitResult, error) {
	if b.ob != nil {
		if b.spent {
			return CommitResult{}, ErrBatchSpent
		}
		defer b.Close() // drops the spooled blobs unless a Write took them
		if b.store != s {
			return CommitResult{}, errors.New("lorestore: the batch streams into another store")
		}
	}
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
	// Only a small commit's trees are worth caching: a big one's shards
	// would stay in memory long after the commit.
	cache := b.n <= maxCachedWriteObjects
	return s.commitLoopWith(ref, o, o.Parent, m, b.ob, func(ob *odb.Batch, parent, base Hash) (Hash, []Hash, error) {
		tree, err := s.writeTree(ob, base, b, b.root, "", cache)
		return tree, []Hash{parent}, err
	})
}

// maxCachedWriteObjects bounds the commits whose new trees are cached.
const maxCachedWriteObjects = 4096

// buildFunc writes the new root tree (and anything under it) into ob, given
// the commit being built upon and its tree, and names the new commit's
// parents.
type buildFunc func(ob *odb.Batch, parent, baseTree Hash) (Hash, []Hash, error)

// commitLoop holds the write lock, builds on the branch head, writes one
// pack, and moves ref from that head to the new commit.
//
// parent is the commit the writer read (zero: whatever the head is). When
// the head is elsewhere by the time the lock is held, a Refuse write fails
// before writing anything; an additive one builds on the head. The
// compare-and-swap can then only lose to a writer outside deloreis (real
// git); an additive write then builds again, at most Options.MaxRetries
// times.
func (s *Store) commitLoop(ref string, o CommitOptions, parent Hash, m Message, build buildFunc) (CommitResult, error) {
	return s.commitLoopWith(ref, o, parent, m, nil, build)
}

// commitLoopWith is commitLoop whose first attempt writes into first (a
// streaming batch's pack, blobs in it already) when first is not nil. A
// later attempt writes only its trees and commit: the blobs are in the
// first attempt's pack, which is then kept until the loop ends, and taken
// back with every other pack of the loop if it fails.
func (s *Store) commitLoopWith(ref string, o CommitOptions, parent Hash, m Message, first *odb.Batch, build buildFunc) (CommitResult, error) {
	if err := s.authorKnown(); err != nil {
		return CommitResult{}, err // a streaming batch's blobs go with its Close
	}
	head, unlock, err := s.lockedHead(ref, o, parent)
	if err != nil {
		return CommitResult{}, err
	}
	defer unlock()
	parent = head
	var kept []*odb.Batch // written packs later attempts rely on
	fail := func(err error) (CommitResult, error) {
		for _, ob := range kept {
			_ = ob.Discard()
		}
		return CommitResult{}, err
	}
	for attempt := 0; ; attempt++ {
		pc, err := s.readCommit(parent)
		if err != nil {
			return fail(err)
		}
		ob := first
		if ob == nil || attempt > 0 {
			ob = s.db.NewBatch()
		}
		tree, parents, err := build(ob, parent, pc.tree)
		if err != nil {
			ob.Abort()
			return fail(err)
		}
		if tree == pc.tree && !o.AllowEmpty {
			// A kept pack stays: the head now holds the same tree, whose
			// blobs may have been taken from that very pack.
			ob.Abort()
			return CommitResult{Commit: parent, Parent: parent, Retries: attempt, Empty: true}, nil
		}
		ch := ob.Add(plumbing.CommitObject, encodeCommit(s.newCommit(tree, parents, m)))
		if err := ob.Write(); err != nil {
			return fail(err)
		}
		err = s.refs.Update(ref, ch, plumbing.Hash(parent))
		if err == nil {
			s.afterCommit()
			return CommitResult{Commit: Hash(ch), Parent: parent, Retries: attempt}, nil
		}
		if ob == first {
			kept = append(kept, ob)
		} else {
			// The pack holds only what this attempt wrote and nothing
			// refers to it: take it back, so a refused write stores
			// nothing.
			_ = ob.Discard()
		}
		var se *refs.StaleError
		if !errors.As(err, &se) {
			return fail(err)
		}
		if se.Actual.IsZero() {
			return fail(branchNotFound(o.Branch))
		}
		if o.Refuse || attempt+1 >= s.opts.MaxRetries {
			return fail(&StaleError{Branch: o.Branch, Expected: parent, Actual: Hash(se.Actual)})
		}
		parent = Hash(se.Actual)
		backoff(attempt)
	}
}

// backoff sleeps a short, growing, jittered time so that two writers that
// collided do not collide again in lockstep.
// lockedHead takes the write lock and reads the branch's head under it,
// refusing a stale expected parent when o.Refuse is set. The caller runs
// unlock when its commit is done.
func (s *Store) lockedHead(ref string, o CommitOptions, parent Hash) (Hash, func(), error) {
	unlock, err := s.lockWrites()
	if err != nil {
		return ZeroHash, nil, err
	}
	head, err := s.refs.Read(ref)
	if errors.Is(err, refs.ErrNotFound) {
		err = branchNotFound(o.Branch)
	}
	if err == nil && !parent.IsZero() && parent != Hash(head) && o.Refuse {
		err = &StaleError{Branch: o.Branch, Expected: parent, Actual: Hash(head)}
	}
	if err != nil {
		unlock()
		return ZeroHash, nil, err
	}
	return Hash(head), unlock, nil
}

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

// writeTree applies the changes of ins to the tree base (zero: an empty
// tree) and writes every tree that changes, each once. Subtrees ins does
// not touch are reused by hash. The old entries are sorted already, so new
// ones are found by binary search and merged in: a one-file commit on a
// big store costs a few tree encodings, not a sort of every shard. A
// folder left empty is dropped (git has no empty trees) and the zero hash
// returned for it. Blobs of an in-memory batch are written here; a
// streaming batch's are in ob already. cache keeps the new trees decoded
// in the store's cache.
func (s *Store) writeTree(ob *odb.Batch, base Hash, b *Batch, ins *dirIns, path string, cache bool) (Hash, error) {
	if ins.drop {
		base = ZeroHash
	}
	var old []treeEntry
	if !base.IsZero() {
		var err error
		if old, err = s.readTree(base); err != nil {
			return ZeroHash, err
		}
	}
	ed := treeEdit{replace: map[int]Hash{}}
	var err error
	if ed.adds, err = fileAdds(ob, old, b, ins.sortedFiles(), path); err != nil {
		return ZeroHash, err
	}
	if err := ed.files(ob, old, b, ins, path); err != nil {
		return ZeroHash, err
	}
	for name, sub := range ins.dirs {
		var subBase Hash
		i, ok := entryIndex(old, name)
		if ok {
			if !old[i].isTree() {
				return ZeroHash, &CorruptError{Path: path + name, Reason: "a file where a folder belongs"}
			}
			subBase = old[i].hash
		}
		h, err := s.writeTree(ob, subBase, b, sub, path+name+"/", cache)
		if err != nil {
			return ZeroHash, err
		}
		switch {
		case !ok && !h.IsZero():
			ed.adds = append(ed.adds, treeEntry{name: name, mode: modeTree, hash: h})
		case ok && h.IsZero():
			ed.drop(i)
		case ok && h != subBase:
			ed.replace[i] = h
		}
	}
	if len(ed.adds) == 0 && len(ed.replace) == 0 && len(ed.drops) == 0 {
		return base, nil
	}
	es := mergeEntries(old, ed.adds, ed.replace, ed.drops)
	if len(es) == 0 {
		return ZeroHash, nil
	}
	data, err := encodeTree(es)
	if err != nil {
		return ZeroHash, err
	}
	h := ob.Add(plumbing.TreeObject, data)
	if cache {
		s.cacheTree(Hash(h), es)
	}
	return Hash(h), nil
}

// treeEdit is what changes in one tree: entries to add, old entries
// whose hash is replaced, and old entries dropped (by index).
type treeEdit struct {
	adds    []treeEntry
	replace map[int]Hash
	drops   map[int]bool
}

func (ed *treeEdit) drop(i int) {
	if ed.drops == nil {
		ed.drops = map[int]bool{}
	}
	ed.drops[i] = true
}

// files adds or replaces the named files of ins and drops the removed
// ones old holds; removing a file old lacks changes nothing.
func (ed *treeEdit) files(ob *odb.Batch, old []treeEntry, b *Batch, ins *dirIns, path string) error {
	for name, n := range ins.named {
		blob := n.blob
		if n.data >= 0 {
			blob = Hash(ob.Add(plumbing.BlobObject, b.data[n.data]))
		}
		i, ok := entryIndex(old, name)
		switch {
		case !ok:
			ed.adds = append(ed.adds, treeEntry{name: name, mode: modeBlob, hash: blob})
		case old[i].isTree():
			return &CorruptError{Path: path + name, Reason: "a folder where a file belongs"}
		case old[i].hash != blob:
			ed.replace[i] = blob
		}
	}
	for name := range ins.removes {
		i, ok := entryIndex(old, name)
		if !ok {
			continue
		}
		if old[i].isTree() {
			return &CorruptError{Path: path + name, Reason: "a folder where a file belongs"}
		}
		ed.drop(i)
	}
	return nil
}

// fileAdds returns the entries of files that old lacks, writing the blobs
// of an in-memory batch into ob. A file old has already must have the same
// blob: names are content ids, so other bytes mean tampering.
func fileAdds(ob *odb.Batch, old []treeEntry, b *Batch, files []fileIns, path string) ([]treeEntry, error) {
	var adds []treeEntry
	for i := range files {
		f := &files[i]
		if f.data >= 0 {
			f.blob = Hash(ob.Add(plumbing.BlobObject, b.data[f.data]))
		}
		name := fileName(f.id)
		j, ok := entryIndex(old, name)
		if !ok {
			adds = append(adds, treeEntry{name: name, mode: modeBlob, hash: f.blob})
			continue
		}
		if old[j].isTree() {
			return nil, &CorruptError{Path: path + name, Reason: "a folder where a file belongs"}
		}
		if old[j].hash != f.blob {
			return nil, &CorruptError{Path: path + name, Reason: "stored blob differs from its id"}
		}
	}
	return adds, nil
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

// mergeEntries returns old without the dropped entries, with the replaced
// hashes and the new entries merged in, in git's order. old is not
// modified (it may be cached).
func mergeEntries(old, adds []treeEntry, replace map[int]Hash, drops map[int]bool) []treeEntry {
	sortEntries(adds)
	out := make([]treeEntry, 0, len(old)+len(adds))
	j := 0
	for i, e := range old {
		for j < len(adds) && gitLess(adds[j], e) {
			out = append(out, adds[j])
			j++
		}
		if drops[i] {
			continue
		}
		if h, ok := replace[i]; ok {
			e.hash = h
		}
		out = append(out, e)
	}
	return append(out, adds[j:]...)
}
