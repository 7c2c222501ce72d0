// Scope diffs: what one scope gained and lost between two commits, found
// by walking only the subtrees whose hashes differ, with the objects it
// gained read and checked against their ids. A commit's world is derived
// from an earlier commit's world and this diff (author's world cache).

package lorestore

import (
	"strings"

	"github.com/deloreis/deloreis/objects"
)

// ScopeDelta is what one scope of a snapshot holds that another's does
// not (Added, read and checked) and what it no longer holds (Removed).
type ScopeDelta struct {
	Added   []Entry
	Removed []objects.ID
}

// ScopeDiff is the change of one scope from the snapshot from to sn, in
// every section LoadScope-style readers read (Kinds). Only the subtrees
// whose hashes differ are read, so a commit of k objects over a scope of
// millions costs what k costs. A file whose name is kept but whose bytes
// changed is read again (and so checked against its id).
func (sn *Snapshot) ScopeDiff(from *Snapshot, scope string) (ScopeDelta, error) {
	return sn.ScopeDiffWith(from, scope, nil)
}

// ScopeDiffWith is ScopeDiff taking the added objects that have knows from
// it instead of reading them: objects are named by their content, so an
// object of that id is the object (a merge takes the source side's from
// its world). A nil have reads everything.
func (sn *Snapshot) ScopeDiffWith(from *Snapshot, scope string, have func(objects.ID) (objects.Object, bool)) (ScopeDelta, error) {
	if err := checkScope(scope); err != nil {
		return ScopeDelta{}, err
	}
	var d scopeWalk
	for _, k := range Kinds {
		path := []string{scopesDir, scope, string(k)}
		oldTree, _, err := from.walk(path...)
		if err != nil {
			return ScopeDelta{}, err
		}
		newTree, _, err := sn.walk(path...)
		if err != nil {
			return ScopeDelta{}, err
		}
		depth := 0
		if k == Claims || k == Standing {
			depth = 1 // sharded by id prefix, or grouped by the claim revised
		}
		if err := sn.s.diffSection(oldTree, newTree, strings.Join(path, "/")+"/", depth, &d); err != nil {
			return ScopeDelta{}, err
		}
	}
	var known []Entry
	if have != nil {
		unknown := d.added[:0]
		for _, f := range d.added {
			if o, ok := have(f.id); ok {
				known = append(known, Entry{ID: f.id, Object: o})
			} else {
				unknown = append(unknown, f)
			}
		}
		d.added = unknown
	}
	added, err := sn.readFiles(d.added)
	if err != nil {
		return ScopeDelta{}, err
	}
	return ScopeDelta{Added: append(known, added...), Removed: d.removed}, nil
}

// scopeWalk gathers what diffSection finds.
type scopeWalk struct {
	added   []fileRef
	removed []objects.ID
}

// diffSection compares two trees of one section, descending depth folder
// levels to the object files, and only where hashes differ.
func (s *Store) diffSection(oldTree, newTree Hash, path string, depth int, d *scopeWalk) error {
	if oldTree == newTree {
		return nil
	}
	read := func(h Hash) ([]treeEntry, error) {
		if h.IsZero() {
			return nil, nil
		}
		return s.readTree(h)
	}
	olds, err := read(oldTree)
	if err != nil {
		return err
	}
	news, err := read(newTree)
	if err != nil {
		return err
	}
	for _, ne := range news {
		oe, had := findEntry(olds, ne.name)
		if had && oe.hash == ne.hash {
			continue
		}
		var old Hash
		if had && oe.isTree() == ne.isTree() {
			old = oe.hash
		}
		if err := s.sectionEntry(old, ne, path, depth, false, d); err != nil {
			return err
		}
	}
	for _, oe := range olds {
		if _, ok := findEntry(news, oe.name); !ok {
			if err := s.sectionEntry(oe.hash, oe, path, depth, true, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// sectionEntry reports one entry of a section found on one side only (or
// changed): a folder is descended into, a file is an added or a removed
// object. Anything else is the corruption a snapshot read would report.
func (s *Store) sectionEntry(old Hash, e treeEntry, path string, depth int, removed bool, d *scopeWalk) error {
	if depth > 0 {
		if !e.isTree() {
			return &CorruptError{Path: path + e.name, Reason: "a file where a folder belongs"}
		}
		if removed {
			return s.diffSection(e.hash, ZeroHash, path+e.name+"/", depth-1, d)
		}
		return s.diffSection(old, e.hash, path+e.name+"/", depth-1, d)
	}
	name, ok := strings.CutSuffix(e.name, ".json")
	id, err := objects.ParseID(name)
	if !ok || err != nil || e.isTree() {
		return &CorruptError{Path: path + e.name, Reason: "not an object file <id>.json"}
	}
	if removed {
		d.removed = append(d.removed, id)
	} else {
		d.added = append(d.added, fileRef{id: id, blob: e.hash, dir: path})
	}
	return nil
}

// FirstParent is a commit's first parent; ok is false for a root commit.
func (s *Store) FirstParent(commit Hash) (parent Hash, ok bool, err error) {
	c, err := s.readCommit(commit)
	if err != nil || len(c.parents) == 0 {
		return ZeroHash, false, err
	}
	return c.parents[0], true, nil
}
