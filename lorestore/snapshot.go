// Snapshots: the world at one commit, read lazily by scope and section, with
// every blob checked against the id it is filed under.

package lorestore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/deloreis/deloreis/objects"
	"github.com/go-git/go-git/v5/plumbing"
)

// Header is the store header, lore.json, at the root of every commit.
type Header struct {
	Contract string `json:"contract"`
	Format   int    `json:"format"`
	Kind     string `json:"kind"`
	// Store is the random id Init gave the store (32 hex digits); it
	// makes every store's root commit its own. Stores made before ids
	// existed have none ("").
	Store string `json:"store,omitempty"`
}

// parseHeader decodes and checks lore.json: known fields only, the
// lorestore kind, the format this build reads, and a well-formed store id
// when there is one.
func parseHeader(data []byte) (Header, error) {
	var raw struct {
		Contract string  `json:"contract"`
		Format   int     `json:"format"`
		Kind     string  `json:"kind"`
		Store    *string `json:"store"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil || raw.Kind != "deloreis-lorestore" || dec.More() {
		return Header{}, fmt.Errorf("%w: %s is not a lorestore header", ErrNotLorestore, headerPath)
	}
	if raw.Format != FormatVersion {
		return Header{}, fmt.Errorf("%w: store format %d, this build reads %d", ErrNotLorestore, raw.Format, FormatVersion)
	}
	h := Header{Contract: raw.Contract, Format: raw.Format, Kind: raw.Kind}
	if raw.Store != nil {
		if !validStoreID(*raw.Store) {
			return Header{}, fmt.Errorf("%w: %s: store id %q is not %d hex digits", ErrNotLorestore, headerPath, *raw.Store, storeIDLen)
		}
		h.Store = *raw.Store
	}
	return h, nil
}

// Snapshot is the world at one commit. Reading is lazy: nothing below the
// root is read until asked for, and decoded trees are shared through the
// store's cache. A Snapshot never changes.
type Snapshot struct {
	s      *Store
	commit Hash
	root   Hash
	header Header
}

// Entry is one stored object with its id.
type Entry struct {
	ID     objects.ID
	Object objects.Object
}

// Snapshot opens the world at a revision (see Resolve).
func (s *Store) Snapshot(rev string) (*Snapshot, error) {
	h, err := s.Resolve(rev)
	if err != nil {
		return nil, err
	}
	return s.SnapshotAt(h)
}

// SnapshotAt opens the world at a commit.
func (s *Store) SnapshotAt(commit Hash) (*Snapshot, error) {
	c, err := s.readCommit(commit)
	if err != nil {
		return nil, err
	}
	sn := &Snapshot{s: s, commit: commit, root: c.tree}
	e, ok, err := sn.lookup(c.tree, headerPath)
	if err != nil {
		return nil, err
	}
	if !ok || e.isTree() {
		return nil, fmt.Errorf("%w: commit %s has no %s", ErrNotLorestore, short(commit), headerPath)
	}
	data, err := s.readBlob(e.hash)
	if err != nil {
		return nil, err
	}
	if sn.header, err = parseHeader(data); err != nil {
		return nil, err
	}
	return sn, nil
}

// Commit is the commit the snapshot reads.
func (sn *Snapshot) Commit() Hash { return sn.commit }

// Header is the store header at this commit.
func (sn *Snapshot) Header() Header { return sn.header }

func (s *Store) readBlob(h Hash) ([]byte, error) {
	t, data, err := s.objs.Read(plumbing.Hash(h))
	return blobData(h, t, data, err)
}

// blobData is data, read as object h of type t, when it is a blob.
func blobData(h Hash, t plumbing.ObjectType, data []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	if t != plumbing.BlobObject {
		return nil, &CorruptError{Path: h.String(), Reason: "expected a blob, found a " + t.String()}
	}
	return data, nil
}

// lookup finds one entry of a tree by name, by binary search in git's
// order (a name sorts differently as a file and as a folder, so try both).
func (sn *Snapshot) lookup(tree Hash, name string) (treeEntry, bool, error) {
	es, err := sn.s.readTree(tree)
	if err != nil {
		return treeEntry{}, false, err
	}
	e, ok := findEntry(es, name)
	return e, ok, nil
}

func findEntry(es []treeEntry, name string) (treeEntry, bool) {
	if i, ok := entryIndex(es, name); ok {
		return es[i], true
	}
	return treeEntry{}, false
}

// walk follows a path of folder names from the root; ok is false when any
// folder on the way is missing.
func (sn *Snapshot) walk(path ...string) (Hash, bool, error) {
	h := sn.root
	for _, p := range path {
		e, ok, err := sn.lookup(h, p)
		if err != nil || !ok {
			return ZeroHash, false, err
		}
		if !e.isTree() {
			return ZeroHash, false, &CorruptError{Path: strings.Join(path, "/"), Reason: "a file where a folder belongs"}
		}
		h = e.hash
	}
	return h, true, nil
}

// Scopes lists the scopes that hold anything, sorted.
func (sn *Snapshot) Scopes() ([]string, error) {
	h, ok, err := sn.walk(scopesDir)
	if err != nil || !ok {
		return nil, err
	}
	es, err := sn.s.readTree(h)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range es {
		if e.isTree() && checkScope(e.name) == nil {
			out = append(out, e.name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// fileRef is a stored object file: its id and blob, and where it lies:
// its folder (one string shared by every file of that folder) and its
// name, "" when it is the id's own file name. A listing of 10M objects
// holds one fileRef each, so the path is not built until asked for.
type fileRef struct {
	id   objects.ID
	blob Hash
	dir  string // ends in "/"
	name string // "": fileName(id); set for files not named by an id (DKE modules)
}

// path is the file's path in the tree.
func (f fileRef) path() string {
	if f.name != "" {
		return f.dir + f.name
	}
	return f.dir + fileName(f.id)
}

func (sn *Snapshot) collect(tree Hash, path string, depth int, out *[]fileRef) error {
	return sn.collectIn(tree, path, depth, out, true)
}

// collectIn is collect; fill says whether the tree read goes into the
// store's cache. The shards under a section listed whole are not cached:
// they hold an entry per object (about 100 B each, as much as a compiled
// world keeps of an object's index), and a listing reads each once; a
// later Get caches the one shard it reads (DL-0313).
func (sn *Snapshot) collectIn(tree Hash, path string, depth int, out *[]fileRef, fill bool) error {
	read := sn.s.readTree
	if !fill {
		read = sn.s.peekTree
	}
	es, err := read(tree)
	if err != nil {
		return err
	}
	for _, e := range es {
		if depth > 0 {
			if !e.isTree() {
				return &CorruptError{Path: path + e.name, Reason: "a file where a folder belongs"}
			}
			if err := sn.collectIn(e.hash, path+e.name+"/", depth-1, out, false); err != nil {
				return err
			}
			continue
		}
		name, ok := strings.CutSuffix(e.name, ".json")
		id, err := objects.ParseID(name)
		if !ok || err != nil || e.isTree() {
			return &CorruptError{Path: path + e.name, Reason: "not an object file <id>.json"}
		}
		*out = append(*out, fileRef{id: id, blob: e.hash, dir: path})
	}
	return nil
}

// IDs lists the ids in one section of a scope without reading any object.
func (sn *Snapshot) IDs(scope string, kind Kind) ([]objects.ID, error) {
	l, err := sn.List(scope, kind)
	if err != nil {
		return nil, err
	}
	ids := make([]objects.ID, 0, l.n)
	for _, part := range l.parts {
		for _, f := range part.files {
			ids = append(ids, f.id)
		}
	}
	return ids, nil
}

// read loads, checks and decodes one object file.
func (sn *Snapshot) read(f fileRef) (objects.Object, error) {
	return sn.s.readObjectFile(f.blob, f.id, f.path)
}

// Objects reads every object of one section of a scope, decoding in
// parallel, in the store's order (by folder, then id).
func (sn *Snapshot) Objects(scope string, kind Kind) ([]Entry, error) {
	l, err := sn.List(scope, kind)
	if err != nil {
		return nil, err
	}
	return l.readAll()
}

// Get reads one object of a scope by id, from whichever section holds it.
func (sn *Snapshot) Get(scope string, id objects.ID) (objects.Object, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	name := fileName(id)
	paths := [][]string{
		{scopesDir, scope, string(Claims), id.String()[:2]},
		{scopesDir, scope, string(Decisions)},
		{scopesDir, scope, string(Attacks)},
	}
	for _, p := range paths {
		if o, ok, err := sn.getIn(p, name, id); ok || err != nil {
			return o, err
		}
	}
	// Standing revisions are filed under the claim they revise.
	dir, ok, err := sn.walk(scopesDir, scope, string(Standing))
	if err != nil || !ok {
		return nil, notFound(scope, id, err)
	}
	es, err := sn.s.readTree(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range es {
		p := []string{scopesDir, scope, string(Standing), e.name}
		if o, ok, err := sn.getIn(p, name, id); ok || err != nil {
			return o, err
		}
	}
	return nil, notFound(scope, id, nil)
}

func notFound(scope string, id objects.ID, err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: object %s in scope %s", ErrNotFound, id, scope)
}

func (sn *Snapshot) getIn(path []string, name string, id objects.ID) (objects.Object, bool, error) {
	dir, ok, err := sn.walk(path...)
	if err != nil || !ok {
		return nil, false, err
	}
	e, ok, err := sn.lookup(dir, name)
	if err != nil || !ok {
		return nil, false, err
	}
	o, err := sn.read(fileRef{id: id, blob: e.hash, dir: strings.Join(path, "/") + "/"})
	return o, true, err
}

// Expand lists the ids of the objects of a scope, in any section, that
// begin with the hex digits prefix (at least 4), sorted. Claims are found
// in the one shard the prefix names; the small sections are read whole.
func (sn *Snapshot) Expand(scope, prefix string) ([]objects.ID, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	prefix = strings.ToLower(prefix)
	if len(prefix) < 4 || len(prefix) > 2*len(objects.ID{}) || strings.Trim(prefix, "0123456789abcdef") != "" {
		return nil, fmt.Errorf("lorestore: %q is not an abbreviated object id (4 to 64 hex digits)", prefix)
	}
	var out []objects.ID
	match := func(path []string, depth int) error {
		h, ok, err := sn.walk(path...)
		if err != nil || !ok {
			return err
		}
		var fs []fileRef
		if err := sn.collect(h, strings.Join(path, "/")+"/", depth, &fs); err != nil {
			return err
		}
		for _, f := range fs {
			if strings.HasPrefix(f.id.String(), prefix) {
				out = append(out, f.id)
			}
		}
		return nil
	}
	sections := []struct {
		path  []string
		depth int
	}{
		{[]string{scopesDir, scope, string(Claims), prefix[:2]}, 0},
		{[]string{scopesDir, scope, string(Decisions)}, 0},
		{[]string{scopesDir, scope, string(Attacks)}, 0},
		{[]string{scopesDir, scope, string(Standing)}, 1},
	}
	for _, sec := range sections {
		if err := match(sec.path, sec.depth); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b objects.ID) int { return strings.Compare(a.String(), b.String()) })
	return slices.Compact(out), nil
}

// Revisions reads the standing revisions filed for one claim.
func (sn *Snapshot) Revisions(scope string, claim objects.ID) ([]Entry, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	path := []string{scopesDir, scope, string(Standing), claim.String()}
	dir, ok, err := sn.walk(path...)
	if err != nil || !ok {
		return nil, err
	}
	var fs []fileRef
	if err := sn.collect(dir, strings.Join(path, "/")+"/", 0, &fs); err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(fs))
	for _, f := range fs {
		o, err := sn.read(f)
		if err != nil {
			return nil, err
		}
		out = append(out, Entry{ID: f.id, Object: o})
	}
	return out, nil
}

// peekTree returns the decoded entries of a tree from the store's cache,
// or read and decoded without filling the cache. Callers must not modify
// the returned slice.
func (s *Store) peekTree(h Hash) ([]treeEntry, error) {
	return s.treeEntries(h, false)
}
