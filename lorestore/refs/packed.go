// This file holds the packed-refs format: parsing <gitdir>/packed-refs and
// producing its bytes less one entry, for Delete.
//
// The format, as git writes it (see gitrepository-layout(5) and git's
// refs/packed-backend.c documentation):
//
//	# pack-refs with: peeled fully-peeled sorted \n
//	<40 hex> <refname>\n
//	^<40 hex>\n            (optional: the peeled value of the line above)
//
// Deleting an entry drops its line and its peel lines and keeps every other
// byte, so the header's traits stay true and git reads the result as before.

package refs

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/go-git/go-git/v5/plumbing"
)

// hexLen is the length of a hash in hex.
const hexLen = 2 * len(plumbing.ZeroHash)

// packedFile is a parsed packed-refs file.
type packedFile struct {
	raw     []byte
	entries []packedEntry // in file order
}

// packedEntry is one ref of a packed-refs file.
type packedEntry struct {
	name       string
	hash       plumbing.Hash
	start, end int // byte range in raw of the ref line and its peel lines
}

// readPacked reads and parses the packed-refs file at path; a missing file
// is an empty one.
func readPacked(path string) (*packedFile, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &packedFile{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("refs: read packed-refs: %w", err)
	}
	return parsePacked(raw)
}

// parsePacked parses the bytes of a packed-refs file.
func parsePacked(raw []byte) (*packedFile, error) {
	p := &packedFile{raw: raw}
	for pos, lineNo := 0, 1; pos < len(raw); lineNo++ {
		end := bytes.IndexByte(raw[pos:], '\n')
		next := pos + end + 1
		if end < 0 {
			end, next = len(raw)-pos, len(raw)
		}
		line := raw[pos : pos+end]
		switch {
		case len(line) == 0 || line[0] == '#':
			// The header, or a blank line: nothing to record.
		case line[0] == '^':
			if len(p.entries) == 0 || !isHex(line[1:]) {
				return nil, malformedPacked(lineNo)
			}
			p.entries[len(p.entries)-1].end = next
		default:
			if len(line) < hexLen+2 || line[hexLen] != ' ' || !isHex(line[:hexLen]) {
				return nil, malformedPacked(lineNo)
			}
			var h plumbing.Hash
			hex.Decode(h[:], line[:hexLen])
			p.entries = append(p.entries, packedEntry{
				name: string(line[hexLen+1:]), hash: h, start: pos, end: next,
			})
		}
		pos = next
	}
	return p, nil
}

func malformedPacked(line int) error {
	return fmt.Errorf("%w: packed-refs line %d", ErrMalformed, line)
}

// isHex reports whether b is exactly one hash in hex.
func isHex(b []byte) bool {
	if len(b) != hexLen {
		return false
	}
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// lookup returns the packed value of name.
func (p *packedFile) lookup(name string) (plumbing.Hash, bool) {
	if e := p.find(name); e != nil {
		return e.hash, true
	}
	return plumbing.ZeroHash, false
}

func (p *packedFile) find(name string) *packedEntry {
	for i := range p.entries {
		if p.entries[i].name == name {
			return &p.entries[i]
		}
	}
	return nil
}

// without returns the file's bytes with name's entry (and its peel lines)
// removed, every other byte kept.
func (p *packedFile) without(name string) []byte {
	e := p.find(name)
	if e == nil {
		return p.raw
	}
	out := make([]byte, 0, len(p.raw)-(e.end-e.start))
	out = append(out, p.raw[:e.start]...)
	return append(out, p.raw[e.end:]...)
}
