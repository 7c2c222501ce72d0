// The Store: opening and creating a lorestore, its options, the store header
// and the caches of decoded trees and commits.

package lorestore

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deloreis/deloreis/jcs"
	"github.com/deloreis/deloreis/lorestore/fsys"
	"github.com/deloreis/deloreis/lorestore/odb"
	"github.com/deloreis/deloreis/lorestore/refs"
	"github.com/go-git/go-git/v5/plumbing"
)

// DefaultDir is where a project keeps its lorestore.
const DefaultDir = ".lore"

// DefaultBranch is canon.
const DefaultBranch = "main"

// FormatVersion is the tree layout this package writes and reads.
const FormatVersion = 1

// ContractVersion is the DLI contract the store was written under.
const ContractVersion = "2.0.0"

const headerPath = "lore.json"

// Options tune a Store. The zero value is usable.
type Options struct {
	// NoFsync stops the store from flushing what it writes before a ref
	// moves onto it. The zero value is durable (DL-0413): a pack, its index
	// and objects/pack are flushed before the ref moves, the ref and its
	// folder after, so a commit whose call returned survives a crash of the
	// machine. With NoFsync a crash of the machine (not of the process) may
	// lose the last commits or leave a branch naming a pack of zeros; set
	// it only for a load that can be redone from its source, and in tests.
	NoFsync bool
	// FS changes the disk; nil is the operating system's (fsys.OS). Tests
	// give a recording one (package lorestore/crashtest).
	FS fsys.FS
	// Author signs commits; the default is DefaultAuthor. (The command
	// line picks it from --author, DELOREIS_AUTHOR or GitAuthor.)
	Author Signature
	// RequireAuthor refuses to write a commit while Author is unset
	// (ErrNoAuthor, before anything is written), as git refuses one
	// without user.name and user.email, instead of signing DefaultAuthor.
	// Init's root commit is the store's own and signed DefaultAuthor.
	RequireAuthor bool
	// Now gives commit times; the default is time.Now.
	Now func() time.Time
	// MaxRetries bounds how often an additive write rebases onto a branch
	// that moved under it (default 64).
	MaxRetries int
	// AutoPackLimit is passed to odb: roll small packs up past this many.
	AutoPackLimit int
	// LockTimeout is how long a ref update waits for a lock another process
	// holds (default 2s).
	LockTimeout time.Duration
	// Warnings hears what the store tolerates but a user should know, one
	// line each: a pack in objects/pack that cannot be used and is skipped
	// (as git skips it; Fsck reports it). Nil: nothing is said.
	Warnings io.Writer
	// StoreID is the id Init writes into the header of a new store (32
	// lowercase hex digits); empty draws a random one. Fix it only to
	// rebuild a fixture reproducibly (the demo world): two stores with one
	// id made in the same second share their root commit, and then pull
	// between them as if they were related.
	StoreID string

	anonymous bool // Author was unset: withDefaults filled it in
}

