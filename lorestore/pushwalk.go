// What a push must send: the commits the remote lacks, found by painting
// from the remote's refs, and for each the tree entries that differ from
// every parent's entry at the same path. The cost follows the size of the
// change, not the size of the history or of the world.

package lorestore

const (
	wanted uint8 = 1 << iota
	remoteHas
)

// objectsToPush lists every object reachable from tips that the remote,
// which has known and all they reach, may lack. It may list a few objects
// the remote has (harmless); it never leaves out one it lacks.
func (s *Store) objectsToPush(tips, known []Hash) ([]Hash, error) {
	commits, err := s.newCommits(tips, known)
	if err != nil {
		return nil, err
	}
	out := make([]Hash, 0, len(commits)*8)
	sent := make(map[Hash]struct{})
	for _, h := range commits {
		c, err := s.readCommit(h)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
		var olds []Hash
		for _, p := range c.parents {
			pc, err := s.readCommit(p)
			if err != nil {
				return nil, err
			}
			olds = append(olds, pc.tree)
		}
		if out, err = s.diffTree(c.tree, olds, sent, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// newCommits walks from tips and from the remote's commits at once, newest
// first, marking everything the remote's commits reach; it stops when only
// remote-reached commits are left to walk.
func (s *Store) newCommits(tips, known []Hash) ([]Hash, error) {
	flags := map[Hash]uint8{}
	q := &commitHeap{s: s}
	push := func(h Hash, f uint8) error {
		old, seen := flags[h]
		if seen && old&f == f {
			return nil
		}
		flags[h] = old | f
		if seen {
			return nil // already queued or walked; its flag is updated in place
		}
		return q.add(h)
	}
	for _, h := range known {
		if ok, _ := s.hasCommit(h); ok {
			if err := push(h, remoteHas); err != nil {
				return nil, err
			}
		}
	}
	for _, h := range tips {
		if err := push(h, wanted); err != nil {
			return nil, err
		}
	}
	var order []Hash
	walked := map[Hash]bool{}
	for q.Len() > 0 && !onlyRemote(q.q, flags) {
		it := q.next()
		walked[it.h] = true
		f := flags[it.h]
		if f&remoteHas == 0 {
			order = append(order, it.h)
		}
		for _, p := range it.c.parents {
			if err := s.markParent(p, f, flags, walked, push); err != nil {
				return nil, err
			}
		}
	}
	var out []Hash
	for _, h := range order {
		if flags[h]&remoteHas == 0 {
			out = append(out, h)
		}
	}
	return out, nil
}

// markParent passes a commit's flags to its parent. A parent still queued
// just takes the flag; one already walked as wanted that turns out to be on
// the remote is re-flagged (the final filter drops it) and so are its
// ancestors.
func (s *Store) markParent(p Hash, f uint8, flags map[Hash]uint8, walked map[Hash]bool, push func(Hash, uint8) error) error {
	if f&remoteHas == 0 {
		return push(p, f)
	}
	stack := []Hash{p}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		old, seen := flags[h]
		if !seen {
			if err := push(h, remoteHas); err != nil {
				return err
			}
			continue
		}
		if old&remoteHas != 0 {
			continue
		}
		flags[h] = old | remoteHas
		if !walked[h] {
			continue // still queued: its own turn passes the flag on
		}
		c, err := s.readCommit(h)
		if err != nil {
			return err
		}
		stack = append(stack, c.parents...)
	}
	return nil
}

func onlyRemote(q commitQueue, flags map[Hash]uint8) bool {
	for _, it := range q {
		if flags[it.h]&remoteHas == 0 {
			return false
		}
	}
	return true
}

// diffTree appends tree and every object under it that differs from the
// entry at the same path in all of olds. Objects equal to an old entry are
// on the remote or sent with the parent that holds them.
func (s *Store) diffTree(tree Hash, olds []Hash, sent map[Hash]struct{}, out []Hash) ([]Hash, error) {
	for _, o := range olds {
		if o == tree {
			return out, nil
		}
	}
	if _, ok := sent[tree]; ok {
		return out, nil
	}
	sent[tree] = struct{}{}
	out = append(out, tree)
	es, err := s.readTree(tree)
	if err != nil {
		return nil, err
	}
	oldEntries := make([][]treeEntry, len(olds))
	for i, o := range olds {
		if oldEntries[i], err = s.readTree(o); err != nil {
			return nil, err
		}
	}
	for _, e := range es {
		var subOlds []Hash
		same := false
		for _, oes := range oldEntries {
			oe, ok := findEntry(oes, e.name)
			if !ok {
				continue
			}
			if oe.hash == e.hash {
				same = true
				break
			}
			if oe.isTree() {
				subOlds = append(subOlds, oe.hash)
			}
		}
		if same {
			continue
		}
		if e.isTree() {
			if out, err = s.diffTree(e.hash, subOlds, sent, out); err != nil {
				return nil, err
			}
			continue
		}
		if e.mode == 0o160000 { // a gitlink names a commit elsewhere; nothing to send
			continue
		}
		if _, ok := sent[e.hash]; !ok {
			sent[e.hash] = struct{}{}
			out = append(out, e.hash)
		}
	}
	return out, nil
}
