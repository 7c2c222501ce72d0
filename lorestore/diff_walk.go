// The tree diff's walk. It reports files as it finds them, in the order
// the diff has always reported them (a folder's added and changed entries
// in tree order, then its removed ones), while a few goroutines read the
// next changed subtrees ahead of it: on a big commit inflating the trees
// is most of the work, and a short diff over a big parent reads both
// sides of each changed folder at once. Each level of the walk holds its
// two trees and at most readAhead pairs of subtrees read ahead, so memory
// grows with the depth of the tree, not with the number of changes.

package lorestore

import (
	"runtime"
	"sync"
)

// readAhead is how many pairs of subtrees a level of the walk reads ahead
// of the one it is reporting.
const readAhead = 2

// rawDiffFn is diffFn with the file's name as it lies in the tree's bytes
// (valid only during the call).
type rawDiffFn func(path []string, name []byte, blob Hash, removed, replaced bool) error

// differ walks the diff of two trees, reporting files to fn.
type differ struct {
	s   *Store
	fn  rawDiffFn
	sem chan struct{} // bounds the trees being read at once
	// reads counts the reads under way: diff waits for them all, so that
	// none touches the store after it returns (even on an error).
	reads sync.WaitGroup
}

func newDiffer(s *Store, fn rawDiffFn) *differ {
	return &differ{s: s, fn: fn, sem: make(chan struct{}, runtime.GOMAXPROCS(0))}
}

// diff reports the files of newTree that oldTree lacks or holds otherwise,
// and those of oldTree that newTree lacks.
func (d *differ) diff(oldTree, newTree Hash, path []string) error {
	if oldTree == newTree {
		return nil
	}
	defer d.reads.Wait()
	return d.walk(d.read(oldTree), d.read(newTree), path)
}

// treeRead is a tree being read by another goroutine.
type treeRead struct {
	done chan struct{} // nil for the zero tree
	es   []rawEntry
	err  error
}

// read starts reading tree h (the zero hash is an empty tree).
func (d *differ) read(h Hash) *treeRead {
	r := &treeRead{}
	if h.IsZero() {
		return r
	}
	r.done = make(chan struct{})
	d.reads.Add(1)
	go func() {
		defer d.reads.Done()
		d.sem <- struct{}{}
		r.es, r.err = d.s.readRawTree(h)
		<-d.sem
		close(r.done)
	}()
	return r
}

func (r *treeRead) wait() ([]rawEntry, error) {
	if r.done != nil {
		<-r.done
	}
	return r.es, r.err
}

// level is one pair of trees being diffed. Its steps are numbered: first
// the entries of the new tree, then those of the old one.
type level struct {
	olds, news []rawEntry
	match      []int32 // see matchEntries
	matched    []bool
}

// step is what step k of a level reports: its entry e (added when adding,
// else removed) and the entry other of the same name on the other side,
// if any; ok is false when step k reports nothing.
func (l *level) step(k int) (e, other *rawEntry, adding, ok bool) {
	if k < len(l.news) {
		e = &l.news[k]
		if m := l.match[k]; m >= 0 {
			other = &l.olds[m]
			if other.hash == e.hash {
				return nil, nil, false, false
			}
		}
		return e, other, true, true
	}
	i := k - len(l.news)
	if l.matched[i] {
		return nil, nil, false, false
	}
	return &l.olds[i], nil, false, true
}

// descent returns the pair of trees a step goes down into, if any: a
// folder on either side, against its counterpart when that is a folder
// too; or, when a folder became a file, the old folder, all of it removed.
func descent(e, other *rawEntry, adding bool) (oldTree, newTree Hash, ok bool) {
	if e.isTree() {
		var otherTree Hash
		if other != nil && other.isTree() {
			otherTree = other.hash
		}
		if adding {
			return otherTree, e.hash, true
		}
		return e.hash, otherTree, true
	}
	if adding && other != nil && other.isTree() {
		return other.hash, ZeroHash, true
	}
	return ZeroHash, ZeroHash, false
}

// pending is a pair of subtrees read ahead, in the order of the steps
// that go down into them.
type pending struct{ old, new *treeRead }

// walk diffs one pair of trees being read, reporting its files and going
// down into its changed folders.
func (d *differ) walk(oldRead, newRead *treeRead, path []string) error {
	olds, err := oldRead.wait()
	if err != nil {
		return err
	}
	news, err := newRead.wait()
	if err != nil {
		return err
	}
	l := level{olds: olds, news: news}
	l.match, l.matched = matchEntries(olds, news)
	n := len(news) + len(olds)
	var ahead []pending
	next := 0 // the first step not yet looked at for reading ahead
	fill := func() {
		for len(ahead) < readAhead && next < n {
			if e, other, adding, ok := l.step(next); ok {
				if ot, nt, ok := descent(e, other, adding); ok {
					ahead = append(ahead, pending{d.read(ot), d.read(nt)})
				}
			}
			next++
		}
	}
	fill()
	for k := range n {
		e, other, adding, ok := l.step(k)
		if !ok {
			continue
		}
		if !e.isTree() {
			if err := d.fn(path, e.name, e.hash, !adding, adding && other != nil && !other.isTree()); err != nil {
				return err
			}
		}
		if _, _, ok := descent(e, other, adding); !ok {
			continue
		}
		// Every earlier descent was taken, so the first pending one is
		// this step's (fill reaches it when the queue is empty).
		fill()
		p := ahead[0]
		ahead = ahead[1:]
		fill()
		sub := append(path[:len(path):len(path)], string(e.name))
		if err := d.walk(p.old, p.new, sub); err != nil {
			return err
		}
	}
	return nil
}
