// This file holds the Store and its read side: Open, Read, List and Head,
// and the parsing of loose ref files.

package refs

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/deloreis/deloreis/lorestore/fsys"
	"github.com/go-git/go-git/v5/plumbing"
)

// DefaultLockTimeout is the LockTimeout used when Options leaves it zero.
const DefaultLockTimeout = 500 * time.Millisecond

// maxSymrefDepth is how many symbolic refs Read follows, as git does.
const maxSymrefDepth = 5

// Options configures a Store.
type Options struct {
	// NoFsync stops a write from being made durable before it returns.
	// The zero value is durable (DL-0413): the new content is flushed
	// before the lock is renamed over the ref, packed-refs or HEAD, and
	// the folder after, so an update that returned survives a crash of
	// the machine. Set it only where a lost update costs nothing.
	NoFsync bool
	// FS changes the disk; nil is the operating system's (fsys.OS).
	FS fsys.FS
	// LockTimeout is how long Update, Delete and SetHead wait for a lock
	// that another process holds before returning a *LockedError. Zero
	// means DefaultLockTimeout; a negative value means not to wait at all.
	LockTimeout time.Duration
}

// Ref is one ref as List returns it.
type Ref struct {
	Name string
	Hash plumbing.Hash
}

// Store reads and updates the refs of one git directory. It is safe for
// concurrent use by goroutines and by processes, including real git. Close
// removes the spare lock token it keeps ready (see spare.go).
type Store struct {
	gitDir string
	opts   Options
	fs     fsys.FS       // opts.FS, or fsys.OS
	sem    chan struct{} // this process's gate for gitDir (see lock.go)
	spare  spares
}

