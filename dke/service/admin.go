// The DKE stores' own lifecycle and the server's keys: the account
// dashboard's part (dke-mcp-contract section 9.5), never the wire's, which
// the command line stands in for. Every change to a store is one commit on
// the branch, so `git log` shows it and history keeps what a delete or a
// restore replaced; a snapshot is a durable ref, moved by no commit.

package service

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/deloreis/deloreis/base/names"

	"github.com/deloreis/deloreis/dke/keys"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// StoreChange is what a lifecycle call did to the branch.
type StoreChange struct {
	// Summary is the commit's subject, as "dke store create alpha".
	Summary string
	// Commit is the commit written, in hex; "" when Empty.
	Commit string
	// Empty: the store already was what the call asked for, and no
	// commit was written.
	Empty bool
}

// StoreSnapshot is one snapshot of a DKE store.
type StoreSnapshot struct {
	Store  string
	Name   string
	Commit string // the commit it records, in hex
}

// StoreRecord is one DKE store as ListStores sees it.
type StoreRecord struct {
	ID string
	// Live: the branch holds the store. A store that has snapshots but
	// that the branch no longer holds is not live, and has no header.
	Live    bool
	Created string // from the header; "" when there is none
	Clock   int64
	Modules int
	// Snapshots are the store's snapshots, by name.
	Snapshots []StoreSnapshot
}

// Errors a lifecycle call can be told apart by.
var (
	// ErrNoStore: the branch holds no such DKE store. It also matches
	// lorestore.ErrNotFound.
	ErrNoStore = errors.New("no such DKE store")
	// ErrStoreExists: the branch holds the store already.
	ErrStoreExists = errors.New("DKE store exists")
)

// noStore is ErrNoStore for one store.
type noStore struct{ id, branch string }

func (e noStore) Error() string { return fmt.Sprintf("no DKE store %s on %s", e.id, e.branch) }

func (e noStore) Is(target error) bool {
	return target == ErrNoStore || target == lorestore.ErrNotFound
}

// storeExists is ErrStoreExists for one store.
type storeExists struct{ id string }

func (e storeExists) Error() string { return fmt.Sprintf("DKE store %s exists already", e.id) }

func (e storeExists) Is(target error) bool { return target == ErrStoreExists }

// adminID refuses what can never name a store.
func adminID(op, id string) error {
	if !keys.ValidStore(id) {
		return fmt.Errorf("dke store %s: %q is not a store id: letters and digits, with '-' or '_' inside", op, id)
	}
	if reason := names.Problem(id); reason != "" {
		return fmt.Errorf("dke store %s: store id %q %s", op, id, reason)
	}
	return nil
}

// liveStores is the head of the branch and the DKE stores it holds. The
// caller holds s.mu.
func (s *Service) liveStores() (*lorestore.Snapshot, []string, error) {
	sn, err := s.cfg.Store.Snapshot(s.cfg.Branch)
	if err != nil {
		return nil, nil, err
	}
	ids, err := sn.DKEStores()
	if err != nil {
		return nil, nil, err
	}
	return sn, ids, nil
}

// HasStore reports whether the head of the branch holds the store id.
func (s *Service) HasStore(id string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ids, err := s.liveStores()
	if err != nil {
		return false, err
	}
	return slices.Contains(ids, id), nil
}

// commitStore commits b, a change to store id, on the branch as one
// commit with the DKE trailers (Lore-Op dke-<op>). The caller holds s.mu.
func (s *Service) commitStore(id string, b *lorestore.Batch, summary, op string) (StoreChange, error) {
	res, err := s.cfg.Store.Commit(b, dkeMessage(summary, op, id), lorestore.CommitOptions{Branch: s.cfg.Branch})
	delete(s.stores, id) // the next call reads the store afresh
	if err != nil {
		return StoreChange{}, err
	}
	if res.Empty {
		return StoreChange{Summary: summary, Empty: true}, nil
	}
	return StoreChange{Summary: summary, Commit: res.Commit.String()}, nil
}