func (o Options) withDefaults() Options {
	if o.Author.Name == "" {
		o.Author.Name, o.Author.Email = DefaultAuthor.Name, DefaultAuthor.Email
		o.anonymous = true
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxRetries <= 0 {
		o.MaxRetries = 64
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = 2 * time.Second
	}
	return o
}

// Store is an open lorestore. It is safe for concurrent use; other processes
// (other deloreis writers, real git) may use the same repository at the same
// time.
type Store struct {
	gitDir string
	opts   Options
	db     *odb.DB
	objs   objectSource // where reads go: db, or a quarantine over it
	refs   *refs.Store
	pinned Hash // non-zero: read-only at this commit

	cacheMu sync.Mutex
	trees   map[Hash][]treeEntry
	commits map[Hash]*gitCommit

	rolling    atomic.Bool    // a background roll-up of packs is running
	background sync.WaitGroup // background work Close waits for
}

// objectSource is where a store reads objects: its database, or, while a
// sync verifies a fetched pack, that pack in quarantine over the database.
type objectSource interface {
	Read(h plumbing.Hash) (plumbing.ObjectType, []byte, error)
	Has(h plumbing.Hash) (bool, error)
}

// cache bounds: past these, a map is dropped and refilled.
const (
	maxCachedTrees   = 1 << 14
	maxCachedCommits = 1 << 16
)

// Init creates a bare lorestore at dir with an initial commit on main that
// holds the store header. dir must not exist or must be empty.
func Init(dir string, opts Options) (*Store, error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%w: %s is not empty", ErrExists, dir)
	}
	if err := initBare(dir, opts); err != nil {
		return nil, err
	}
	s, err := Open(dir, opts)
	if err != nil {
		return nil, err
	}
	if err := s.writeInitCommit(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// initBare lays out an empty bare git repository whose HEAD names main;
// unless opts.NoFsync, its files and folders are flushed.
func initBare(dir string, opts Options) error {
	fs, durable := fsys.Or(opts.FS), !opts.NoFsync
	for _, d := range []string{"objects/pack", "objects/info", "refs/heads", "refs/tags"} {
		if err := fsys.MkdirAll(fs, filepath.Join(dir, d), 0o755, durable); err != nil {
			return fmt.Errorf("lorestore: init: %w", err)
		}
	}
	files := []struct{ name, body string }{
		{"HEAD", "ref: refs/heads/" + DefaultBranch + "\n"},
		{"config", "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n"},
		{"description", "deloreis lorestore\n"},
	}
	for _, f := range files {
		if err := fsys.WriteFile(fs, filepath.Join(dir, f.name), []byte(f.body), 0o644, durable); err != nil {
			return fmt.Errorf("lorestore: init: %w", err)
		}
	}
	if durable {
		if err := fs.SyncDir(dir); err != nil {
			return fmt.Errorf("lorestore: init: %w", err)
		}
	}
	return nil
}

func (s *Store) writeInitCommit() error {
	b := s.db.NewBatch()
	id := s.opts.StoreID
	if id == "" {
		var err error
		if id, err = newStoreID(); err != nil {
			return err
		}
	}
	hdr := b.Add(plumbing.BlobObject, encodeHeader(id))
	tree, err := encodeTree([]treeEntry{{name: headerPath, mode: modeBlob, hash: Hash(hdr)}})
	if err != nil {
		return err
	}
	th := b.Add(plumbing.TreeObject, tree)
	c := s.newCommit(Hash(th), nil, NewMessage("init lorestore", "init", ""))
	ch := b.Add(plumbing.CommitObject, encodeCommit(c))
	if err := b.Write(); err != nil {
		return err
	}
	return s.refs.Update("refs/heads/"+DefaultBranch, ch, plumbing.Hash(ZeroHash))
}

// encodeHeader is the canonical store header blob (keys in RFC 8785 order).
func encodeHeader(storeID string) []byte {
	buf := []byte(`{"contract":`)
	buf, _ = jcs.AppendString(buf, ContractVersion)
	buf = fmt.Appendf(buf, `,"format":%d,"kind":"deloreis-lorestore","store":"%s"}`, FormatVersion, storeID)
	return buf
}

// storeIDLen is the length of a store id in hex digits (128 random bits).
const storeIDLen = 32

// newStoreID draws a store id. Two stores made in the same second by the
// same author would otherwise write byte-identical root commits, and a
// pull between them would pass as related history.
func newStoreID() (string, error) {
	var b [storeIDLen / 2]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("lorestore: init: drawing a store id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

func validStoreID(id string) bool {
	if len(id) != storeIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Open opens the lorestore in dir: a bare repository, or a work tree whose
// .git holds one (as real `git clone` makes).
func Open(dir string, opts Options) (*Store, error) {
	gitDir, err := findGitDir(dir)
	if err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	oo := odb.Options{NoFsync: opts.NoFsync, FS: opts.FS, AutoPackLimit: opts.AutoPackLimit, ConsolidateByCaller: true}
	if w := opts.Warnings; w != nil {
		oo.OnSkippedPack = func(err error) {
			fmt.Fprintf(w, "warning: skipping an unusable pack (run fsck): %v\n", err)
		}
	}
	db, err := odb.Open(gitDir, oo)
	if err != nil {
		return nil, err
	}
	rs, err := refs.Open(gitDir, refs.Options{NoFsync: opts.NoFsync, FS: opts.FS, LockTimeout: opts.LockTimeout})
	if err != nil {
		db.Close()
		return nil, err
	}
	if err := opts.Author.check(); err != nil {
		db.Close()
		return nil, err
	}
	if opts.StoreID != "" && !validStoreID(opts.StoreID) {
		db.Close()
		return nil, fmt.Errorf("lorestore: store id %q is not %d lowercase hex digits", opts.StoreID, storeIDLen)
	}
	return &Store{
		gitDir:  gitDir,
		opts:    opts,
		db:      db,
		objs:    objectSource(db),
		refs:    rs,
		trees:   make(map[Hash][]treeEntry),
		commits: make(map[Hash]*gitCommit),
	}, nil
}

// OpenAt opens the lorestore read-only, pinned to the commit rev names now.
// Every write returns ErrReadOnly; Snapshot("") reads the pinned commit.
func OpenAt(dir, rev string, opts Options) (*Store, error) {
	s, err := Open(dir, opts)
	if err != nil {
		return nil, err
	}
	h, err := s.Resolve(rev)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.pinned = h
	return s, nil
}

func findGitDir(dir string) (string, error) {
	isRepo := func(d string) bool {
		st1, err1 := os.Stat(filepath.Join(d, "objects"))
		st2, err2 := os.Stat(filepath.Join(d, "HEAD"))
		return err1 == nil && err2 == nil && st1.IsDir() && st2.Mode().IsRegular()
	}
	if isRepo(dir) {
		return dir, nil
	}
	if d := filepath.Join(dir, ".git"); isRepo(d) {
		return d, nil
	}
	return "", fmt.Errorf("%w: %s holds no git repository", ErrNotLorestore, dir)
}

// Dir is the git directory of the store.
func (s *Store) Dir() string { return s.gitDir }

// ReadOnly reports whether the store is pinned to a commit.
func (s *Store) ReadOnly() bool { return !s.pinned.IsZero() }

// Pinned is the commit a read-only store is pinned to (zero otherwise).
func (s *Store) Pinned() Hash { return s.pinned }

// WaitBackground blocks until background housekeeping (the roll-up of
// small packs after commits) has finished, so that a tool reading the
// repository behind the store's back, such as git fsck, finds the pack
// directory settled. (git fsck run during a roll-up can report a pack it
// listed as gone, exactly as during a concurrent git repack.)
func (s *Store) WaitBackground() { s.background.Wait() }

// Close waits for background housekeeping and releases the store's files.
func (s *Store) Close() error {
	s.background.Wait()
	return errors.Join(s.refs.Close(), s.db.Close())
}

// readTree returns the decoded entries of a tree, cached. Callers must not
// modify the returned slice.
func (s *Store) readTree(h Hash) ([]treeEntry, error) {
	return s.treeEntries(h, true)
}

// treeEntries returns the decoded entries of a tree from the cache, or
// read and decoded, filling the cache when fill is set.
func (s *Store) treeEntries(h Hash, fill bool) ([]treeEntry, error) {
	s.cacheMu.Lock()
	es, ok := s.trees[h]
	s.cacheMu.Unlock()
	if ok {
		return es, nil
	}
	t, data, err := s.objs.Read(plumbing.Hash(h))
	if err != nil {
		return nil, err
	}
	if t != plumbing.TreeObject {
		return nil, &CorruptError{Path: h.String(), Reason: "expected a tree, found a " + t.String()}
	}
	if es, err = decodeTree(data); err != nil {
		return nil, err
	}
	if fill {
		s.cacheTree(h, es)
	}
	return es, nil
}

func (s *Store) cacheTree(h Hash, es []treeEntry) {
	s.cacheMu.Lock()
	if len(s.trees) >= maxCachedTrees {
		clear(s.trees)
	}
	s.trees[h] = es
	s.cacheMu.Unlock()
}

// readCommit returns a decoded commit, cached.
func (s *Store) readCommit(h Hash) (*gitCommit, error) {
	s.cacheMu.Lock()
	c, ok := s.commits[h]
	s.cacheMu.Unlock()
	if ok {
		return c, nil
	}
	t, data, err := s.objs.Read(plumbing.Hash(h))
	if err != nil {
		if errors.Is(err, odb.ErrNotFound) {
			return nil, &RevisionError{Rev: h.String(), Reason: "no such commit"}
		}
		return nil, err
	}
	if t != plumbing.CommitObject {
		return nil, &RevisionError{Rev: h.String(), Reason: "is a " + t.String() + ", not a commit"}
	}
	if c, err = decodeCommit(data); err != nil {
		return nil, err
	}
	s.cacheMu.Lock()
	if len(s.commits) >= maxCachedCommits {
		clear(s.commits)
	}
	s.commits[h] = c
	s.cacheMu.Unlock()
	return c, nil
}

// authorKnown refuses a commit that would be signed DefaultAuthor while
// Options.RequireAuthor is set.
func (s *Store) authorKnown() error {
	if s.opts.RequireAuthor && s.opts.anonymous {
		return ErrNoAuthor
	}
	return nil
}

func (s *Store) newCommit(tree Hash, parents []Hash, m Message) *gitCommit {
	sig := s.opts.Author
	sig.When = s.opts.Now()
	return &gitCommit{tree: tree, parents: parents, author: sig, committer: sig, message: m.encode()}
}
