// Bulk commits: one commit of one scope's objects, as many as a generator
// or a file holds, in bounded memory. Each object is validated and encoded
// as Batch.Put does and streamed into a pack on disk; its path goes to an
// external sort; at Commit the trees are built from the sorted paths over
// the parent's trees, one folder at a time, and the branch moves only once
// the pack and its index are complete and read back (DL-0270).

package lorestore

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/deloreis/deloreis/lorestore/internal/extsort"
	"github.com/deloreis/deloreis/lorestore/odb"
	"github.com/deloreis/deloreis/lorestore/refs"
	"github.com/deloreis/deloreis/objects"
	"github.com/go-git/go-git/v5/plumbing"
)

// Bulk is a commit being written of one scope's objects, streamed to disk
// as they are put: memory does not grow with the number of objects. It is
// spent by Commit; Close drops one that will not be committed. A Bulk is
// not safe for concurrent use.
type Bulk struct {
	s       *Store
	scope   string
	pack    *odb.BulkPack
	files   *extsort.Sorter[fileRec]
	scratch []byte
	n       int
	spent   bool
}

// fileRec is one object file of the commit: its folder (section, and the
// claim a standing revision revises), its id and its blob.
type fileRec struct {
	kind  uint8 // index in kindOrder
	claim objects.ID
	id    objects.ID
	blob  Hash
}

// kindOrder lists the sections in git's order of their folder names, so
// that records sorted by kind, claim and id come out in tree order.
var kindOrder = [...]Kind{Attacks, Claims, Decisions, Standing}

// fileRunRecords bounds the file records held in memory: 4 MiB of them
// (a 10M-object commit merges about 200 runs).
var fileRunRecords = 4 << 20 / 88

var fileRecCodec = extsort.Codec[fileRec]{
	Encode: func(dst []byte, r *fileRec) []byte {
		dst = append(dst, r.kind)
		if kindOrder[r.kind] == Standing {
			dst = append(dst, r.claim[:]...)
		}
		dst = append(dst, r.id[:]...)
		return append(dst, r.blob[:]...)
	},
	Decode: func(br *bufio.Reader, r *fileRec) error {
		k, err := br.ReadByte()
		if err != nil {
			return err
		}
		if int(k) >= len(kindOrder) {
			return fmt.Errorf("lorestore: bad file record kind %d", k)
		}
		r.kind, r.claim = k, objects.ID{}
		if kindOrder[k] == Standing {
			if _, err := io.ReadFull(br, r.claim[:]); err != nil {
				return unexpected(err)
			}
		}
		if _, err := io.ReadFull(br, r.id[:]); err != nil {
			return unexpected(err)
		}
		if _, err := io.ReadFull(br, r.blob[:]); err != nil {
			return unexpected(err)
		}
		return nil
	},
}

// unexpected makes an end of file inside a record an error of its own.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

func compareFileRec(a, b fileRec) int {
	if c := cmp.Compare(a.kind, b.kind); c != 0 {
		return c
	}
	if kindOrder[a.kind] == Standing {
		if c := bytes.Compare(a.claim[:], b.claim[:]); c != 0 {
			return c
		}
	}
	// The first eight bytes almost always decide.
	if c := cmp.Compare(binary.BigEndian.Uint64(a.id[:8]), binary.BigEndian.Uint64(b.id[:8])); c != 0 {
		return c
	}
	return bytes.Compare(a.id[8:], b.id[8:])
}

// NewBulk starts a bulk commit into scope. Put objects into it, then
// Commit or Close it.
func (s *Store) NewBulk(scope string) (*Bulk, error) {
	if s.ReadOnly() {
		return nil, ErrReadOnly
	}
	if err := s.authorKnown(); err != nil {
		return nil, err // before a single object is streamed
	}
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	p, err := s.db.NewBulkPack()
	if err != nil {
		return nil, err
	}
	return &Bulk{
		s: s, scope: scope, pack: p,
		files: extsort.New(fileRunRecords, compareFileRec, fileRecCodec, s.db.TempFile),
	}, nil
}

// Put validates and encodes an object as Batch.Put does and streams it
// into the commit. It returns the object's id, or its validation error
// (and adds nothing). Putting an object twice adds it once.
func (b *Bulk) Put(o objects.Object) (objects.ID, error) {
	if b.spent {
		return objects.ID{}, ErrBatchSpent
	}
	data, r, err := encodeFile(o, b.scratch[:0])
	if err != nil {
		return objects.ID{}, err
	}
	b.scratch = data // all of it: encoded into an empty buffer
	r.blob = Hash(b.pack.Add(plumbing.BlobObject, data))
	return r.id, b.addFile(r)
}

// encodeFile appends o's canonical bytes to dst and returns dst so
// extended, with the object's file record but for its blob.
func encodeFile(o objects.Object, dst []byte) ([]byte, fileRec, error) {
	data, err := o.AppendCanonical(dst)
	if err != nil {
		return dst, fileRec{}, err
	}
	r := fileRec{id: objects.ID(sumID(data[len(dst):]))}
	switch kind := kindOf(o.Type()); kind {
	case Attacks:
		r.kind = 0
	case Claims:
		r.kind = 1
	case Decisions:
		r.kind = 2
	case Standing:
		r.kind, r.claim = 3, standingClaim(o)
	default:
		return dst, fileRec{}, fmt.Errorf("lorestore: %s objects have no section", o.Type())
	}
	return data, r, nil
}

