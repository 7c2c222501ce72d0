// The trees of a bulk commit, built from the sorted file records over the
// parent's trees one folder at a time: a claims shard, a standing folder,
// the decisions or attacks folder, then the sections, the scope and the
// path up to the root. Unchanged folders keep their hashes; base trees are
// read without the store's tree cache, which would otherwise keep every
// shard of a big scope alive.

package lorestore

import (
	"github.com/deloreis/deloreis/objects"
	"github.com/go-git/go-git/v5/plumbing"
)

// bulkTrees is the state of the walk over the sorted records.
type bulkTrees struct {
	b        *Bulk
	oldScope []treeEntry // the base scope folder
	kind     int         // the section being built, -1 before the first
	oldKind  []treeEntry // its base folder (sharded sections)
	sub      string      // the subfolder being built ("" in a flat section)
	leaf     []treeEntry // its new files, sorted
	subs     []treeEntry // new hashes of the section's subfolders
	kinds    []treeEntry // new hashes of the scope's sections
	lastID   objects.ID  // of the last file in leaf
}

// buildRoot writes the trees of the commit over the base root tree and
// returns the new root (the base itself when nothing changes).
func (b *Bulk) buildRoot(baseRoot Hash) (Hash, error) {
	root, err := b.readTreeRaw(baseRoot)
	if err != nil {
		return ZeroHash, err
	}
	scopesH, err := subtree(root, scopesDir, scopesDir)
	if err != nil {
		return ZeroHash, err
	}
	scopes, err := b.readTreeRaw(scopesH)
	if err != nil {
		return ZeroHash, err
	}
	scopeH, err := subtree(scopes, b.scope, scopesDir+"/"+b.scope)
	if err != nil {
		return ZeroHash, err
	}
	newScope, err := b.buildScope(scopeH)
	if err != nil || newScope == scopeH {
		return baseRoot, err
	}
	newScopes, err := b.setEntry(scopes, b.scope, newScope)
	if err != nil {
		return ZeroHash, err
	}
	return b.setEntry(root, scopesDir, newScopes)
}

// subtree returns the hash of folder name in es, zero when absent.
func subtree(es []treeEntry, name, path string) (Hash, error) {
	i, ok := entryIndex(es, name)
	if !ok {
		return ZeroHash, nil
	}
	if !es[i].isTree() {
		return ZeroHash, &CorruptError{Path: path, Reason: "a file where a folder belongs"}
	}
	return es[i].hash, nil
}

// setEntry writes es with folder name set to h and returns its hash.
func (b *Bulk) setEntry(es []treeEntry, name string, h Hash) (Hash, error) {
	var out []treeEntry
	if i, ok := entryIndex(es, name); ok {
		out = mergeEntries(es, nil, map[int]Hash{i: h}, nil)
	} else {
		out = mergeEntries(es, []treeEntry{{name: name, mode: modeTree, hash: h}}, nil, nil)
	}
	return b.writeTreeObj(out)
}

func (b *Bulk) writeTreeObj(es []treeEntry) (Hash, error) {
	data, err := encodeTree(es)
	if err != nil {
		return ZeroHash, err
	}
	return Hash(b.pack.Add(plumbing.TreeObject, data)), nil
}

// readTreeRaw reads a tree without caching it; the zero hash is an empty
// folder.
func (b *Bulk) readTreeRaw(h Hash) ([]treeEntry, error) {
	if h.IsZero() {
		return nil, nil
	}
	t, data, err := b.s.db.Read(plumbing.Hash(h))
	if err != nil {
		return nil, err
	}
	if t != plumbing.TreeObject {
		return nil, &CorruptError{Path: h.String(), Reason: "expected a tree, found a " + t.String()}
	}
	return decodeTree(data)
}

// buildScope walks the sorted records and returns the new scope folder.
func (b *Bulk) buildScope(base Hash) (Hash, error) {
	old, err := b.readTreeRaw(base)
	if err != nil {
		return ZeroHash, err
	}
	w := &bulkTrees{b: b, oldScope: old, kind: -1}
	err = b.files.Each(w.add)
	if err == nil {
		err = w.endKind()
	}
	if err != nil {
		return ZeroHash, err
	}
	if len(w.kinds) == 0 {
		return base, nil
	}
	return b.writeTreeObj(mergeEntries(old, w.newKinds(), w.replacedKinds(), nil))
}

// sharded reports whether a section's files sit in subfolders.
func sharded(k Kind) bool { return k == Claims || k == Standing }

