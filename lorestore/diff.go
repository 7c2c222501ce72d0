// Changes: which object files a commit adds or removes against its first
// parent, found by walking only the subtrees whose hashes differ.

package lorestore

import (
	"bytes"
	"cmp"
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
	// Where the diff found it, for ChangeObject: the blob, the id its
	// name gave, and its folder under scopes/ (shared by the folder's
	// changes, so that listing a change allocates no path).
	blob   Hash
	fileID objects.ID
	dir    []string
}

// ChangeObject reads the object a change from Changes added (as the
// commit holds it) or removed (as its first parent held it), straight from
// the file the diff found: no second walk down the trees.
func (s *Store) ChangeObject(c Change) (objects.Object, error) {
	if c.blob.IsZero() || c.fileID != c.ID {
		return nil, fmt.Errorf("lorestore: change %s of scope %s did not come from Changes", c.ID, c.Scope)
	}
	return s.readObjectFile(c.blob, c.ID, func() string {
		return scopesDir + "/" + strings.Join(c.dir, "/") + "/" + fileName(c.ID)
	})
}

// readObjectFile loads, checks and decodes the object file of blob, which
// should hold object id; path names the file in errors (built only then:
// show reads millions of files).
func (s *Store) readObjectFile(blob Hash, id objects.ID, path func() string) (objects.Object, error) {
	data, err := s.readBlob(blob)
	if err != nil {
		return nil, err
	}
	return decodeObjectFile(data, id, path)
}

// decodeObjectFile checks and decodes the bytes of an object file, which
// should hold object id; path names the file in errors.
func decodeObjectFile(data []byte, id objects.ID, path func() string) (objects.Object, error) {
	if objects.ID(sumID(data)) != id {
		return nil, &CorruptError{Path: path(), Reason: "bytes do not hash to the file's id"}
	}
	o, err := objects.Decode(data)
	if err != nil {
		return nil, &CorruptError{Path: path(), Reason: err.Error()}
	}
	return o, nil
}

// Changes lists the scope objects a commit changed against its first
// parent (for the first commit, everything it holds), in tree order.
// DKEChanges lists the rest.
func (s *Store) Changes(commit Hash) ([]Change, error) {
	var out []Change
	err := s.ChangesFunc(commit, func(c Change) error {
		out = append(out, c)
		return nil
	})
	return out, err
}

// ChangesFunc calls fn with each change Changes lists, in the same order,
// as the diff finds it: it holds no list, only the trees of the folders
// being compared. An error from fn stops the walk and is returned.
func (s *Store) ChangesFunc(commit Hash, fn func(Change) error) error {
	oldScopes, newScopes, err := s.commitSubtrees(commit, scopesDir)
	if err != nil {
		return err
	}
	return newDiffer(s, func(path []string, name []byte, blob Hash, removed, _ bool) error {
		id, ok := objectFileIDBytes(name)
		if !ok || len(path) < 2 {
			return nil
		}
		return fn(Change{Scope: path[0], Kind: Kind(path[1]), ID: id, Removed: removed, blob: blob, fileID: id, dir: path})
	}).diff(oldScopes, newScopes, nil)
}

func objectFileID(name string) (objects.ID, bool) {
	base, ok := strings.CutSuffix(name, ".json")
	if !ok {
		return objects.ID{}, false
	}
	id, err := objects.ParseID(base)
	return id, err == nil
}

// objectFileIDBytes is objectFileID over the name's bytes in a tree.
func objectFileIDBytes(name []byte) (objects.ID, bool) {
	var id objects.ID
	base, ok := bytes.CutSuffix(name, []byte(".json"))
	if !ok || len(base) != 2*len(id) {
		return id, false
	}
	bad := byte(0)
	for i := range id {
		hi, lo := lowerHex[base[2*i]], lowerHex[base[2*i+1]]
		bad |= hi | lo
		id[i] = hi<<4 | lo&0x0f
	}
	return id, bad&0xf0 == 0
}

// lowerHex maps a lowercase hex digit (the only digits objects.ParseID
// accepts) to its value, any other byte to 0xff.
var lowerHex = func() (t [256]byte) {
	for c := range t {
		switch {
		case '0' <= c && c <= '9':
			t[c] = byte(c - '0')
		case 'a' <= c && c <= 'f':
			t[c] = byte(c - 'a' + 10)
		default:
			t[c] = 0xff
		}
	}
	return t
}()

// diffFn is told of one file a diff found, with its blob (the old one for
// a removal): added (or, with replaced, its content changed), or removed.
type diffFn func(path []string, name string, blob Hash, removed, replaced bool) error

// diffFiles calls fn for every file present on one side only (or changed),
// descending only where subtree hashes differ (see differ). Both trees are
// read in place and matched by one merge over their sorted entries: a
// claims shard of a big store holds thousands of entries, and decoding
// them into strings (or searching one side for each entry of the other)
// cost more than inflating them.
func (s *Store) diffFiles(oldTree, newTree Hash, path []string, fn diffFn) error {
	return newDiffer(s, func(path []string, name []byte, blob Hash, removed, replaced bool) error {
		return fn(path, string(name), blob, removed, replaced)
	}).diff(oldTree, newTree, path)
}

// rawEntry is a tree entry whose name still points into the tree's bytes.
type rawEntry struct {
	name []byte
	mode uint32
	hash Hash
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
func (s *Store) readRawTree(h Hash) ([]rawEntry, error) {
	if h.IsZero() {
		return nil, nil
	}
	data, err := s.readTreeData(h)
	if err != nil {
		return nil, err
	}
	return parseRawTree(data)
}

// readTreeData returns the bytes of tree h, refusing an object of another
// type.
func (s *Store) readTreeData(h Hash) ([]byte, error) {
	t, data, err := s.objs.Read(plumbing.Hash(h))
	if err != nil {
		return nil, err
	}
	if t != plumbing.TreeObject {
		return nil, &CorruptError{Path: h.String(), Reason: "expected a tree, found a " + t.String()}
	}
	return data, nil
}

// parseRawTree splits a git tree into entries; it refuses what decodeTree
// refuses.
func parseRawTree(data []byte) ([]rawEntry, error) {
	return collectTree(data, func(mode uint32, name, hash []byte) rawEntry {
		e := rawEntry{name: name[:len(name):len(name)], mode: mode}
		copy(e.hash[:], hash)
		return e
	})
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

// commitSubtrees returns the folder dir of a commit's first parent (zero
// for a root commit or when absent) and of the commit itself.
func (s *Store) commitSubtrees(commit Hash, dir string) (old, cur Hash, err error) {
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
func (s *Store) DKEChanges(commit Hash) ([]DKEChange, error) {
	oldTree, newTree, err := s.commitSubtrees(commit, dkeDir)
	if err != nil {
		return nil, err
	}
	var out []DKEChange
	err = s.diffFiles(oldTree, newTree, nil, func(path []string, name string, _ Hash, removed, replaced bool) error {
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
