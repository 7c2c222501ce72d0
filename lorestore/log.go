// History: walking commits newest first, filtered by scope, object and op,
// the way `git log` walks them.

package lorestore

import (
	"container/heap"
	"errors"
	"fmt"
	"strings"

	"github.com/deloreis/deloreis/objects"
)

// LogOptions filter a history walk. Zero values filter nothing.
type LogOptions struct {
	From   string     // revision to start at (default HEAD), or a range (logStarts)
	Scope  string     // only commits that change this scope
	Object objects.ID // only commits that add this object
	Op     string     // only commits whose Lore-Op trailer is this
	Limit  int        // at most this many entries
}

// LogEntry is one commit of the history.
type LogEntry struct {
	Commit    Hash
	Parents   []Hash
	Tree      Hash
	Author    Signature
	Committer Signature
	Message   Message
}

// Log walks the history from a revision, newest commit first (by committer
// time, as git log does), and returns the entries that pass the filters.
func (s *Store) Log(o LogOptions) ([]LogEntry, error) {
	if o.Scope != "" {
		if err := checkScope(o.Scope); err != nil {
			return nil, err
		}
	}
	starts, hide, err := s.logStarts(o.From)
	if err != nil {
		return nil, err
	}
	var out []LogEntry
	w := newWalker(s)
	for _, start := range starts {
		if err := w.push(start); err != nil {
			return nil, err
		}
	}
	for w.Len() > 0 {
		h, c := w.pop()
		if hide[h] {
			continue // and so are its parents: hidden commits' ancestors are hidden
		}
		keep, err := s.logKeep(c, o)
		if err != nil {
			return nil, err
		}
		if keep {
			out = append(out, LogEntry{Commit: h, Parents: c.parents, Tree: c.tree, Author: c.author,
				Committer: c.committer, Message: parseMessage(c.message)})
			if o.Limit > 0 && len(out) >= o.Limit {
				break
			}
		}
		for _, p := range c.parents {
			if err := w.push(p); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// logStarts reads the revision Log starts from: a revision, or a range
// as git reads one. "A..B" is the commits reachable from B and not from A;
// "A...B" those reachable from A or from B but not from both; an empty
// side is HEAD. It returns where the walk starts and the commits it hides.
func (s *Store) logStarts(rev string) ([]Hash, map[Hash]bool, error) {
	sep := "..."
	i := strings.Index(rev, sep)
	if i < 0 {
		sep = ".."
		i = strings.Index(rev, sep)
	}
	if i < 0 {
		h, err := s.Resolve(rev)
		return []Hash{h}, nil, err
	}
	a, err := s.Resolve(rev[:i])
	if err != nil {
		return nil, nil, rangeError(rev, err)
	}
	b, err := s.Resolve(rev[i+len(sep):])
	if err != nil {
		return nil, nil, rangeError(rev, err)
	}
	hide, err := s.ancestors(a)
	if err != nil {
		return nil, nil, err
	}
	if sep == ".." {
		return []Hash{b}, hide, nil
	}
	fromB, err := s.ancestors(b)
	if err != nil {
		return nil, nil, err
	}
	for h := range hide {
		if !fromB[h] {
			delete(hide, h)
		}
	}
	return []Hash{a, b}, hide, nil
}

// rangeError names the range a side of which names no commit.
func rangeError(rev string, err error) error {
	var re *RevisionError
	if errors.As(err, &re) && re.Rev != rev {
		return &RevisionError{Rev: rev, Reason: fmt.Sprintf("%s: %s", re.Rev, re.Reason)}
	}
	return err
}

// ancestors are the commits reachable from h, h included.
func (s *Store) ancestors(h Hash) (map[Hash]bool, error) {
	w := newWalker(s)
	if err := w.push(h); err != nil {
		return nil, err
	}
	for w.Len() > 0 {
		_, c := w.pop()
		for _, p := range c.parents {
			if err := w.push(p); err != nil {
				return nil, err
			}
		}
	}
	return w.seen, nil
}

func (s *Store) logKeep(c *gitCommit, o LogOptions) (bool, error) {
	if o.Op != "" && parseMessage(c.message).Get(TrailerOp) != o.Op {
		return false, nil
	}
	if o.Scope != "" {
		changed, err := s.changedFromAllParents(c, func(tree Hash) (Hash, error) {
			return s.subtree(tree, scopesDir, o.Scope)
		})
		if err != nil || !changed {
			return false, err
		}
	}
	if o.Object != (objects.ID{}) {
		has, err := s.treeHasObject(c.tree, o.Object)
		if err != nil || !has {
			return false, err
		}
		for _, p := range c.parents {
			pc, err := s.readCommit(p)
			if err != nil {
				return false, err
			}
			if had, err := s.treeHasObject(pc.tree, o.Object); err != nil || had {
				return false, err
			}
		}
	}
	return true, nil
}

// changedFromAllParents reports whether the part of the tree key picks out
// differs from that part in every parent (a merge that takes one side's
// version unchanged is not a change, as in git's history simplification).
func (s *Store) changedFromAllParents(c *gitCommit, key func(Hash) (Hash, error)) (bool, error) {
	mine, err := key(c.tree)
	if err != nil {
		return false, err
	}
	if len(c.parents) == 0 {
		return !mine.IsZero(), nil
	}
	for _, p := range c.parents {
		pc, err := s.readCommit(p)
		if err != nil {
			return false, err
		}
		theirs, err := key(pc.tree)
		if err != nil {
			return false, err
		}
		if theirs == mine {
			return false, nil
		}
	}
	return true, nil
}

// subtree follows a path of names from a tree; zero when absent. The zero
// tree (the parent side of a root commit) holds nothing.
func (s *Store) subtree(tree Hash, path ...string) (Hash, error) {
	h := tree
	for _, name := range path {
		if h.IsZero() {
			return ZeroHash, nil
		}
		es, err := s.readTree(h)
		if err != nil {
			return ZeroHash, err
		}
		e, ok := findEntry(es, name)
		if !ok || !e.isTree() {
			return ZeroHash, nil
		}
		h = e.hash
	}
	return h, nil
}

// treeHasObject reports whether any scope of the tree files the object.
func (s *Store) treeHasObject(tree Hash, id objects.ID) (bool, error) {
	scopes, err := s.subtree(tree, scopesDir)
	if err != nil || scopes.IsZero() {
		return false, err
	}
	ses, err := s.readTree(scopes)
	if err != nil {
		return false, err
	}
	name := fileName(id)
	for _, se := range ses {
		if !se.isTree() {
			continue
		}
		for _, dir := range [][]string{{string(Claims), id.String()[:2]}, {string(Decisions)}, {string(Attacks)}} {
			d, err := s.subtree(se.hash, dir...)
			if err != nil {
				return false, err
			}
			if d.IsZero() {
				continue
			}
			es, err := s.readTree(d)
			if err != nil {
				return false, err
			}
			if _, ok := findEntry(es, name); ok {
				return true, nil
			}
		}
		st, err := s.subtree(se.hash, string(Standing))
		if err != nil || st.IsZero() {
			if err != nil {
				return false, err
			}
			continue
		}
		claims, err := s.readTree(st)
		if err != nil {
			return false, err
		}
		for _, ce := range claims {
			es, err := s.readTree(ce.hash)
			if err != nil {
				return false, err
			}
			if _, ok := findEntry(es, name); ok {
				return true, nil
			}
		}
	}
	return false, nil
}

// commitHeap is a queue of commits, newest first (by committer time, ties
// in the order they were added).
type commitHeap struct {
	s   *Store
	q   commitQueue
	seq int
}

func (h *commitHeap) Len() int { return h.q.Len() }

// add reads a commit and queues it.
func (h *commitHeap) add(x Hash) error {
	c, err := h.s.readCommit(x)
	if err != nil {
		return err
	}
	h.seq++
	heap.Push(&h.q, queued{h: x, c: c, seq: h.seq})
	return nil
}

// next takes the newest queued commit.
func (h *commitHeap) next() queued { return heap.Pop(&h.q).(queued) }

// walker yields commits newest first, each once.
type walker struct {
	commitHeap
	seen map[Hash]bool
}

func newWalker(s *Store) *walker {
	return &walker{commitHeap: commitHeap{s: s}, seen: map[Hash]bool{}}
}

func (w *walker) push(h Hash) error {
	if w.seen[h] {
		return nil
	}
	w.seen[h] = true
	return w.add(h)
}

func (w *walker) pop() (Hash, *gitCommit) {
	q := w.next()
	return q.h, q.c
}

type queued struct {
	h   Hash
	c   *gitCommit
	seq int
}

// commitQueue orders by committer time, newest first; ties in push order.
type commitQueue []queued

func (q commitQueue) Len() int { return len(q) }
func (q commitQueue) Less(i, j int) bool {
	ti, tj := q[i].c.committer.When, q[j].c.committer.When
	if !ti.Equal(tj) {
		return ti.After(tj)
	}
	return q[i].seq < q[j].seq
}
func (q commitQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(x any)   { *q = append(*q, x.(queued)) }
func (q *commitQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}
