// Object naming: git's "<type> <len>\x00" header and its SHA-1.

package odb

import (
	"crypto/sha1"
	"hash"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
)

// typeNames maps the pack type codes of the four base object types to the
// names git uses in object headers.
var typeNames = [8]string{
	plumbing.CommitObject: "commit",
	plumbing.TreeObject:   "tree",
	plumbing.BlobObject:   "blob",
	plumbing.TagObject:    "tag",
}

// isBaseType reports whether t is one of commit, tree, blob, tag.
func isBaseType(t plumbing.ObjectType) bool {
	return t >= plumbing.CommitObject && t <= plumbing.TagObject
}

// appendHeader appends git's object header "<type> <len>\x00" to dst.
func appendHeader(dst []byte, t plumbing.ObjectType, n int) []byte {
	dst = append(dst, typeNames[t&7]...)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, 0)
}

// A Namer names objects as HashObject does, with one digest it reuses: a
// goroutine naming many objects keeps one.
type Namer struct {
	d   hash.Hash
	hdr [32]byte
}

// Name returns git's name for an object of type t with content data.
func (n *Namer) Name(t plumbing.ObjectType, data []byte) plumbing.Hash {
	if n.d == nil {
		n.d = sha1.New()
	}
	n.d.Reset()
	n.d.Write(appendHeader(n.hdr[:0], t, len(data)))
	n.d.Write(data)
	var h plumbing.Hash
	n.d.Sum(h[:0])
	return h
}

// HashObject returns git's name for an object of type t with content data:
// the SHA-1 of "<type> <len>\x00" followed by data. t must be a commit,
// tree, blob or tag.
func HashObject(t plumbing.ObjectType, data []byte) plumbing.Hash {
	var n Namer
	return n.Name(t, data)
}
