// IngestPack: storing a pack received from a remote. The stream is copied
// to a temporary pack while each entry is delimited and each whole object
// hashed; deltas are then resolved from the mapped file, an index is built,
// and the pair is published like any pack we write.

package odb

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"

	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sys/unix"
)

// teeReader hands bytes to the zlib reader one by one or in runs while
// recording everything consumed: into the pack checksum, the current
// entry's CRC and the temporary file. It implements flate.Reader, so the
// decompressor consumes exactly the bytes of each stream.
type teeReader struct {
	br      *bufio.Reader
	out     *bufio.Writer
	sum     hash.Hash
	crc     uint32
	n       uint64 // bytes consumed
	pending []byte
	copyBuf []byte
	err     error // the first read error other than EOF
}

func (t *teeReader) ReadByte() (byte, error) {
	b, err := t.br.ReadByte()
	t.noteErr(err)
	if err == nil {
		t.pending = append(t.pending, b)
		t.n++
		if len(t.pending) >= 1<<16 {
			t.flush()
		}
	}
	return b, err
}

func (t *teeReader) Read(p []byte) (int, error) {
	n, err := t.br.Read(p)
	t.noteErr(err)
	t.pending = append(t.pending, p[:n]...)
	t.n += uint64(n)
	if len(t.pending) >= 1<<16 {
		t.flush()
	}
	return n, err
}

func (t *teeReader) noteErr(err error) {
	if err != nil && err != io.EOF && t.err == nil {
		t.err = err
	}
}

func (t *teeReader) flush() {
	t.sum.Write(t.pending)
	t.crc = crc32.Update(t.crc, crc32.IEEETable, t.pending)
	t.out.Write(t.pending)
	t.pending = t.pending[:0]
}

// ingestEntry is what the streaming pass learns about one entry.
type ingestEntry struct {
	hdr      entryHdr
	crc      uint32
	hash     plumbing.Hash
	resolved bool
}

// IngestPack stores the pack read from r (as received by a fetch or push;
// it may hold OFS_DELTA and REF_DELTA entries) together with a generated
// version-2 index, published atomically. It reads one pack from r, up to
// and including its trailer (it reads ahead, so r should end with the
// pack; anything after the trailer is ignored). A thin pack (deltas against objects
// not in it) is completed with those base objects from this repository,
// like `git index-pack --fix-thin`; a base found nowhere fails with
// ErrThinPack, a malformed pack with a *CorruptError. An empty
// pack is accepted and stores nothing. progress, when non-nil, is called
// with the number of entries received so far, and with the total once the
// pack is stored.
func (db *DB) IngestPack(r io.Reader, progress func(done int)) error {
	q, err := db.Receive(r, progress)
	if err != nil {
		return err
	}
	return q.Publish()
}

// streamPack copies one pack from r to f, delimiting and CRC-ing every
// entry and hashing the whole objects, and returns the entries and the
// verified trailer.
func streamPack(r io.Reader, f *os.File, progress func(int)) ([]ingestEntry, []byte, error) {
	t := &teeReader{br: bufio.NewReaderSize(r, 1<<16), out: bufio.NewWriterSize(f, 1<<20), sum: sha1.New()}
	ents, trailer, err := t.stream(progress)
	if err != nil && t.err != nil {
		// The source failed (say, the connection dropped): say so rather
		// than call the pack corrupt.
		return nil, nil, fmt.Errorf("odb: reading pack: %w", t.err)
	}
	return ents, trailer, err
}

