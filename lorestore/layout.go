// The tree layout: where each lore object lives in a commit's tree, and the
// batch of objects a commit adds.

package lorestore

import (
	"fmt"

	"github.com/deloreis/deloreis/objects"
	"github.com/go-git/go-git/v5/plumbing"
)

// Kind is a section of a scope's tree: which of the four folders an object
// is filed under.
type Kind string

// The sections of a scope.
const (
	Claims    Kind = "claims"    // every claim-bearing object, sharded by id prefix
	Decisions Kind = "decisions" // decision records
	Attacks   Kind = "attacks"   // attacks between decisions
	Standing  Kind = "standing"  // standing revisions, grouped by the claim they revise
)

// Kinds lists the sections in the order they are read.
var Kinds = []Kind{Claims, Decisions, Attacks, Standing}

const scopesDir = "scopes"

// checkScope refuses a scope name that is not an id: a scope becomes a tree
// entry name, so it must never carry '/', '.', or anything a path could use.
func checkScope(scope string) error {
	if !objects.ValidID(scope) {
		return &ScopeError{Scope: scope}
	}
	return nil
}

// kindOf files an object type under its section.
func kindOf(t objects.Type) Kind {
	return Kind(objects.Section(t))
}

// objectDir is the folder, below scopes/<scope>/, that holds an object.
func objectDir(kind Kind, id objects.ID, o objects.Object) []string {
	switch kind {
	case Claims:
		return []string{string(Claims), id.String()[:2]}
	case Standing:
		return []string{string(Standing), standingClaim(o).String()}
	default:
		return []string{string(kind)}
	}
}

// fileName is an object's entry name: its id and ".json".
func fileName(id objects.ID) string { return id.String() + ".json" }

// Batch is the set of objects one commit adds. Put validates and encodes
// each object at once, so a batch that was built without error cannot fail
// for its content later.
type Batch struct {
	puts []put
	seen map[putKey]struct{}
}

type put struct {
	scope string
	dir   []string
	name  string
	id    objects.ID
	data  []byte
}

type putKey struct {
	scope string
	id    objects.ID
}

// NewBatch returns an empty batch.
func NewBatch() *Batch { return &Batch{seen: make(map[putKey]struct{})} }

// Put adds an object to a scope. It returns the object's id, or the
// object's validation error (and adds nothing). Putting the same object into
// the same scope twice adds it once.
func (b *Batch) Put(scope string, o objects.Object) (objects.ID, error) {
	if err := checkScope(scope); err != nil {
		return objects.ID{}, err
	}
	data, err := objects.Canonical(o)
	if err != nil {
		return objects.ID{}, err
	}
	id := objects.ID(sumID(data))
	k := putKey{scope, id}
	if _, dup := b.seen[k]; dup {
		return id, nil
	}
	b.seen[k] = struct{}{}
	b.puts = append(b.puts, put{scope: scope, dir: objectDir(kindOf(o.Type()), id, o), name: fileName(id), id: id, data: data})
	return id, nil
}

// Len is the number of distinct objects in the batch.
func (b *Batch) Len() int { return len(b.puts) }

// dirIns is the trie of entries a commit inserts, one node per folder.
type dirIns struct {
	files map[string]plumbing.Hash
	dirs  map[string]*dirIns
}

func newDirIns() *dirIns {
	return &dirIns{files: map[string]plumbing.Hash{}, dirs: map[string]*dirIns{}}
}

func (d *dirIns) at(path []string) *dirIns {
	for _, p := range path {
		next := d.dirs[p]
		if next == nil {
			next = newDirIns()
			d.dirs[p] = next
		}
		d = next
	}
	return d
}

func (d *dirIns) addFile(path []string, name string, h plumbing.Hash) error {
	dir := d.at(path)
	if old, ok := dir.files[name]; ok && old != h {
		return fmt.Errorf("lorestore: two different blobs for %s", name)
	}
	dir.files[name] = h
	return nil
}

// standingClaim is the claim a standing revision revises.
func standingClaim(o objects.Object) objects.ID {
	if st, ok := o.(*objects.Standing); ok {
		return st.Revises()
	}
	return objects.ID{}
}
