package jcs

import (
	"encoding/hex"

	"github.com/zeebo/blake3"
)

// Digest is the BLAKE3-256 hash of canonical bytes: how deloreis names an
// object and fences a workspace.
type Digest [32]byte

// Sum returns the digest of canonical, which the caller has already
// canonicalized (with Transform or a typed encoder).
func Sum(canonical []byte) Digest {
	return blake3.Sum256(canonical)
}

// String returns the digest as 64 lowercase hex digits.
func (d Digest) String() string {
	return hex.EncodeToString(d[:])
}
