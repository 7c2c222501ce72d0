// Snapshots of a DKE store: a named, durable ref to the commit whose
// dke/<store_id>/ is the snapshot, refs/dke-snapshots/<store_id>/<name>.
// A ref outside refs/heads/ is no branch: it is never committed to, never
// pushed by a branch push, and git keeps what it names alive.

package lorestore

import (
	"errors"
	"strings"

	"github.com/deloreis/deloreis/lorestore/refs"
	"github.com/deloreis/deloreis/objects"
	"github.com/go-git/go-git/v5/plumbing"
)

// DKESnapshotPrefix is where the snapshot refs live.
const DKESnapshotPrefix = "refs/dke-snapshots/"

// ErrSnapshotExists refuses a snapshot name already taken for the store.
var ErrSnapshotExists = errors.New("lorestore: a snapshot of that name already exists")

// DKESnapshotRef is one snapshot of a DKE store.
type DKESnapshotRef struct {
	Store, Name string
	Commit      Hash
}

// dkeSnapshotRef is the ref name of a snapshot, both names validated: the
// store id by the dke/ rule, the snapshot name as an id (no '/', '.' or
// space, so it is one ref component and cannot climb out of the store's).
func dkeSnapshotRef(store, name string) (string, error) {
	if err := checkDKEStore(store); err != nil {
		return "", err
	}
	if !objects.ValidID(name) {
		return "", &NameError{What: "snapshot name", Name: name, Reason: "not an id (letters, digits, '-' and '_', starting with a letter or digit, at most 128 bytes)"}
	}
	return DKESnapshotPrefix + store + "/" + name, nil
}

// SaveDKESnapshot records commit as snapshot name of store. It refuses a
// name the store already has a snapshot under (ErrSnapshotExists).
func (s *Store) SaveDKESnapshot(store, name string, commit Hash) error {
	if s.ReadOnly() {
		return ErrReadOnly
	}
	ref, err := dkeSnapshotRef(store, name)
	if err != nil {
		return err
	}
	if _, err := s.readCommit(commit); err != nil {
		return err
	}
	err = s.refs.Update(ref, plumbing.Hash(commit), plumbing.Hash(ZeroHash))
	if errors.Is(err, refs.ErrStale) {
		return &branchError{branch: store + "/" + name, err: ErrSnapshotExists}
	}
	return err
}

// DKESnapshot returns the commit of snapshot name of store; ErrNotFound
// when there is none.
func (s *Store) DKESnapshot(store, name string) (Hash, error) {
	ref, err := dkeSnapshotRef(store, name)
	if err != nil {
		return ZeroHash, err
	}
	h, err := s.refs.Read(ref)
	if errors.Is(err, refs.ErrNotFound) {
		return ZeroHash, &snapshotNotFound{store: store, name: name}
	}
	return Hash(h), err
}

// DKESnapshots lists the snapshots of store, or of every store when store
// is "", sorted by store then name.
func (s *Store) DKESnapshots(store string) ([]DKESnapshotRef, error) {
	prefix := DKESnapshotPrefix
	if store != "" {
		if err := checkDKEStore(store); err != nil {
			return nil, err
		}
		prefix += store + "/"
	}
	rs, err := s.refs.List(prefix)
	if err != nil {
		return nil, err
	}
	out := make([]DKESnapshotRef, 0, len(rs))
	for _, r := range rs {
		st, name, ok := strings.Cut(strings.TrimPrefix(r.Name, DKESnapshotPrefix), "/")
		if !ok || checkDKEStore(st) != nil || !objects.ValidID(name) {
			continue // not a ref this file wrote
		}
		out = append(out, DKESnapshotRef{Store: st, Name: name, Commit: Hash(r.Hash)})
	}
	return out, nil
}

// snapshotNotFound names the snapshot a store does not have; it matches
// ErrNotFound.
type snapshotNotFound struct{ store, name string }

func (e *snapshotNotFound) Error() string {
	return "lorestore: no such snapshot: " + e.name + " of DKE store " + e.store
}

func (e *snapshotNotFound) Unwrap() error { return ErrNotFound }
