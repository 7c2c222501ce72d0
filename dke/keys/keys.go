// Package keys keeps the access keys of the DKE server: a key addresses
// exactly one DKE store and is a read key or a write key. Keys are random
// and shown once, when made; the keyring stores only their SHA-256, so a
// copy of the keyring grants nothing. The keyring is a file beside the
// lorestore's git data, outside every commit: a key is a credential, never
// lore, and must not travel with a push.
package keys

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/deloreis/deloreis/objects"
)

// FileName is the keyring's file name inside the lorestore directory.
const FileName = "dke-keys.json"

// Mode is what a key may do to its store's data.
type Mode string

// The two modes: a read key calls only the tools that change nothing.
const (
	Read  Mode = "read"
	Write Mode = "write"
)

// Entry is one key as the keyring holds it.
type Entry struct {
	Hash    string    `json:"hash" desc:"hex SHA-256 of the key"`
	Store   string    `json:"store" desc:"the DKE store the key addresses"`
	Mode    Mode      `json:"mode" desc:"read or write"`
	Created time.Time `json:"created" desc:"when the key was made, RFC 3339"`
}

// Grant is what a presented key allows.
type Grant struct {
	Store string
	Mode  Mode
	Hash  string // identifies the key (e.g. to bind an HTTP session to it)
}

// CanWrite reports whether the grant may change its store's data.
func (g Grant) CanWrite() bool { return g.Mode == Write }

// Errors a caller can tell apart.
var (
	ErrUnknownKey = errors.New("keys: no such key")
	ErrBadMode    = errors.New("keys: mode must be read or write")
	ErrBadStore   = errors.New("keys: a store id is letters and digits, with '-' or '_' inside")
	ErrLocked     = errors.New("keys: the keyring is being changed by another process")
)

// prefix marks a deloreis DKE key, so that a leaked one is recognisable.
const prefix = "dke_"

// Ring is a keyring file. Lookup runs on every HTTP request, so the
// parsed ring is kept, by hash, while the file is the one it was read
// from: a change always replaces the file (a rename), so a revoked key
// stops working on the next request.
type Ring struct {
	path string

	mu     sync.Mutex
	seen   os.FileInfo      // the file the cache was read from
	byHash map[string]Entry // its keys
}

// Open returns the keyring of the lorestore at dir (the file may not
// exist yet: then no key is known).
func Open(dir string) *Ring { return &Ring{path: filepath.Join(dir, FileName)} }

// ValidStore reports whether id can name a DKE store: the lorestore's
// rule for a store id (objects.ValidID), so that a key can only ever
// name a store the lorestore could hold.
func ValidStore(id string) bool { return objects.ValidID(id) }

// Create makes a new key for store with mode, records its hash and
// returns the key. It is the only time the key is seen.
func (r *Ring) Create(store string, mode Mode, now time.Time) (string, error) {
	if mode != Read && mode != Write {
		return "", ErrBadMode
	}
	if !ValidStore(store) {
		return "", ErrBadStore
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	key := prefix + string(mode[0]) + "_" + hex.EncodeToString(raw[:])
	err := r.change(func(es []Entry) []Entry {
		return append(es, Entry{Hash: hashOf(key), Store: store, Mode: mode, Created: now.UTC().Truncate(time.Second)})
	})
	if err != nil {
		return "", err
	}
	return key, nil
}

// Revoke removes the keys whose hash starts with hashPrefix (at least 8
// hex digits, so one key is meant) and returns how many went.
func (r *Ring) Revoke(hashPrefix string) (int, error) {
	if len(hashPrefix) < 8 {
		return 0, fmt.Errorf("keys: name a key by at least 8 digits of its hash")
	}
	n := 0
	err := r.change(func(es []Entry) []Entry {
		return slices.DeleteFunc(es, func(e Entry) bool {
			if strings.HasPrefix(e.Hash, hashPrefix) {
				n++
				return true
			}
			return false
		})
	})
	if err == nil && n == 0 {
		err = ErrUnknownKey
	}
	return n, err
}

// List returns the keys' entries, oldest first.
func (r *Ring) List() ([]Entry, error) { return r.read() }

// Lookup returns what key grants, or ErrUnknownKey. The key is compared
// by its hash only: what the keyring holds is never a key.
func (r *Ring) Lookup(key string) (Grant, error) {
	byHash, err := r.index()
	if err != nil {
		return Grant{}, err
	}
	h := hashOf(key)
	if e, ok := byHash[h]; ok {
		return Grant{Store: e.Store, Mode: e.Mode, Hash: h}, nil
	}
	return Grant{}, ErrUnknownKey
}

// index returns the keys by hash, reading the file again only when it is
// not the one last read.
func (r *Ring) index() (map[string]Entry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fi, err := os.Stat(r.path)
	if errors.Is(err, os.ErrNotExist) {
		r.seen, r.byHash = nil, nil
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if r.seen != nil && os.SameFile(r.seen, fi) && r.seen.ModTime().Equal(fi.ModTime()) && r.seen.Size() == fi.Size() {
		return r.byHash, nil
	}
	es, err := r.read()
	if err != nil {
		return nil, err
	}
	byHash := make(map[string]Entry, len(es))
	for _, e := range es {
		byHash[e.Hash] = e
	}
	r.seen, r.byHash = fi, byHash
	return byHash, nil
}

func hashOf(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

func (r *Ring) read() ([]Entry, error) {
	data, err := os.ReadFile(r.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var es []Entry
	if err := json.Unmarshal(data, &es); err != nil {
		return nil, fmt.Errorf("keys: %s is not a keyring: %v", r.path, err)
	}
	return es, nil
}

// change rewrites the keyring under a lock file, atomically (a temp file
// renamed over it), so a reader sees the old ring or the new one.
func (r *Ring) change(f func([]Entry) []Entry) error {
	lock := r.path + ".lock"
	l, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, os.ErrExist) {
		return ErrLocked
	}
	if err != nil {
		return err
	}
	l.Close()
	defer os.Remove(lock)
	es, err := r.read()
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(f(es), "", "  ")
	if err != nil {
		return err
	}
	tmp := r.path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, r.path)
}
