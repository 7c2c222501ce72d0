// Loose objects: objects/ab/cdef…, each the zlib compression of
// "<type> <len>\x00" and the content. Real git's receive-pack writes small
// pushes this way, so the reader must understand them.

package odb

import (
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
)

// loosePath returns objects/ab/cdef… for h.
func loosePath(objDir string, h plumbing.Hash) string {
	var buf [41]byte
	hex.Encode(buf[:2], h[:1])
	buf[2] = '/'
	hex.Encode(buf[3:], h[1:])
	return filepath.Join(objDir, string(buf[:]))
}

// hasLoose reports whether the loose file for h exists.
func hasLoose(objDir string, h plumbing.Hash) bool {
	_, err := os.Lstat(loosePath(objDir, h))
	return err == nil
}

// readLoose returns the loose object h, or an error satisfying
// errors.Is(err, os.ErrNotExist) when there is no such file.
func readLoose(objDir string, h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	path := loosePath(objDir, h)
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, err
	}
	t, data, err := inflateLoose(raw)
	if err != nil {
		return 0, nil, corruptf(path, -1, "%v", err)
	}
	return t, data, nil
}

var errLooseHeader = errors.New("bad loose object header")

// parseLooseHeader parses "<type> <len>" (without the NUL).
func parseLooseHeader(hdr []byte) (plumbing.ObjectType, uint64, error) {
	sp := bytes.IndexByte(hdr, ' ')
	if sp < 0 {
		return 0, 0, errLooseHeader
	}
	t, err := plumbing.ParseObjectType(string(hdr[:sp]))
	if err != nil || !isBaseType(t) {
		return 0, 0, errLooseHeader
	}
	n, err := strconv.ParseUint(string(hdr[sp+1:]), 10, 63)
	if err != nil || (len(hdr) > sp+2 && hdr[sp+1] == '0') {
		return 0, 0, errLooseHeader
	}
	return t, n, nil
}

// inflateLoose decodes a loose object file's bytes.
func inflateLoose(src []byte) (plumbing.ObjectType, []byte, error) {
	f := inflaters.Get().(*inflater)
	defer inflaters.Put(f)
	f.src.Reset(src)
	if err := f.zr.(zlib.Resetter).Reset(&f.src, nil); err != nil {
		return 0, nil, err
	}
	var hdr [64]byte
	n, nul := 0, -1
	for nul < 0 && n < len(hdr) {
		m, err := f.zr.Read(hdr[n:])
		if m > 0 {
			nul = bytes.IndexByte(hdr[n:n+m], 0)
			if nul >= 0 {
				nul += n
			}
			n += m
		}
		if err != nil && nul < 0 {
			return 0, nil, errLooseHeader
		}
	}
	if nul < 0 {
		return 0, nil, errLooseHeader
	}
	t, size, err := parseLooseHeader(hdr[:nul])
	if err != nil {
		return 0, nil, err
	}
	have := hdr[nul+1 : n]
	if uint64(len(have)) > size || size > uint64(len(src))*1100+64 {
		return 0, nil, errZlibSize
	}
	out := make([]byte, size)
	copy(out, have)
	if _, err := io.ReadFull(f.zr, out[len(have):]); err != nil {
		return 0, nil, errZlibSize
	}
	if m, err := f.zr.Read(f.one[:]); m != 0 || err != io.EOF {
		return 0, nil, errZlibSize
	}
	return t, out, nil
}
