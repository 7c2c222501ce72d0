// Changes: which object files a commit adds or removes against its first
// parent, found by walking only the subtrees whose hashes differ.

package lorestore

import (
	"strings"

	"github.com/deloreis/deloreis/objects"
	"github.com/go-git/go-git/v5/plumbing"
)

// Change is one object file a commit adds or removes.
type Change struct {
	Scope   string
	Kind    Kind
	ID      objects.ID
	Removed bool
}

// Changes lists what a commit changed against its first parent (for the
// first commit, everything it holds), in tree order.
func (s *Store) Changes(commit plumbing.Hash) ([]Change, error) {
	c, err := s.readCommit(commit)
	if err != nil {
		return nil, err
	}
	var parentTree plumbing.Hash
	if len(c.parents) > 0 {
		pc, err := s.readCommit(c.parents[0])
		if err != nil {
			return nil, err
		}
		parentTree = pc.tree
	}
	newScopes, err := s.subtree(c.tree, scopesDir)
	if err != nil {
		return nil, err
	}
	oldScopes, err := s.subtree(parentTree, scopesDir)
	if err != nil {
		return nil, err
	}
	var out []Change
	err = s.diffFiles(oldScopes, newScopes, nil, func(path []string, name string, removed bool) error {
		id, ok := objectFileID(name)
		if !ok || len(path) < 2 {
			return nil
		}
		out = append(out, Change{Scope: path[0], Kind: Kind(path[1]), ID: id, Removed: removed})
		return nil
	})
	return out, err
}

func objectFileID(name string) (objects.ID, bool) {
	base, ok := strings.CutSuffix(name, ".json")
	if !ok {
		return objects.ID{}, false
	}
	id, err := objects.ParseID(base)
	return id, err == nil
}

// diffFiles calls fn for every file present on one side only (or changed),
// descending only where subtree hashes differ.
func (s *Store) diffFiles(oldTree, newTree plumbing.Hash, path []string, fn func(path []string, name string, removed bool) error) error {
	if oldTree == newTree {
		return nil
	}
	read := func(h plumbing.Hash) ([]treeEntry, error) {
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
		oe, ok := findEntry(olds, ne.name)
		if ok && oe.hash == ne.hash {
			continue
		}
		if err := s.diffEntry(oe, ok, ne, true, path, fn); err != nil {
			return err
		}
	}
	for _, oe := range olds {
		if _, ok := findEntry(news, oe.name); ok {
			continue
		}
		if err := s.diffEntry(treeEntry{}, false, oe, false, path, fn); err != nil {
			return err
		}
	}
	return nil
}

// diffEntry reports e (added when adding, else removed) against other.
func (s *Store) diffEntry(other treeEntry, hasOther bool, e treeEntry, adding bool, path []string, fn func([]string, string, bool) error) error {
	sub := append(append([]string(nil), path...), e.name)
	if e.isTree() {
		var otherTree plumbing.Hash
		if hasOther && other.isTree() {
			otherTree = other.hash
		}
		if adding {
			return s.diffFiles(otherTree, e.hash, sub, fn)
		}
		return s.diffFiles(e.hash, otherTree, sub, fn)
	}
	if err := fn(path, e.name, !adding); err != nil {
		return err
	}
	if hasOther && other.isTree() && adding {
		return s.diffFiles(other.hash, plumbing.ZeroHash, sub, fn)
	}
	return nil
}
