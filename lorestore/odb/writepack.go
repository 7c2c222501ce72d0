// WritePack: streaming a self-contained, non-thin pack of chosen objects,
// as sent by a push.

package odb

import (
	"bufio"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
)

const progressEvery = 1024

// WritePack streams to w a pack holding exactly the given objects (each
// once, in the given order; repeated names are written once), with no
// deltas against objects outside it. Whole objects are copied as stored,
// without recompression; deltas and loose objects are written as whole
// objects. progress, when non-nil, is called every few objects and at the
// end. On error (e.g. a missing object, errors.Is(err, ErrNotFound)) w has
// received a partial pack.
func (db *DB) WritePack(w io.Writer, hashes []plumbing.Hash, progress func(done, total int)) error {
	list := dedupe(hashes)
	s, err := db.acquire()
	if err != nil {
		return err
	}
	defer s.release()
	sum := sha1.New()
	bw := bufio.NewWriterSize(io.MultiWriter(w, sum), 1<<16)
	var hdr [packHeaderLen]byte
	copy(hdr[:], "PACK")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	binary.BigEndian.PutUint32(hdr[8:], uint32(len(list)))
	bw.Write(hdr[:])
	d := deflaters.Get().(*deflater)
	defer deflaters.Put(d)
	var scratch []byte
	for i, h := range list {
		if scratch, err = db.writePackEntry(bw, s, d, scratch, h); err != nil {
			return err
		}
		if progress != nil && (i+1)%progressEvery == 0 {
			progress(i+1, len(list))
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("odb: write pack: %w", err)
	}
	if _, err := w.Write(sum.Sum(nil)); err != nil {
		return fmt.Errorf("odb: write pack: %w", err)
	}
	if progress != nil {
		progress(len(list), len(list))
	}
	return nil
}

// dedupe returns hashes without repeats, keeping first occurrences.
func dedupe(hashes []plumbing.Hash) []plumbing.Hash {
	seen := make(map[plumbing.Hash]struct{}, len(hashes))
	out := make([]plumbing.Hash, 0, len(hashes))
	for _, h := range hashes {
		if _, ok := seen[h]; !ok {
			seen[h] = struct{}{}
			out = append(out, h)
		}
	}
	return out
}

// writePackEntry writes object h: raw when s stores it whole, else as a
// freshly compressed whole object.
func (db *DB) writePackEntry(bw *bufio.Writer, s *packSet, d *deflater, scratch []byte, h plumbing.Hash) ([]byte, error) {
	for _, p := range s.packs {
		i := p.idx.find(&h)
		if i < 0 {
			continue
		}
		off, ok := p.idx.offset(i)
		if !ok {
			return scratch, corruptf(p.base+".idx", -1, "bad large offset for %s", h)
		}
		raw, isDelta, err := p.rawEntry(off, p.idx.crc(i))
		if err != nil {
			return scratch, err
		}
		if !isDelta {
			bw.Write(raw)
			return scratch, nil
		}
		break
	}
	t, data, err := db.Read(h) // deltas, loose objects, packs added since s
	if err != nil {
		return scratch, err
	}
	scratch = appendEntryHeader(scratch[:0], t, uint64(len(data)))
	scratch = appendDeflate(scratch, d, t, data)
	bw.Write(scratch)
	return scratch, nil
}
