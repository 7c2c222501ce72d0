// Changes: which object files a commit adds or removes against its first
// parent, found by walking only the subtrees whose hashes differ.

package lorestore

import (
	"bytes"
	"cmp"
	"slices"
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

// Changes lists the scope objects a commit changed against its first
// parent (for the first commit, everything it holds), in tree order.
// DKEChanges lists the rest.
func (s *Store) Changes(commit plumbing.Hash) ([]Change, error) {
	oldScopes, newScopes, err := s.commitSubtrees(commit, scopesDir)
	if err != nil {
		return nil, err
	}
	var out []Change
	err = s.diffFiles(oldScopes, newScopes, nil, func(path []string, name string, removed, _ bool) error {
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

// diffFn is told of one file a diff found: added (or, with replaced, its
// content changed), or removed.
type diffFn func(path []string, name string, removed, replaced bool) error

// diffFiles calls fn for every file present on one side only (or changed),
// descending only where subtree hashes differ.
func (s *Store) diffFiles(oldTree, newTree plumbing.Hash, path []string, fn diffFn) error {
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
func (s *Store) diffEntry(other treeEntry, hasOther bool, e treeEntry, adding bool, path []string, fn diffFn) error {
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
	if err := fn(path, e.name, !adding, adding && hasOther && !other.isTree()); err != nil {
		return err
	}
	if hasOther && other.isTree() && adding {
		return s.diffFiles(other.hash, plumbing.ZeroHash, sub, fn)
	}
	return nil
}

// commitSubtrees returns the folder dir of a commit's first parent (zero
// for a root commit or when absent) and of the commit itself.
func (s *Store) commitSubtrees(commit plumbing.Hash, dir string) (old, cur plumbing.Hash, err error) {
	c, err := s.readCommit(commit)
	if err != nil {
		return old, cur, err
	}
	if len(c.parents) > 0 {
		pc, err := s.readCommit(c.parents[0])
		if err != nil {
			return old, cur, err
		}
		if old, err = s.subtree(pc.tree, dir); err != nil {
			return old, cur, err
		}
	}
	cur, err = s.subtree(c.tree, dir)
	return old, cur, err
}

// DKEChange is one file of the dke/ namespace a commit added, replaced
// or removed: a module (Module set) or a claim (Kind and ID set).
type DKEChange struct {
	Store    string
	Module   string
	Kind     string
	ID       objects.ID
	Removed  bool
	Replaced bool // a module whose content changed
}

// DKEChanges lists what a commit changed under dke/ against its first
// parent, in tree order.
func (s *Store) DKEChanges(commit plumbing.Hash) ([]DKEChange, error) {
	oldTree, newTree, err := s.commitSubtrees(commit, dkeDir)
	if err != nil {
		return nil, err
	}
	var out []DKEChange
	err = s.diffFiles(oldTree, newTree, nil, func(path []string, name string, removed, replaced bool) error {
		c := DKEChange{Removed: removed, Replaced: replaced}
		switch {
		case len(path) == 2 && path[1] == dkeModulesDir && strings.HasSuffix(name, ".json"):
			c.Store, c.Module = path[0], strings.TrimSuffix(name, ".json")
		case len(path) == 4 && path[1] == dkeClaimsDir:
			id, ok := objectFileID(name)
			if !ok {
				return nil
			}
			c.Store, c.Kind, c.ID = path[0], path[2], id
		default:
			return nil
		}
		out = append(out, c)
		return nil
	})
	// The walk reports a folder's additions before its removals; sort to
	// the tree's order: by store, claims (by kind and id) before modules.
	slices.SortStableFunc(out, func(a, b DKEChange) int {
		return cmp.Or(cmp.Compare(a.Store, b.Store), cmp.Compare(a.Module, b.Module),
			cmp.Compare(a.Kind, b.Kind), bytes.Compare(a.ID[:], b.ID[:]))
	})
	return out, err
}
