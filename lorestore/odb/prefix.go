// Abbreviated object names: the stored objects whose names begin with a
// run of hex digits, as git resolves a short commit id.

package odb

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// MinPrefix is the shortest abbreviation Expand accepts (git's minimum).
const MinPrefix = 4

// ErrBadPrefix is returned (wrapped) for an abbreviation that is not 4 to
// 40 lowercase or uppercase hex digits.
var ErrBadPrefix = errors.New("odb: not an abbreviated object name")

// hexPrefix is a parsed abbreviation: its whole bytes, and the high nibble
// of one more byte when it has an odd number of digits.
type hexPrefix struct {
	whole []byte
	odd   bool
	last  byte // the odd nibble, shifted into the high half
}

func parsePrefix(s string) (hexPrefix, error) {
	if len(s) < MinPrefix || len(s) > 2*hashLen {
		return hexPrefix{}, fmt.Errorf("%w: %q has %d digits, not %d to %d", ErrBadPrefix, s, len(s), MinPrefix, 2*hashLen)
	}
	s = strings.ToLower(s)
	whole, err := hex.DecodeString(s[:len(s)&^1])
	if err != nil {
		return hexPrefix{}, fmt.Errorf("%w: %q is not hex", ErrBadPrefix, s)
	}
	p := hexPrefix{whole: whole}
	if len(s)%2 == 1 {
		n, err := hex.DecodeString(s[len(s)-1:] + "0")
		if err != nil {
			return hexPrefix{}, fmt.Errorf("%w: %q is not hex", ErrBadPrefix, s)
		}
		p.odd, p.last = true, n[0]
	}
	return p, nil
}

// matches reports whether name begins with p.
func (p hexPrefix) matches(name []byte) bool {
	if !bytes.HasPrefix(name, p.whole) {
		return false
	}
	return !p.odd || name[len(p.whole)]&0xf0 == p.last
}

// low is the smallest name p matches.
func (p hexPrefix) low() []byte {
	lo := make([]byte, hashLen)
	copy(lo, p.whole)
	if p.odd {
		lo[len(p.whole)] = p.last
	}
	return lo
}

// Expand returns the names of the stored objects, packed or loose, that
// begin with the hex digits prefix (4 to 40 of them), sorted, at most
// limit of them (limit ≤ 0: all).
func (db *DB) Expand(prefix string, limit int) ([]plumbing.Hash, error) {
	p, err := parsePrefix(prefix)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		s, err := db.acquire()
		if err != nil {
			return nil, err
		}
		var out []plumbing.Hash
		for _, pk := range s.packs {
			out = pk.idx.expand(p, out)
		}
		s.release()
		loose, err := expandLoose(db.objDir, p)
		if err != nil {
			return nil, err
		}
		out = append(out, loose...)
		if len(out) > 0 || attempt == 1 {
			slices.SortFunc(out, func(a, b plumbing.Hash) int { return bytes.Compare(a[:], b[:]) })
			out = slices.Compact(out)
			if limit > 0 && len(out) > limit {
				out = out[:limit]
			}
			return out, nil
		}
		if retry, err := db.refresh(s); err != nil {
			return nil, err
		} else if !retry {
			return nil, nil
		}
	}
}

// expand appends the names of the index that begin with p.
func (ix *idxFile) expand(p hexPrefix, out []plumbing.Hash) []plumbing.Hash {
	lo := p.low()
	start, end := 0, int(binary.BigEndian.Uint32(ix.fanout[int(lo[0])*4:]))
	if lo[0] > 0 {
		start = int(binary.BigEndian.Uint32(ix.fanout[(int(lo[0])-1)*4:]))
	}
	k := start + sort.Search(end-start, func(i int) bool { return bytes.Compare(ix.name(start+i), lo) >= 0 })
	for ; k < end && p.matches(ix.name(k)); k++ {
		out = append(out, plumbing.Hash(ix.name(k)))
	}
	return out
}

// expandLoose lists the loose objects that begin with p: they live in
// objects/<first two digits>/.
func expandLoose(objDir string, p hexPrefix) ([]plumbing.Hash, error) {
	lo := p.low()
	dir := filepath.Join(objDir, hex.EncodeToString(lo[:1]))
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []plumbing.Hash
	for _, e := range ents {
		rest, err := hex.DecodeString(e.Name())
		if err != nil || len(rest) != hashLen-1 {
			continue // a temporary file, not an object
		}
		var h plumbing.Hash
		h[0] = lo[0]
		copy(h[1:], rest)
		if p.matches(h[:]) {
			out = append(out, h)
		}
	}
	return out, nil
}
