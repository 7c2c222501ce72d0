// Merging: the merge base of two commits, and the union merge of two
// branches over it, written as a two-parent commit. Conflicts in what the
// lore means are the world package's to report; here a merge is refused only
// when histories are unrelated or the merged tree would break the layout.

package lorestore

import (
	"errors"
	"strings"

	"github.com/deloreis/deloreis/lorestore/odb"
	"github.com/deloreis/deloreis/lorestore/refs"
	"github.com/go-git/go-git/v5/plumbing"
)

// MergeBase returns the best common ancestor of two commits (the newest, if
// criss-cross history leaves several), or ErrUnrelated.
func (s *Store) MergeBase(a, b Hash) (Hash, error) {
	bases, err := s.mergeBases(a, b)
	if err != nil {
		return ZeroHash, err
	}
	if len(bases) == 0 {
		return ZeroHash, ErrUnrelated
	}
	return bases[0], nil
}

const (
	fromA uint8 = 1 << iota
	fromB
	stale
)

// mergeBases paints commits reachable from a and from b, newest first, and
// collects those reached from both that no other such commit reaches.
func (s *Store) mergeBases(a, b Hash) ([]Hash, error) {
	if a == b {
		return []Hash{a}, nil
	}
	flags := map[Hash]uint8{a: fromA, b: fromB}
	q := &commitHeap{s: s}
	if err := q.add(a); err != nil {
		return nil, err
	}
	if err := q.add(b); err != nil {
		return nil, err
	}
	var found []Hash
	for q.Len() > 0 && !allStale(q.q, flags) {
		it := q.next()
		f := flags[it.h]
		if f&(fromA|fromB) == fromA|fromB && f&stale == 0 {
			found = append(found, it.h)
			f |= stale
			flags[it.h] = f
		}
		for _, p := range it.c.parents {
			if flags[p]&f == f {
				continue
			}
			flags[p] |= f
			if err := q.add(p); err != nil {
				return nil, err
			}
		}
	}
	// Drop any candidate that is an ancestor of another.
	var out []Hash
	for i, c := range found {
		redundant := false
		for j, d := range found {
			if i == j {
				continue
			}
			anc, err := s.IsAncestor(c, d)
			if err != nil {
				return nil, err
			}
			if anc {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, c)
		}
	}
	return out, nil
}

func allStale(q commitQueue, flags map[Hash]uint8) bool {
	for _, it := range q {
		if flags[it.h]&stale == 0 {
			return false
		}
	}
	return true
}

// IsAncestor reports whether commit a is reachable from commit b (a commit
// is its own ancestor). It does not prune the walk by commit dates: clocks
// of the machines that wrote a history disagree, and a date cut-off would
// then answer wrongly. The walk ends early when it meets a.
func (s *Store) IsAncestor(a, b Hash) (bool, error) {
	if a == b {
		return true, nil
	}
	if _, err := s.readCommit(a); err != nil {
		return false, err
	}
	w := newWalker(s)
	if err := w.push(b); err != nil {
		return false, err
	}
	for w.Len() > 0 {
		h, c := w.pop()
		if h == a {
			return true, nil
		}
		for _, p := range c.parents {
			if err := w.push(p); err != nil {
				return false, err
			}
		}
	}
	return false, nil
}

// MergeOptions say where a merge goes.
type MergeOptions struct {
	Target  string  // branch merged into; default main
	Message Message // default: "merge <source> into <target>" with Lore-Op: merge
	Refuse  bool    // refuse, rather than redo, when the target moves meanwhile
	// FastForward moves the target to the source, writing no commit, when
	// the target is an ancestor of the source (as git pull does).
	FastForward bool
}

// MergeResult tells what a merge did.
type MergeResult struct {
	Commit   Hash // the new head of the target
	Base     Hash // the merge base
	Target   Hash // the target head merged into
	Source   Hash // the source commit merged
	UpToDate bool // the source was already merged; nothing written
	// FastForward: the target was an ancestor of the source and now
	// points at it; Commit is the source and nothing was written.
	FastForward bool
	Retries     int
}

// Merge merges a source revision into a target branch: the union of both
// sides over their merge base, written as a commit whose parents are the
// target head and the source. It refuses unrelated histories.
func (s *Store) Merge(source string, o MergeOptions) (MergeResult, error) {
	if s.ReadOnly() {
		return MergeResult{}, ErrReadOnly
	}
	if o.Target == "" {
		o.Target = DefaultBranch
	}
	ref, err := refs.BranchRef(o.Target)
	if err != nil {
		return MergeResult{}, err
	}
	src, err := s.Resolve(source)
	if err != nil {
		return MergeResult{}, err
	}
	if o.Message.Summary == "" {
		o.Message = NewMessage("merge "+source+" into "+o.Target, "merge", "")
	}
	if err := o.Message.check(); err != nil {
		return MergeResult{}, err
	}
	head, err := s.Head(o.Target)
	if err != nil {
		return MergeResult{}, err
	}
	// Whatever the source brings that the target lacks is checked before
	// the target can move: a branch never holds content that is not a
	// valid lorestore. (Should the target move meanwhile, what it gains is
	// on a branch already, hence trusted.)
	if err := s.verifyNew(src, []Hash{head}); err != nil {
		return MergeResult{}, err
	}
	if o.FastForward {
		if r, done, err := s.fastForward(ref, o, head, src); done || err != nil {
			return r, err
		}
	}
	res := MergeResult{Source: src}
	build := func(ob *odb.Batch, target, targetTree Hash) (Hash, []Hash, error) {
		base, err := s.MergeBase(target, src)
		if err != nil {
			return ZeroHash, nil, err
		}
		res.Base, res.Target = base, target
		if base == src {
			return targetTree, nil, errUpToDate
		}
		bc, err := s.readCommit(base)
		if err != nil {
			return ZeroHash, nil, err
		}
		sc, err := s.readCommit(src)
		if err != nil {
			return ZeroHash, nil, err
		}
		tree, err := s.merge3(ob, bc.tree, targetTree, sc.tree, "")
		return tree, []Hash{target, src}, err
	}
	cr, err := s.commitLoop(ref, CommitOptions{Branch: o.Target, Refuse: o.Refuse, AllowEmpty: true}, head, o.Message, build)
	if err == errUpToDate {
		res.UpToDate, res.Commit = true, res.Target
		return res, nil
	}
	if err != nil {
		return MergeResult{}, err
	}
	res.Commit, res.Retries = cr.Commit, cr.Retries
	return res, nil
}