// add takes the next record in order.
func (w *bulkTrees) add(r *fileRec) error {
	if int(r.kind) != w.kind {
		if err := w.endKind(); err != nil {
			return err
		}
		if err := w.startKind(int(r.kind)); err != nil {
			return err
		}
	}
	sub := ""
	switch kindOrder[r.kind] {
	case Claims:
		sub = shardName(r.id[0])
	case Standing:
		sub = r.claim.String()
	}
	if sub != w.sub {
		if err := w.endLeaf(); err != nil {
			return err
		}
		w.sub = sub
	}
	if len(w.leaf) > 0 && r.id == w.lastID {
		return nil // the same object again: same id, same bytes
	}
	w.leaf = append(w.leaf, treeEntry{name: fileName(r.id), mode: modeBlob, hash: r.blob})
	w.lastID = r.id
	return nil
}

func (w *bulkTrees) startKind(k int) error {
	w.kind, w.sub, w.subs, w.oldKind = k, "", nil, nil
	if !sharded(kindOrder[k]) {
		return nil
	}
	name := string(kindOrder[k])
	h, err := subtree(w.oldScope, name, name)
	if err != nil {
		return err
	}
	w.oldKind, err = w.b.readTreeRaw(h)
	return err
}

// endLeaf writes the folder of the files gathered, merged with its base.
func (w *bulkTrees) endLeaf() error {
	if len(w.leaf) == 0 {
		return nil
	}
	k := kindOrder[w.kind]
	parent, name := w.oldKind, w.sub
	if !sharded(k) {
		parent, name = w.oldScope, string(k)
	}
	oldH, err := subtree(parent, name, string(k)+"/"+w.sub)
	if err != nil {
		return err
	}
	h, err := w.b.mergeLeaf(oldH, w.leaf, string(k)+"/"+w.sub)
	w.leaf = w.leaf[:0]
	if err != nil {
		return err
	}
	if h == oldH {
		return nil
	}
	e := treeEntry{name: name, mode: modeTree, hash: h}
	if sharded(k) {
		w.subs = append(w.subs, e)
	} else {
		w.kinds = append(w.kinds, e)
	}
	return nil
}

// endKind ends the current section: its last folder, then (when sharded)
// the section folder itself.
func (w *bulkTrees) endKind() error {
	if w.kind < 0 {
		return nil
	}
	if err := w.endLeaf(); err != nil {
		return err
	}
	if !sharded(kindOrder[w.kind]) || len(w.subs) == 0 {
		return nil
	}
	var adds []treeEntry
	replace := map[int]Hash{}
	for _, e := range w.subs {
		if i, ok := entryIndex(w.oldKind, e.name); ok {
			replace[i] = e.hash
		} else {
			adds = append(adds, e)
		}
	}
	h, err := w.b.writeTreeObj(mergeEntries(w.oldKind, adds, replace, nil))
	if err != nil {
		return err
	}
	w.kinds = append(w.kinds, treeEntry{name: string(kindOrder[w.kind]), mode: modeTree, hash: h})
	w.subs = nil
	return nil
}

// newKinds and replacedKinds split the new section folders into those the
// base scope lacks and those it has.
func (w *bulkTrees) newKinds() []treeEntry {
	var out []treeEntry
	for _, e := range w.kinds {
		if _, ok := entryIndex(w.oldScope, e.name); !ok {
			out = append(out, e)
		}
	}
	return out
}

func (w *bulkTrees) replacedKinds() map[int]Hash {
	out := map[int]Hash{}
	for _, e := range w.kinds {
		if i, ok := entryIndex(w.oldScope, e.name); ok {
			out[i] = e.hash
		}
	}
	return out
}

// mergeLeaf writes the folder old with the files added (sorted, unique)
// and returns its hash, or old's when every file is there already. A file
// present with another blob is tampering, as in fileAdds.
func (b *Bulk) mergeLeaf(old Hash, files []treeEntry, path string) (Hash, error) {
	es, err := b.readTreeRaw(old)
	if err != nil {
		return ZeroHash, err
	}
	adds := files
	if len(es) > 0 {
		adds = make([]treeEntry, 0, len(files))
		for _, f := range files {
			j, ok := entryIndex(es, f.name)
			switch {
			case !ok:
				adds = append(adds, f)
			case es[j].isTree():
				return ZeroHash, &CorruptError{Path: path + "/" + f.name, Reason: "a folder where a file belongs"}
			case es[j].hash != f.hash:
				return ZeroHash, &CorruptError{Path: path + "/" + f.name, Reason: "stored blob differs from its id"}
			}
		}
	}
	if len(adds) == 0 {
		return old, nil
	}
	return b.writeTreeObj(mergeEntries(es, adds, nil, nil))
}
