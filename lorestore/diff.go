// Changes: which object files a commit adds or removes against its first
// parent, found by walking only the subtrees whose hashes differ.

package lorestore

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
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
	file    fileRef // where the diff found it, for ChangeObject
}

// ChangeObject reads the object a change from Changes added (as the
// commit holds it) or removed (as its first parent held it), straight from
// the file the diff found: no second walk down the trees.
func (s *Store) ChangeObject(c Change) (objects.Object, error) {
	if c.file.blob.IsZero() || c.file.id != c.ID {
		return nil, fmt.Errorf("lorestore: change %s of scope %s did not come from Changes", c.ID, c.Scope)
	}
	return (&Snapshot{s: s}).read(c.file)
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
	err = s.diffFiles(oldScopes, newScopes, nil, func(path []string, name string, blob plumbing.Hash, removed, _ bool) error {
		id, ok := objectFileID(name)
		if !ok || len(path) < 2 {
			return nil
		}
		file := fileRef{id: id, blob: blob, path: scopesDir + "/" + strings.Join(path, "/") + "/" + name}
		out = append(out, Change{Scope: path[0], Kind: Kind(path[1]), ID: id, Removed: removed, file: file})
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

// diffFn is told of one file a diff found, with its blob (the old one for
// a removal): added (or, with replaced, its content changed), or removed.
type diffFn func(path []string, name string, blob plumbing.Hash, removed, replaced bool) error

// diffFiles calls fn for every file present on one side only (or changed),
// descending only where subtree hashes differ. Both trees are read in
// place and matched by one merge over their sorted entries: a claims shard
// of a big store holds thousands of entries, and decoding them into
// strings (or searching one side for each entry of the other) cost more
// than inflating them.
func (s *Store) diffFiles(oldTree, newTree plumbing.Hash, path []string, fn diffFn) error {
	if oldTree == newTree {
		return nil
	}
	olds, err := s.readRawTree(oldTree)
	if err != nil {
		return err
	}
	news, err := s.readRawTree(newTree)
	if err != nil {
		return err
	}
	match, matched := matchEntries(olds, news)
	for j := range news {
		ne := &news[j]
		var oe treeEntry
		ok := match[j] >= 0
		if ok {
			o := &olds[match[j]]
			if o.hash == ne.hash {
				continue
			}
			oe = o.entry()
		}
		if err := s.diffEntry(oe, ok, ne.entry(), true, path, fn); err != nil {
			return err
		}
	}
	for i := range olds {
		if matched[i] {
			continue
		}
		if err := s.diffEntry(treeEntry{}, false, olds[i].entry(), false, path, fn); err != nil {
			return err
		}
	}
	return nil
}

// rawEntry is a tree entry whose name still points into the tree's bytes.
type rawEntry struct {
	name []byte
	mode uint32
	hash plumbing.Hash
}

func (e *rawEntry) isTree() bool { return e.mode == modeTree }

func (e *rawEntry) entry() treeEntry {
	return treeEntry{name: string(e.name), mode: e.mode, hash: e.hash}
}

// rawLess is gitLess on raw entries.
func rawLess(a, b *rawEntry) bool {
	n := min(len(a.name), len(b.name))
	if c := bytes.Compare(a.name[:n], b.name[:n]); c != 0 {
		return c < 0
	}
	ac, bc := byte(0), byte(0)
	if len(a.name) > n {
		ac = a.name[n]
	} else if a.isTree() {
		ac = '/'
	}
	if len(b.name) > n {
		bc = b.name[n]
	} else if b.isTree() {
		bc = '/'
	}
	return ac < bc
}

// matchEntries pairs the entries of two sorted trees by name: match[j] is
// the index in olds of the entry named like news[j], or -1; matched[i]
// tells whether olds[i] was paired. A file that became a folder of the
// same name sorts elsewhere (a folder compares as name+"/") and stays
// unpaired: the file is reported removed and the folder's files added.
func matchEntries(olds, news []rawEntry) ([]int32, []bool) {
	match := make([]int32, len(news))
	matched := make([]bool, len(olds))
	i := 0
	for j := range news {
		ne := &news[j]
		for i < len(olds) && rawLess(&olds[i], ne) {
			i++
		}
		match[j] = -1
		if i < len(olds) && bytes.Equal(olds[i].name, ne.name) {
			match[j], matched[i] = int32(i), true
		}
	}
	return match, matched
}

// readRawTree reads tree h (nothing for the zero hash) without caching it
// and without copying its names.
func (s *Store) readRawTree(h plumbing.Hash) ([]rawEntry, error) {
	if h.IsZero() {
		return nil, nil
	}
	t, data, err := s.db.Read(h)
	if err != nil {
		return nil, err
	}
	if t != plumbing.TreeObject {
		return nil, &CorruptError{Path: h.String(), Reason: "expected a tree, found a " + t.String()}
	}
	return parseRawTree(data)
}

// parseRawTree splits a git tree into entries; it refuses what decodeTree
// refuses.
func parseRawTree(data []byte) ([]rawEntry, error) {
	// Every entry ends its name with a NUL (hashes hold a few more).
	es := make([]rawEntry, 0, bytes.Count(data, []byte{0}))
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp <= 0 {
			return nil, errors.New("lorestore: malformed tree entry mode")
		}
		mode, ok := parseMode(data[:sp])
		if !ok {
			return nil, fmt.Errorf("lorestore: malformed tree entry mode %q", data[:sp])
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul < 0 || len(data) < nul+1+20 {
			return nil, errors.New("lorestore: truncated tree entry")
		}
		e := rawEntry{name: data[:nul:nul], mode: mode}
		copy(e.hash[:], data[nul+1:nul+21])
		es = append(es, e)
		data = data[nul+21:]
	}
	return es, nil
}

// parseMode reads an octal mode as strconv.ParseUint(s, 8, 32) does,
// without converting s to a string.
func parseMode(s []byte) (uint32, bool) {
	if len(s) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range s {
		if c < '0' || c > '7' {
			return 0, false
		}
		v = v<<3 | uint64(c-'0')
		if v > 1<<32-1 {
			return 0, false
		}
	}
	return uint32(v), true
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
	if err := fn(path, e.name, e.hash, !adding, adding && hasOther && !other.isTree()); err != nil {
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
	err = s.diffFiles(oldTree, newTree, nil, func(path []string, name string, _ plumbing.Hash, removed, replaced bool) error {
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