// addFile sends a put object's file to the sort.
func (b *Bulk) addFile(r fileRec) error {
	if err := b.files.Add(r); err != nil {
		return err
	}
	b.n++
	return nil
}

// putAllBatch is how many objects PutAll encodes and names together.
const putAllBatch = 4096

// PutAll puts objs as Put would, one after another, with their encoding
// and hashing shared between GOMAXPROCS goroutines: the pack and the sort
// get the objects in order, so the commit is Put's. On a validation
// error the objects before the first bad one are put and its error is
// returned; none after it is.
func (b *Bulk) PutAll(objs []objects.Object) error {
	if b.spent {
		return ErrBatchSpent
	}
	type encoded struct {
		data []byte
		rec  fileRec
		err  error
	}
	out := make([]encoded, min(len(objs), putAllBatch))
	var namers []odb.Namer
	var bufs [][]byte
	for lo := 0; lo < len(objs); lo += putAllBatch {
		batch := objs[lo:min(len(objs), lo+putAllBatch)]
		workers := min(runtime.GOMAXPROCS(0), len(batch))
		for len(namers) < workers {
			namers, bufs = append(namers, odb.Namer{}), append(bufs, nil)
		}
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				// Worker w takes a run of the batch, its bytes in one buffer.
				from, to := w*len(batch)/workers, (w+1)*len(batch)/workers
				buf := bufs[w][:0]
				for i := from; i < to; i++ {
					at := len(buf)
					var e encoded
					buf, e.rec, e.err = encodeFile(batch[i], buf)
					if e.err == nil {
						e.data = buf[at:len(buf):len(buf)]
						e.rec.blob = Hash(namers[w].Name(plumbing.BlobObject, e.data))
					}
					out[i] = e
				}
				bufs[w] = buf
			})
		}
		wg.Wait()
		for i := range batch {
			e := &out[i]
			if e.err != nil {
				return e.err
			}
			b.pack.AddNamed(plumbing.BlobObject, e.data, plumbing.Hash(e.rec.blob))
			if err := b.addFile(e.rec); err != nil {
				return err
			}
		}
	}
	return nil
}

// Len is the number of objects put, repeats counted.
func (b *Bulk) Len() int { return b.n }

// Close drops a bulk commit that will not be committed, with everything
// it wrote to disk. It is a no-op after Commit or Close.
func (b *Bulk) Close() {
	if b.spent {
		return
	}
	b.spent = true
	b.pack.Abort()
	b.files.Close()
}

// Commit writes the objects as one commit on a branch, built on its head,
// and spends the bulk. The branch moves only after the pack and its index
// are complete and verified; a failure leaves the branch and the object
// store as they were. With o.Refuse, a branch head other than o.Parent is
// a *StaleError. A branch moved by a writer outside deloreis between the
// build and the move is a *StaleError too: a bulk commit is not rebased
// (DL-0272).
func (b *Bulk) Commit(m Message, o CommitOptions) (CommitResult, error) {
	if b.spent {
		return CommitResult{}, ErrBatchSpent
	}
	defer b.Close()
	s := b.s
	if err := m.check(); err != nil {
		return CommitResult{}, err
	}
	if o.Branch == "" {
		o.Branch = DefaultBranch
	}
	ref, err := refs.BranchRef(o.Branch)
	if err != nil {
		return CommitResult{}, err
	}
	head, unlock, err := s.lockedHead(ref, o, o.Parent)
	if err != nil {
		return CommitResult{}, err
	}
	defer unlock()
	pc, err := s.readCommit(head)
	if err != nil {
		return CommitResult{}, err
	}
	tree, err := b.buildRoot(pc.tree)
	if err != nil {
		return CommitResult{}, err
	}
	if tree == pc.tree && !o.AllowEmpty {
		return CommitResult{Commit: head, Parent: head, Empty: true}, nil
	}
	ch := b.pack.Add(plumbing.CommitObject, encodeCommit(s.newCommit(tree, []Hash{head}, m)))
	if err := b.pack.Finish(); err != nil {
		return CommitResult{}, err
	}
	if err := b.verify(Hash(ch), tree); err != nil {
		_ = b.pack.Discard()
		return CommitResult{}, err
	}
	if err := s.refs.Update(ref, ch, plumbing.Hash(head)); err != nil {
		_ = b.pack.Discard()
		var se *refs.StaleError
		if errors.As(err, &se) {
			if se.Actual.IsZero() {
				return CommitResult{}, branchNotFound(o.Branch)
			}
			return CommitResult{}, &StaleError{Branch: o.Branch, Expected: head, Actual: Hash(se.Actual)}
		}
		return CommitResult{}, err
	}
	s.afterCommit()
	return CommitResult{Commit: Hash(ch), Parent: head}, nil
}

// verify reads the new commit and its root tree back through the object
// store (which found the pack by its index and checked both checksums):
// the commit must name the tree built.
func (b *Bulk) verify(ch, tree Hash) error {
	t, data, err := b.s.db.Read(plumbing.Hash(ch))
	if err != nil {
		return fmt.Errorf("lorestore: bulk commit not readable after writing: %w", err)
	}
	c, err := decodeCommit(data)
	if err != nil || t != plumbing.CommitObject || c.tree != tree {
		return &CorruptError{Path: ch.String(), Reason: "the bulk commit did not read back as written"}
	}
	if _, _, err := b.s.db.Read(plumbing.Hash(tree)); err != nil {
		return fmt.Errorf("lorestore: bulk tree not readable after writing: %w", err)
	}
	return nil
}