// stream does the work of streamPack.
func (t *teeReader) stream(progress func(int)) ([]ingestEntry, []byte, error) {
	var hdr [packHeaderLen]byte
	if _, err := io.ReadFull(t, hdr[:]); err != nil {
		return nil, nil, corruptf("received pack", 0, "reading header: %v", err)
	}
	if string(hdr[:4]) != "PACK" {
		return nil, nil, corruptf("received pack", 0, "bad pack signature")
	}
	if v := binary.BigEndian.Uint32(hdr[4:8]); v != 2 && v != 3 {
		return nil, nil, corruptf("received pack", 4, "unsupported pack version %d", v)
	}
	count := binary.BigEndian.Uint32(hdr[8:12])
	ents := make([]ingestEntry, 0, min(count, 1<<20))
	var zr io.ReadCloser
	for i := uint32(0); i < count; i++ {
		t.flush()
		t.crc = 0
		e, err := readEntry(t, &zr)
		if err != nil {
			return nil, nil, err
		}
		t.flush()
		e.crc = t.crc
		ents = append(ents, e)
		if progress != nil && (i+1)%progressEvery == 0 {
			progress(int(i + 1))
		}
	}
	t.flush()
	want := t.sum.Sum(nil)
	trailer := make([]byte, hashLen)
	if _, err := io.ReadFull(t.br, trailer); err != nil {
		return nil, nil, corruptf("received pack", int64(t.n), "reading trailer: %v", err)
	}
	if !bytes.Equal(trailer, want) {
		return nil, nil, corruptf("received pack", int64(t.n), "pack checksum mismatch")
	}
	t.out.Write(trailer)
	if err := t.out.Flush(); err != nil {
		return nil, nil, fmt.Errorf("odb: write pack: %w", err)
	}
	return ents, trailer, nil
}

// readEntry reads one entry's header and zlib stream from t.
func readEntry(t *teeReader, zr *io.ReadCloser) (ingestEntry, error) {
	var e ingestEntry
	start := t.n
	bad := func(what string) (ingestEntry, error) {
		return e, corruptf("received pack", int64(start), "%s", what)
	}
	var raw [hashLen + 32]byte
	n := 0
	more := func() bool { // reads a varint byte; false at its end
		b, err := t.ReadByte()
		if err != nil {
			return false
		}
		raw[n] = b
		n++
		return b&0x80 != 0 && n < 20
	}
	for more() {
	}
	if n == 0 || raw[n-1]&0x80 != 0 {
		return bad("bad entry header")
	}
	switch plumbing.ObjectType((raw[0] >> 4) & 7) {
	case plumbing.OFSDeltaObject:
		m := n
		for more() {
		}
		if n == m || raw[n-1]&0x80 != 0 {
			return bad("bad delta offset")
		}
	case plumbing.REFDeltaObject:
		if _, err := io.ReadFull(t, raw[n:n+hashLen]); err != nil {
			return bad("truncated delta base")
		}
		n += hashLen
	}
	raw[n] = 0 // decodeEntryHeader wants a data byte after the header
	h, rel, hn, ok := decodeEntryHeader(raw[:n+1])
	if !ok || hn != n || (h.typ == plumbing.OFSDeltaObject && rel > start-packHeaderLen) {
		return bad("bad entry header")
	}
	h.off = start
	h.baseOff = start - rel
	h.dataOff = start + uint64(n)
	e.hdr = h
	return e, inflateStream(t, zr, &e)
}

// inflateStream consumes the zlib stream of e, checking its size and
// naming it when it is a whole object.
func inflateStream(t *teeReader, zr *io.ReadCloser, e *ingestEntry) error {
	var err error
	if *zr == nil {
		*zr, err = zlib.NewReader(t)
	} else {
		err = (*zr).(zlib.Resetter).Reset(t, nil)
	}
	if err != nil {
		return corruptf("received pack", int64(e.hdr.off), "zlib: %v", err)
	}
	var sink io.Writer = io.Discard
	var d hash.Hash
	if isBaseType(e.hdr.typ) {
		d = sha1.New()
		var hb [32]byte
		d.Write(appendHeader(hb[:0], e.hdr.typ, int(e.hdr.size)))
		sink = d
	}
	if t.copyBuf == nil {
		t.copyBuf = make([]byte, 32<<10)
	}
	n, err := io.CopyBuffer(sink, io.LimitReader(*zr, int64(e.hdr.size)+1), t.copyBuf)
	if err != nil || uint64(n) != e.hdr.size {
		return corruptf("received pack", int64(e.hdr.off), "entry size mismatch or bad zlib data")
	}
	if d != nil {
		d.Sum(e.hash[:0])
		e.resolved = true
	}
	return nil
}