// Open returns a Store for the git directory gitDir (a bare repository, or
// the .git directory of a work tree). It checks only that gitDir is a
// directory.
func Open(gitDir string, opts Options) (*Store, error) {
	abs, err := filepath.Abs(gitDir)
	if err != nil {
		return nil, fmt.Errorf("refs: open %s: %w", gitDir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("refs: open %s: %w", gitDir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("refs: open %s: not a directory", gitDir)
	}
	if opts.LockTimeout == 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	return &Store{gitDir: abs, opts: opts, fs: fsys.Or(opts.FS), sem: processGate(abs)}, nil
}

// GitDir returns the absolute path of the store's git directory.
func (s *Store) GitDir() string { return s.gitDir }

// path returns the file path of a validated ref name (or of "HEAD",
// "packed-refs" or one of their ".lock" files).
func (s *Store) path(name string) string {
	return filepath.Join(s.gitDir, filepath.FromSlash(name))
}

// looseKind says what a loose ref path holds.
type looseKind int

const (
	looseAbsent   looseKind = iota // no file (or a path through a file)
	looseDir                       // a directory: absent as a ref
	looseHash                      // "<hex>\n"
	looseSymbolic                  // "ref: <target>\n"
)

// loose is the parsed content of a loose ref file.
type loose struct {
	kind   looseKind
	hash   plumbing.Hash
	target string
}

// readLoose reads the loose ref file at path. The file is only ever
// replaced by rename, so one open and read sees either the old or the new
// content in full.
func readLoose(path string) (loose, error) {
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return loose{kind: looseAbsent}, nil
	case errors.Is(err, syscall.EISDIR):
		return loose{kind: looseDir}, nil
	default:
		return loose{}, fmt.Errorf("refs: read %s: %w", path, err)
	}
	if rest, ok := bytes.CutPrefix(data, []byte("ref:")); ok {
		target := string(bytes.TrimSpace(rest))
		if CheckName(target) != nil {
			return loose{}, fmt.Errorf("%w: %s: bad symbolic target %q", ErrMalformed, path, target)
		}
		return loose{kind: looseSymbolic, target: target}, nil
	}
	// As git: the hash, then the end of the file or whitespace.
	if len(data) < hexLen || !isHex(data[:hexLen]) ||
		len(data) > hexLen && !isSpace(data[hexLen]) {
		return loose{}, fmt.Errorf("%w: %s: %q", ErrMalformed, path, abbreviate(data))
	}
	l := loose{kind: looseHash}
	hex.Decode(l.hash[:], data[:hexLen])
	return l, nil
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}

func abbreviate(data []byte) []byte {
	if len(data) > 64 {
		return data[:64]
	}
	return data
}

// Read returns the value of the ref name, from its loose file or else from
// packed-refs, following symbolic refs. A missing ref gives an error that
// satisfies errors.Is(err, ErrNotFound).
func (s *Store) Read(name string) (plumbing.Hash, error) {
	if err := CheckName(name); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.resolve(name, nil)
}

// resolve reads name, following symbolic refs up to maxSymrefDepth. A
// non-nil packed is a packed-refs file already read, as List passes.
func (s *Store) resolve(name string, packed *packedFile) (plumbing.Hash, error) {
	for depth := 0; ; depth++ {
		l, err := readLoose(s.path(name))
		if err != nil {
			return plumbing.ZeroHash, err
		}
		switch l.kind {
		case looseHash:
			return l.hash, nil
		case looseSymbolic:
			if depth >= maxSymrefDepth {
				return plumbing.ZeroHash, fmt.Errorf("%w: %s: symbolic refs nested too deep", ErrMalformed, name)
			}
			name = l.target
			continue
		}
		p := packed
		if p == nil {
			if p, err = readPacked(s.path("packed-refs")); err != nil {
				return plumbing.ZeroHash, err
			}
		}
		if h, ok := p.lookup(name); ok {
			return h, nil
		}
		return plumbing.ZeroHash, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
}

// List returns the refs whose names start with prefix, sorted by name, with
// a loose ref overriding a packed one of the same name and symbolic refs
// resolved (a dangling one is left out). A loose ref file that does not
// parse is left out too, as git leaves it out of its listings; Check
// reports it. An empty prefix means "refs/"; a
// prefix must otherwise start with "refs/". Names that CheckName refuses
// (which git may accept, such as names that are not UTF-8) are left out.
func (s *Store) List(prefix string) ([]Ref, error) {
	if prefix == "" {
		prefix = "refs/"
	}
	dir := prefix[:strings.LastIndexByte(prefix, '/')+1]
	if !strings.HasPrefix(prefix, "refs/") || dir != "refs/" && CheckName(strings.TrimSuffix(dir, "/")) != nil {
		return nil, &NameError{Name: prefix, Reason: "not a valid ref prefix"}
	}
	names, err := s.looseNames(strings.TrimSuffix(dir, "/"))
	if err != nil {
		return nil, err
	}
	values := make(map[string]plumbing.Hash)
	var symbolic []string
	for _, name := range names {
		if !strings.HasPrefix(name, prefix) || CheckName(name) != nil {
			continue
		}
		l, err := readLoose(s.path(name))
		if errors.Is(err, ErrMalformed) {
			continue // git lists around a broken ref too ("ignoring broken ref"); Check reports it
		}
		if err != nil {
			return nil, err
		}
		switch l.kind {
		case looseHash:
			values[name] = l.hash
		case looseSymbolic:
			symbolic = append(symbolic, name)
		}
	}
	// Packed-refs is read after the loose files, as git does: a ref that
	// git pack-refs moves meanwhile is in packed-refs before its loose file
	// goes away.
	packed, err := readPacked(s.path("packed-refs"))
	if err != nil {
		return nil, err
	}
	for _, e := range packed.entries {
		if _, ok := values[e.name]; !ok && strings.HasPrefix(e.name, prefix) && CheckName(e.name) == nil {
			values[e.name] = e.hash
		}
	}
	for _, name := range symbolic {
		h, err := s.resolve(name, packed)
		if errors.Is(err, ErrNotFound) {
			delete(values, name)
			continue
		}
		if err != nil {
			return nil, err
		}
		values[name] = h
	}
	refs := make([]Ref, 0, len(values))
	for name, h := range values {
		refs = append(refs, Ref{Name: name, Hash: h})
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Name < refs[j].Name })
	return refs, nil
}

// looseNames returns the names of the regular files under the ref
// directory dir (such as "refs/heads"), skipping what git skips: names
// beginning with '.' and names ending with ".lock".
func (s *Store) looseNames(dir string) ([]string, error) {
	var names []string
	var walk func(dir string) error
	walk = func(dir string) error {
		entries, err := os.ReadDir(s.path(dir))
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("refs: list %s: %w", dir, err)
		}
		for _, e := range entries {
			n := e.Name()
			if strings.HasPrefix(n, ".") || strings.HasSuffix(n, ".lock") {
				continue
			}
			switch {
			case e.IsDir():
				if err := walk(dir + "/" + n); err != nil {
					return err
				}
			case e.Type().IsRegular():
				names = append(names, dir+"/"+n)
			}
		}
		return nil
	}
	return names, walk(dir)
}

// Head returns the target of the symbolic ref HEAD, such as
// "refs/heads/main". A detached HEAD gives an error satisfying
// errors.Is(err, ErrDetached); a missing one, ErrNotFound.
func (s *Store) Head() (string, error) {
	data, err := os.ReadFile(s.path("HEAD"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: HEAD", ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("refs: read HEAD: %w", err)
	}
	if rest, ok := bytes.CutPrefix(data, []byte("ref:")); ok {
		target := string(bytes.TrimSpace(rest))
		if CheckName(target) != nil {
			return "", fmt.Errorf("%w: HEAD: bad target %q", ErrMalformed, target)
		}
		return target, nil
	}
	if len(data) >= hexLen && isHex(data[:hexLen]) {
		return "", fmt.Errorf("%w: HEAD is %s", ErrDetached, data[:hexLen])
	}
	return "", fmt.Errorf("%w: HEAD: %q", ErrMalformed, abbreviate(data))
}
