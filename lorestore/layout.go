// The tree layout: where each lore object lives in a commit's tree, and the
// batch of objects a commit adds.

package lorestore

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"slices"

	"github.com/deloreis/deloreis/lorestore/odb"
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

// fileName is an object's entry name: its id and ".json".
func fileName(id objects.ID) string { return id.String() + ".json" }

// Batch is the set of objects one commit adds. Put validates and encodes
// each object at once, so a batch that was built without error cannot fail
// for its content later.
//
// A batch from NewBatch keeps the encoded objects in memory until Commit.
// A batch from Store.NewBatch streams each object into the pack the commit
// will write as it is put, and keeps only its id and git name: a commit of
// a million objects then costs tens of megabytes, not gigabytes. Such a
// batch is spent by Commit; Close releases one that will not be committed.
// A Batch is not safe for concurrent use.
type Batch struct {
	root    *dirIns
	data    [][]byte   // a NewBatch batch: the encoded objects, by fileIns.data
	n       int        // puts, counting repeats (see Len)
	store   *Store     // streaming: the store it belongs to
	ob      *odb.Batch // streaming: where the blobs go
	spent   bool       // streaming: committed or closed
	scratch []byte     // streaming: the encoding buffer
}

// NewBatch returns an empty batch that keeps its objects in memory until
// Commit; it can be committed to any store, and committed again.
func NewBatch() *Batch { return &Batch{root: newDirIns()} }

// NewBatch returns an empty batch that streams its objects into this
// store's next pack as they are put (see Batch). Commit it to this store,
// or Close it.
func (s *Store) NewBatch() *Batch {
	return &Batch{root: newDirIns(), store: s, ob: s.db.NewBatch()}
}

// ErrBatchSpent is returned for a use of a streaming batch after Commit
// or Close.
var ErrBatchSpent = errors.New("lorestore: the batch was committed or closed already")

// Put adds an object to a scope. It returns the object's id, or the
// object's validation error (and adds nothing). Putting the same object into
// the same scope twice adds it once.
func (b *Batch) Put(scope string, o objects.Object) (objects.ID, error) {
	if b.spent {
		return objects.ID{}, ErrBatchSpent
	}
	if err := checkScope(scope); err != nil {
		return objects.ID{}, err
	}
	var data []byte
	var err error
	if b.ob != nil {
		// The odb batch copies the bytes: encode into one reused buffer.
		data, err = o.AppendCanonical(b.scratch[:0])
		b.scratch = data
	} else {
		data, err = objects.Canonical(o)
	}
	if err != nil {
		return objects.ID{}, err
	}
	id := objects.ID(sumID(data))
	d := b.root.dir(scopesDir).dir(scope)
	switch kind := kindOf(o.Type()); kind {
	case Claims:
		d = d.dir(string(Claims)).dir(shardName(id[0]))
	case Standing:
		d = d.dir(string(Standing)).dir(standingClaim(o).String())
	default:
		d = d.dir(string(kind))
	}
	b.addFile(d, id, data)
	return id, nil
}

// addFile files the object data, whose id is id, in folder d; it undoes
// an earlier removal of the same file in this batch (the later call wins).
func (b *Batch) addFile(d *dirIns, id objects.ID, data []byte) {
	f := fileIns{id: id}
	f.blob, f.data = b.stash(data)
	if d.removes != nil {
		delete(d.removes, fileName(id))
	}
	d.files = append(d.files, f)
	d.sorted = false
	b.n++
}

// stash keeps data for the commit: streamed into the pack now (its git
// name returned), or kept in memory (its index in b.data returned, else -1).
func (b *Batch) stash(data []byte) (Hash, int32) {
	if b.ob != nil {
		return Hash(b.ob.Add(plumbing.BlobObject, data)), -1
	}
	b.data = append(b.data, data)
	return ZeroHash, int32(len(b.data) - 1)
}

// Len is the number of distinct files the batch adds or replaces.
func (b *Batch) Len() int {
	if b.spent {
		return 0
	}
	return b.root.count()
}

// Close releases a streaming batch that will not be committed: what it
// streamed is removed. It is a no-op after Commit and for a batch from
// NewBatch.
func (b *Batch) Close() {
	if b.ob != nil && !b.spent {
		b.ob.Abort()
		b.spent = true
	}
}

// shardName is the claim shard folder of an id's first byte b: b in hex.
// (Slices of a constant, so that no table is built when a program starts.)
func shardName(b byte) string { return hexPairs[2*int(b) : 2*int(b)+2] }

// hexPairs is every byte in hex, in order.
const hexPairs = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f" +
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f" +
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f" +
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f" +
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f" +
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf" +
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf" +
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"

// dirIns is the trie of what a commit changes, one node per folder:
// files named by their id (objects, DKE claims), files named otherwise
// (DKE modules, replaced when put again), and names to remove. Of a put
// and a removal of the same file, the later call wins; the maps stay nil
// in a batch that never uses them, so a batch of a million objects pays
// nothing for them.
type dirIns struct {
	files   []fileIns
	named   map[string]namedIns // file name -> its new content
	removes map[string]struct{} // file names to remove from the base
	dirs    map[string]*dirIns
	drop    bool // the base folder is dropped whole; only what the batch puts stays
	sorted  bool // files are sorted by id, without repeats
}

// namedIns is a file whose name is not its id: its blob, as fileIns.
type namedIns struct {
	blob Hash
	data int32
}

// fileIns is one object file to insert: its id (the file is <id>.json) and
// its blob, by git name when streamed, by content when kept in memory.
type fileIns struct {
	id   objects.ID
	blob Hash
	data int32 // a NewBatch batch: the encoded object's index in Batch.data; else -1
}

func newDirIns() *dirIns { return &dirIns{dirs: map[string]*dirIns{}} }

// dir returns the child folder name, creating it.
func (d *dirIns) dir(name string) *dirIns {
	next := d.dirs[name]
	if next == nil {
		next = newDirIns()
		d.dirs[name] = next
	}
	return next
}

// sortedFiles sorts the files by id (their names' order) and drops
// repeats: the same id means the same bytes, so the same blob.
func (d *dirIns) sortedFiles() []fileIns {
	if !d.sorted {
		slices.SortFunc(d.files, func(a, b fileIns) int {
			// The first eight bytes almost always decide.
			if c := cmp.Compare(binary.BigEndian.Uint64(a.id[:8]), binary.BigEndian.Uint64(b.id[:8])); c != 0 {
				return c
			}
			return bytes.Compare(a.id[8:], b.id[8:])
		})
		d.files = slices.CompactFunc(d.files, func(a, b fileIns) bool { return a.id == b.id })
		d.sorted = true
	}
	return d.files
}

func (d *dirIns) count() int {
	n := len(d.sortedFiles()) + len(d.named)
	for _, sub := range d.dirs {
		n += sub.count()
	}
	return n
}

// standingClaim is the claim a standing revision revises.
func standingClaim(o objects.Object) objects.ID {
	if st, ok := o.(*objects.Standing); ok {
		return st.Revises()
	}
	return objects.ID{}
}