// CreateStore creates the empty DKE store id: one commit adding its
// header, dke/<id>/store.json {store, created, clock: 0}. A store the
// branch holds already is ErrStoreExists.
func (s *Service) CreateStore(id string) (StoreChange, error) {
	if err := adminID("create", id); err != nil {
		return StoreChange{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ids, err := s.liveStores()
	if err != nil {
		return StoreChange{}, err
	}
	if slices.Contains(ids, id) {
		return StoreChange{}, storeExists{id}
	}
	if other, ok := names.Collides(id, ids); ok {
		return StoreChange{}, fmt.Errorf("%w (it differs from %s only by case or Unicode form)", storeExists{other}, id)
	}
	b := lorestore.NewBatch()
	if err := b.PutDKEHeader(id, jsonOf(header{Store: id, Created: s.now().Format(time.RFC3339)})); err != nil {
		return StoreChange{}, err
	}
	return s.commitStore(id, b, "dke store create "+id, "store-create")
}

// DeleteStore removes the DKE store id and everything in it: one commit
// removing dke/<id>/; history keeps it. A store the branch does not hold
// is ErrNoStore. The store's keys stay in the keyring.
func (s *Service) DeleteStore(id string) (StoreChange, error) {
	if err := adminID("delete", id); err != nil {
		return StoreChange{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ids, err := s.liveStores()
	if err != nil {
		return StoreChange{}, err
	}
	if !slices.Contains(ids, id) {
		return StoreChange{}, noStore{id, s.cfg.Branch}
	}
	b := lorestore.NewBatch()
	if err := b.RemoveDKEStore(id); err != nil {
		return StoreChange{}, err
	}
	return s.commitStore(id, b, "dke store delete "+id, "store-delete")
}

// SnapshotStore records the head of the branch as snapshot name of the
// DKE store id (the ref refs/dke-snapshots/<id>/<name>); "" names it by
// the UTC time, 20261201-120000. No commit is written. A store the branch
// does not hold is ErrNoStore; a name taken is refused.
func (s *Service) SnapshotStore(id, name string) (StoreSnapshot, error) {
	if err := adminID("snapshot", id); err != nil {
		return StoreSnapshot{}, err
	}
	if name == "" {
		name = s.now().Format("20060102-150405")
	}
	if !objects.ValidID(name) {
		return StoreSnapshot{}, fmt.Errorf("snapshot name %q: letters and digits, with '-' or '_' inside", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sn, ids, err := s.liveStores()
	if err != nil {
		return StoreSnapshot{}, err
	}
	if !slices.Contains(ids, id) {
		return StoreSnapshot{}, noStore{id, s.cfg.Branch}
	}
	if err := s.cfg.Store.SaveDKESnapshot(id, name, sn.Commit()); err != nil {
		return StoreSnapshot{}, err
	}
	return StoreSnapshot{Store: id, Name: name, Commit: sn.Commit().String()}, nil
}

// RestoreStore makes dke/<id>/ (header, modules, claims) equal to its
// snapshot name again, whether or not the store exists now: one new
// commit, or none when the store already equals the snapshot. Nothing is
// rewritten: the commits between stay in history.
func (s *Service) RestoreStore(id, name string) (StoreChange, error) {
	if err := adminID("restore", id); err != nil {
		return StoreChange{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	at, err := s.cfg.Store.DKESnapshot(id, name)
	if err != nil {
		return StoreChange{}, err
	}
	b, err := restoreBatch(s.cfg.Store, id, at)
	if err != nil {
		return StoreChange{}, err
	}
	return s.commitStore(id, b, "dke store restore "+id+" from "+name, "store-restore")
}

// restoreBatch is a batch that empties dke/<id>/ and fills it with what
// the commit at holds there. Claims are named by their bytes, so each
// comes back under the id it had.
func restoreBatch(s *lorestore.Store, id string, at lorestore.Hash) (*lorestore.Batch, error) {
	sn, err := s.SnapshotAt(at)
	if err != nil {
		return nil, err
	}
	b := lorestore.NewBatch()
	if err := b.RemoveDKEStore(id); err != nil {
		return nil, err
	}
	h, err := sn.DKEHeader(id)
	if err != nil && !errors.Is(err, lorestore.ErrNotFound) {
		return nil, err
	}
	if err == nil {
		if err := b.PutDKEHeader(id, h); err != nil {
			return nil, err
		}
	}
	mods, err := sn.Modules(id)
	if err != nil {
		return nil, err
	}
	for name, data := range mods {
		if err := b.PutModule(id, name, data); err != nil {
			return nil, err
		}
	}
	cs, err := sn.DKEClaims(id, "")
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		if _, err := b.PutDKEClaim(id, c.Kind, c.Data); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// ListStores lists, by id, the DKE stores the branch holds and those that
// only snapshots keep, each with its snapshots.
func (s *Service) ListStores() ([]StoreRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sn, live, err := s.liveStores()
	if err != nil {
		return nil, err
	}
	snaps, err := s.cfg.Store.DKESnapshots("")
	if err != nil {
		return nil, err
	}
	ids := slices.Clone(live)
	for _, r := range snaps {
		ids = append(ids, r.Store)
	}
	slices.Sort(ids)
	var out []StoreRecord
	for _, id := range slices.Compact(ids) {
		rec := StoreRecord{ID: id, Live: slices.Contains(live, id)}
		if rec.Live {
			if err := describeStore(sn, &rec); err != nil {
				return nil, err
			}
		}
		for _, r := range snaps {
			if r.Store == id {
				rec.Snapshots = append(rec.Snapshots, StoreSnapshot{Store: id, Name: r.Name, Commit: r.Commit.String()})
			}
		}
		out = append(out, rec)
	}
	return out, nil
}

// describeStore fills in what the header and the modules of a live store
// say.
func describeStore(sn *lorestore.Snapshot, rec *StoreRecord) error {
	var h header
	if data, err := sn.DKEHeader(rec.ID); err == nil {
		if err := json.Unmarshal(data, &h); err != nil {
			return fmt.Errorf("dke/%s/store.json: %v", rec.ID, err)
		}
	} else if !errors.Is(err, lorestore.ErrNotFound) {
		return err
	}
	mods, err := sn.ModuleNames(rec.ID)
	if err != nil {
		return err
	}
	rec.Created, rec.Clock, rec.Modules = h.Created, h.Clock, len(mods)
	return nil
}

// CreateKey makes a key for the DKE store id that may only read
// (keys.Read) or also write (keys.Write), and returns it with its grant.
// The key is shown only this once: the keyring keeps its SHA-256, which
// the grant's Hash is. A store the branch does not hold yet is no bar.
func (s *Service) CreateKey(id string, mode keys.Mode) (string, keys.Grant, error) {
	r := s.Keyring()
	key, err := r.Create(id, mode, s.cfg.Now())
	if err != nil {
		return "", keys.Grant{}, err
	}
	g, err := r.Lookup(key)
	if err != nil {
		return "", keys.Grant{}, err
	}
	return key, g, nil
}

// Keys lists the keyring's entries, oldest first: hashes, never keys.
func (s *Service) Keys() ([]keys.Entry, error) { return s.Keyring().List() }

// RevokeKey removes from the keyring the one key whose hash starts with
// prefix (lower-case hex). A prefix no key has, or one more than one key
// shares, is refused and revokes nothing.
func (s *Service) RevokeKey(prefix string) error {
	r := s.Keyring()
	es, err := r.List()
	if err != nil {
		return err
	}
	n := 0
	for _, e := range es {
		if strings.HasPrefix(e.Hash, prefix) {
			n++
		}
	}
	switch {
	case n == 0:
		return fmt.Errorf("no key's hash starts with %s", prefix)
	case n > 1:
		return fmt.Errorf("%d keys' hashes start with %s: give more digits", n, prefix)
	}
	_, err = r.Revoke(prefix)
	return err
}
