// Hash: the store's own name for a git object, so that no package above
// the lorestore names go-git's plumbing.

package lorestore

import (
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
)

// Hash names a git object of the store — a commit, a tree or a blob — by
// its SHA-1. Above the lorestore a commit is named by this type only; the
// conversion to and from go-git's plumbing.Hash, beneath, costs nothing.
type Hash plumbing.Hash

// ZeroHash is the zero Hash: no commit (a branch with none yet).
var ZeroHash Hash

// IsZero reports whether h is the zero Hash.
func (h Hash) IsZero() bool { return h == ZeroHash }

// String is h in lowercase hex, 40 digits.
func (h Hash) String() string { return plumbing.Hash(h).String() }

// NewHash reads a hash from hex: 40 digits, or fewer (the rest is zero,
// as go-git reads them). Anything that is not hex reads as zero.
func NewHash(s string) Hash { return Hash(plumbing.NewHash(s)) }

// gitHashes is hs as go-git names them, the same memory: a Hash is a
// plumbing.Hash under another name.
func gitHashes(hs []Hash) []plumbing.Hash {
	return unsafe.Slice((*plumbing.Hash)(unsafe.Pointer(unsafe.SliceData(hs))), len(hs))
}