// indexReceived maps the complete temporary pack, resolves every delta to
// name it, and returns the index entries — or, for a thin pack, the names
// of the delta bases that are not in it.
func (db *DB) indexReceived(path string, ents []ingestEntry) ([]idxEntry, map[plumbing.Hash]bool, error) {
	data, err := mapFile(path)
	if err != nil {
		return nil, nil, err
	}
	defer unix.Munmap(data)
	p := &pack{id: db.nextID.Add(1), base: path, data: data, count: len(ents),
		byHash: make(map[[20]byte]uint64, len(ents))}
	if err := p.checkPack(nil); err != nil {
		return nil, nil, err
	}
	done := 0
	for _, e := range ents {
		if e.resolved {
			p.byHash[e.hash] = e.hdr.off
			done++
		}
	}
	cache := newBaseCache(defaultCacheBytes)
	var missing map[plumbing.Hash]bool
	for progressed := true; progressed && done < len(ents); {
		progressed = false
		missing = map[plumbing.Hash]bool{}
		for i := range ents {
			e := &ents[i]
			if e.resolved {
				continue
			}
			t, obj, err := unpack(p, e.hdr.off, cache, nil, 0)
			var mb *missingBaseError
			if errors.As(err, &mb) {
				missing[mb.base] = true // perhaps a delta resolved later
				continue
			}
			if err != nil {
				return nil, nil, err
			}
			cache.put(p.id, e.hdr.off, t, obj)
			e.hash = HashObject(t, obj)
			e.resolved = true
			p.byHash[e.hash] = e.hdr.off
			progressed = true
			done++
		}
	}
	if done < len(ents) {
		return nil, missing, nil
	}
	out := make([]idxEntry, len(ents))
	for i, e := range ents {
		out[i] = idxEntry{hash: e.hash, offset: e.hdr.off, crc: e.crc}
	}
	return out, nil, nil
}

// fixThin appends the objects named in missing that db has (the others
// may be deltas in the pack waiting for those) to the
// temporary pack f as whole objects, then rewrites the object count and
// the trailer. It returns the extended entry list and the new trailer.
func (db *DB) fixThin(f *os.File, ents []ingestEntry, missing map[plumbing.Hash]bool) ([]ingestEntry, []byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("odb: %w", err)
	}
	end := st.Size() - hashLen
	d := deflaters.Get().(*deflater)
	defer deflaters.Put(d)
	var buf []byte
	added := 0
	for h := range missing {
		t, data, err := db.Read(h)
		if errors.Is(err, ErrNotFound) {
			continue // perhaps a delta in the pack whose own base is missing
		}
		if err != nil {
			return nil, nil, err
		}
		added++
		start := len(buf)
		buf = appendEntryHeader(buf, t, uint64(len(data)))
		hdrLen := len(buf) - start
		buf = appendDeflate(buf, d, t, data)
		off := uint64(end) + uint64(start)
		ents = append(ents, ingestEntry{
			hdr:      entryHdr{off: off, typ: t, size: uint64(len(data)), dataOff: off + uint64(hdrLen)},
			crc:      crc32.ChecksumIEEE(buf[start:]),
			hash:     h,
			resolved: true,
		})
	}
	if added == 0 {
		return nil, nil, ErrThinPack
	}
	var count [4]byte
	binary.BigEndian.PutUint32(count[:], uint32(len(ents)))
	if _, err := f.WriteAt(buf, end); err != nil {
		return nil, nil, fmt.Errorf("odb: %w", err)
	}
	if _, err := f.WriteAt(count[:], 8); err != nil {
		return nil, nil, fmt.Errorf("odb: %w", err)
	}
	end += int64(len(buf))
	sum := sha1.New()
	if _, err := io.Copy(sum, io.NewSectionReader(f, 0, end)); err != nil {
		return nil, nil, fmt.Errorf("odb: %w", err)
	}
	trailer := sum.Sum(nil)
	if _, err := f.WriteAt(trailer, end); err != nil {
		return nil, nil, fmt.Errorf("odb: %w", err)
	}
	return ents, trailer, nil
}