var errUpToDate = &MergeError{Path: "/", Reason: "already up to date"}

// fastForward moves ref from the target head to src when the head is an
// ancestor of src (done), by compare-and-swap under the write lock; a head
// that moved meanwhile is looked at again. done is false when the two
// have diverged: the caller writes a merge commit.
func (s *Store) fastForward(ref string, o MergeOptions, head, src Hash) (MergeResult, bool, error) {
	unlock, err := s.lockWrites()
	if err != nil {
		return MergeResult{}, false, err
	}
	defer unlock()
	for attempt := 0; ; attempt++ {
		base, err := s.MergeBase(head, src)
		if err != nil {
			return MergeResult{}, false, err
		}
		res := MergeResult{Commit: src, Base: base, Target: head, Source: src, Retries: attempt}
		switch base {
		case src:
			res.UpToDate, res.Commit = true, head
			return res, true, nil
		case head:
		default:
			return MergeResult{}, false, nil
		}
		err = s.refs.Update(ref, plumbing.Hash(src), plumbing.Hash(head))
		if err == nil {
			res.FastForward = true
			return res, true, nil
		}
		var se *refs.StaleError
		if !errors.As(err, &se) {
			return MergeResult{}, false, err
		}
		if se.Actual.IsZero() {
			return MergeResult{}, false, branchNotFound(o.Target)
		}
		if o.Refuse || attempt+1 >= s.opts.MaxRetries {
			return MergeResult{}, false, &StaleError{Branch: o.Target, Expected: head, Actual: Hash(se.Actual)}
		}
		head = Hash(se.Actual)
	}
}

// merge3 merges the trees ours and theirs over base, entry by entry,
// reusing every subtree one side left alone.
func (s *Store) merge3(ob *odb.Batch, base, ours, theirs Hash, path string) (Hash, error) {
	switch {
	case ours == theirs, base == theirs:
		return ours, nil
	case base == ours:
		return theirs, nil
	}
	read := func(h Hash) (map[string]treeEntry, error) {
		m := map[string]treeEntry{}
		if h.IsZero() {
			return m, nil
		}
		es, err := s.readTree(h)
		for _, e := range es {
			m[e.name] = e
		}
		return m, err
	}
	b, err := read(base)
	if err != nil {
		return ZeroHash, err
	}
	o, err := read(ours)
	if err != nil {
		return ZeroHash, err
	}
	t, err := read(theirs)
	if err != nil {
		return ZeroHash, err
	}
	names := map[string]struct{}{}
	for _, m := range []map[string]treeEntry{b, o, t} {
		for n := range m {
			names[n] = struct{}{}
		}
	}
	var out []treeEntry
	for n := range names {
		e, keep, err := s.merge3Entry(ob, b[n], o[n], t[n], path+n)
		if err != nil {
			return ZeroHash, err
		}
		if keep {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return ZeroHash, nil
	}
	sortEntries(out)
	data, err := encodeTree(out)
	if err != nil {
		return ZeroHash, err
	}
	h := ob.Add(plumbing.TreeObject, data)
	s.cacheTree(Hash(h), out)
	return Hash(h), nil
}

// merge3Entry merges one name; a zero entry means absent on that side.
func (s *Store) merge3Entry(ob *odb.Batch, b, o, t treeEntry, path string) (treeEntry, bool, error) {
	present := func(e treeEntry) bool { return !e.hash.IsZero() }
	switch {
	case o == t:
		return o, present(o), nil
	case o == b:
		return t, present(t), nil
	case t == b:
		return o, present(o), nil
	}
	// Folders on every side that has the name: an absent one is an empty
	// folder, so a side that removed a folder's last file merges with a
	// side that added to it.
	bothTrees := (!present(o) || o.isTree()) && (!present(t) || t.isTree()) && (!present(b) || b.isTree())
	if bothTrees {
		h, err := s.merge3(ob, b.hash, o.hash, t.hash, path+"/")
		if err != nil || h.IsZero() {
			return treeEntry{}, false, err
		}
		name := o.name
		if !present(o) {
			name = t.name
		}
		return treeEntry{name: name, mode: modeTree, hash: h}, true, nil
	}
	reason := "both sides changed it differently"
	parts := strings.Split(path, "/")
	// Files named otherwise than by their content (DKE modules, the
	// project's declaration) may well differ between two sound sides.
	module := len(parts) == 4 && parts[0] == dkeDir && parts[2] == dkeModulesDir
	declared := len(parts) == 3 && parts[0] == projectDir
	switch {
	case declared:
		reason = "both sides changed this declaration differently; make one side's match the other's, then merge again"
	case strings.HasSuffix(path, ".json") && present(o) && present(t) && !module:
		reason = "an object file differs between the sides, so one side's store is corrupt"
	}
	return treeEntry{}, false, &MergeError{Path: path, Reason: reason}
}
