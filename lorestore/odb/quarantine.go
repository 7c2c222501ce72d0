// Quarantine: a received pack that is stored and indexed but not yet part
// of the database. Its objects can be read through the quarantine (over
// the database), so a caller can verify them, and it is then published or
// discarded as a whole.
//
// Publishing first and deleting the pack on a refusal would not be safe: a
// concurrent writer that saw the refused pack's objects as present would
// have skipped writing its own copies, and deleting the pack would lose
// them. A quarantined pack is invisible to every other reader and writer,
// so discarding it takes nothing from anyone (DL-0403).

package odb

import (
	"errors"
	"io"
	"os"

	"github.com/go-git/go-git/v5/plumbing"
)

// ErrQuarantineEnded is returned by a quarantine already published or
// discarded.
var ErrQuarantineEnded = errors.New("odb: the quarantine was already published or discarded")

// Quarantine holds one received pack apart from the database until
// Publish or Discard. It is for one goroutine.
type Quarantine struct {
	db      *DB
	f, xf   *os.File // the temporary pack and its index; flocked while open
	trailer []byte
	p       *pack // nil for an empty pack
	cache   *baseCache
	ended   bool
}

// Receive reads one pack from r as IngestPack does (thin packs are
// completed from the database) and keeps it in quarantine: stored in
// temporary files, indexed, readable through the returned Quarantine and
// invisible to the database's readers until Publish.
func (db *DB) Receive(r io.Reader, progress func(done int)) (*Quarantine, error) {
	if db.closed.Load() {
		return nil, ErrClosed
	}
	f, err := db.takeTemp(tmpPackPrefix)
	if err != nil {
		return nil, err
	}
	q := &Quarantine{db: db, f: f}
	ok := false
	defer func() {
		if !ok {
			q.Discard()
		}
	}()
	ents, trailer, err := streamPack(r, f, progress)
	if err != nil {
		return nil, err
	}
	if len(ents) == 0 {
		return &Quarantine{db: db}, nil // the deferred Discard removes f
	}
	entries, missing, err := db.indexReceived(f.Name(), ents)
	if err == nil && len(missing) > 0 {
		// A thin pack: append the missing bases from this repository, as
		// `git index-pack --fix-thin` does, and index again.
		if ents, trailer, err = db.fixThin(f, ents, missing); err == nil {
			entries, missing, err = db.indexReceived(f.Name(), ents)
			if err == nil && len(missing) > 0 {
				err = ErrThinPack
			}
		}
	}
	if err != nil {
		return nil, err
	}
	q.trailer = trailer
	if err := q.index(entries); err != nil {
		return nil, err
	}
	if progress != nil {
		progress(len(ents))
	}
	ok = true
	return q, nil
}

// index writes the pack's index to a temporary file and maps both, so
// that the pack can be read before it is published.
func (q *Quarantine) index(entries []idxEntry) error {
	xf, err := q.db.tempIndex(entries, q.trailer, nil)
	if err != nil {
		return err
	}
	q.xf = xf
	p := &pack{id: q.db.nextID.Add(1), base: q.f.Name()}
	if p.idxMap, err = mapFile(xf.Name()); err != nil {
		return err
	}
	q.p = p // from here on, Discard unmaps what is mapped
	if p.idx, err = parseIdx(xf.Name(), p.idxMap, false); err != nil {
		return err
	}
	if p.data, err = mapFile(q.f.Name()); err != nil {
		return err
	}
	p.count = p.idx.n
	if err := p.checkPack(p.idx.packChecksum()); err != nil {
		return err
	}
	q.cache = newBaseCache(8 << 20)
	return nil
}

// Len is the number of objects the quarantined pack holds.
func (q *Quarantine) Len() int {
	if q.p == nil {
		return 0
	}
	return q.p.count
}

// Read returns object h from the quarantined pack, or else from the
// database.
func (q *Quarantine) Read(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	return q.read(h, 0)
}

func (q *Quarantine) read(h plumbing.Hash, depth int) (plumbing.ObjectType, []byte, error) {
	if q.ended {
		return 0, nil, ErrQuarantineEnded
	}
	if q.p != nil {
		if i := q.p.idx.find(&h); i >= 0 {
			off, ok := q.p.idx.offset(i)
			if !ok {
				return 0, nil, corruptf(q.p.base, -1, "bad large offset for %s", h)
			}
			return unpack(q.p, off, q.cache, q.read, depth)
		}
	}
	return q.db.read(h, depth)
}

// Has reports whether h is in the quarantined pack or the database.
func (q *Quarantine) Has(h plumbing.Hash) (bool, error) {
	if q.ended {
		return false, ErrQuarantineEnded
	}
	if q.p != nil && q.p.idx.find(&h) >= 0 {
		return true, nil
	}
	return q.db.Has(h)
}

// Publish makes the quarantined pack part of the database, as IngestPack
// would have: the .pack is renamed into place, then the .idx.
func (q *Quarantine) Publish() error {
	if q.ended {
		return ErrQuarantineEnded
	}
	q.ended = true
	if q.p == nil {
		return nil
	}
	q.p.unmap()
	pub, err := q.db.publishFiles(q.f, q.xf, q.trailer)
	q.f.Close()
	q.xf.Close()
	if err != nil {
		q.db.fs.Remove(q.f.Name()) // publishFiles removed the index
		return err
	}
	return q.db.addPack(pub)
}

// Discard removes the quarantined pack; none of its objects were ever
// visible to the database. It may be called after Publish, to no effect.
func (q *Quarantine) Discard() {
	if q.ended {
		return
	}
	q.ended = true
	if q.p != nil {
		q.p.unmap()
	}
	for _, f := range []*os.File{q.f, q.xf} {
		if f != nil {
			f.Close()
			q.db.fs.Remove(f.Name())
		}
	}
}
