// The project a Service serves: found from a folder as git finds its
// repository, its store opened, and its declaration — the documents
// (scopes, their sources) and the dialects — read from the lore at the
// serving commit, with deloreis.toml's local additions on top. Declaring
// a scope is one commit (DeclareScope); every surface reads the one list.

package author

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/deloreis/deloreis/base/names"

	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/project"
)

// StoreOptions say how a lorestore is opened and written: durability, the
// signature of the commits it writes, where its warnings go, its clock.
type StoreOptions = lorestore.Options

// Signature names who writes a commit.
type Signature = lorestore.Signature

// ErrNoProject is what Open answers when no folder from the start up
// holds a project (errors.Is).
var ErrNoProject = project.ErrNoProject

// OpenOptions say which project to open.
type OpenOptions struct {
	// Dir is where the project is looked for: this folder or the nearest
	// parent holding deloreis.toml or a .lore/ store ("" is ".").
	Dir string
	// Store, when given, is the lorestore folder itself: the project is
	// then Dir as it is (not looked for), its settings read when present.
	Store string
	// StoreOptions open the store.
	StoreOptions StoreOptions
	// CacheSize bounds the compiled worlds kept (default 16).
	CacheSize int
}

// FindProject is the project folder from dir or its nearest parent that
// holds one, as git finds a repository; ErrNoProject when there is none.
func FindProject(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	return project.Find(dir)
}

// Open opens the project found from o.Dir: its settings, its store, and a
// Service over them. Close the Service to close the store.
func Open(o OpenOptions) (*Service, error) {
	dir := o.Dir
	if dir == "" {
		dir = "."
	}
	if o.Store == "" {
		root, err := project.Find(dir)
		if err != nil {
			return nil, err
		}
		dir = root
	}
	local, err := project.Load(dir)
	if err != nil {
		return nil, err
	}
	if o.Store != "" {
		local.Store = o.Store
	}
	if local.NoFsync { // deloreis.toml's fsync = false (DL-0414)
		o.StoreOptions.NoFsync = true
	}
	st, err := lorestore.Open(local.Store, o.StoreOptions)
	if err != nil {
		return nil, err
	}
	s, err := New(Config{Store: st, Project: local, Branch: local.Branch, Pin: local.Pin, CacheSize: o.CacheSize})
	if err != nil {
		st.Close()
		return nil, err
	}
	s.ownsStore = true
	return s, nil
}

// Close releases what the Service opened (its store, when Open opened it).
func (s *Service) Close() error {
	if s.ownsStore && s.store != nil {
		return s.store.Close()
	}
	return nil
}

// servingCommit is the commit the project is served at: the pin, or the
// serving branch's head now (zero before the branch's first commit).
func (s *Service) servingCommit() (lorestore.Hash, error) {
	if s.store == nil {
		return lorestore.ZeroHash, nil
	}
	h, _, err := s.openingCommit()
	return h, err
}

// Project is the project as served now: the lore's declaration at the
// serving commit with deloreis.toml's additions, read again when the
// serving commit moves (a sync that brings a new scope is seen on the
// next call, with no restart).
func (s *Service) Project() (*project.Project, error) {
	at, err := s.servingCommit()
	if err != nil {
		return nil, err
	}
	s.projMu.Lock()
	defer s.projMu.Unlock()
	if s.proj != nil && s.projAt == at {
		return s.proj, nil
	}
	decl := &project.Declaration{}
	if !at.IsZero() {
		sn, err := s.store.SnapshotAt(at)
		if err != nil {
			return nil, err
		}
		files, err := sn.ProjectFiles()
		if err != nil {
			return nil, err
		}
		if decl, err = project.ReadDeclaration(files); err != nil {
			return nil, err
		}
	}
	p, err := project.Combine(s.local, decl)
	if err != nil {
		return nil, fault.Errorf(fault.Refused, CodeProjectContradiction, "%v", err)
	}
	s.cache.setDialects(p.Dialects)
	s.proj, s.projAt = p, at
	return p, nil
}

// CodeProjectContradiction: deloreis.toml declares what the lore declares
// otherwise.
const CodeProjectContradiction = "project-contradiction"

func init() { ErrorCodes[CodeProjectContradiction] = fault.Refused }

// sameDialects reports whether two lists of dialects are the same, as a
// world file names them (dialectsHash: their canonical bytes, in order).
func sameDialects(a, b []*objects.Dialect) bool {
	ha, errA := dialectsHash(a)
	hb, errB := dialectsHash(b)
	return errA == nil && errB == nil && ha == hb
}

// documents are the scopes the project declares now, sorted.
func (s *Service) documents() ([]string, error) {
	p, err := s.Project()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(p.Documents))
	for i, d := range p.Documents {
		out[i] = d.Scope
	}
	slices.Sort(out)
	return out, nil
}

// declares reports whether the project declares a scope now.
func (s *Service) declares(scope string) (bool, error) {
	docs, err := s.documents()
	return slices.Contains(docs, scope), err
}

// dialects are the project's dialects now: the lore's and deloreis.toml's.
func (s *Service) dialects() []*objects.Dialect {
	p, err := s.Project()
	if err != nil {
		return s.local.Dialects
	}
	return p.Dialects
}

// errUndeclared refuses a write to a scope the project does not declare,
// naming how to declare it.
func errUndeclared(scope string, docs []string) error {
	declared := "it declares none yet"
	if len(docs) > 0 {
		declared = "it declares " + strings.Join(docs, ", ")
	}
	return fault.Errorf(fault.Refused, CodeUnknownScope,
		"This project declares no document %q (%s). Declare it with `deloreis scope add %s` (or the dli.declare_scope op), then try again.", scope, declared, scope).
		With("scope", scope).With("documents", docs)
}

// DeclareScopeParams declare a document of the project: a scope and,
// optionally, the .dli file it is written in (a slash path relative to
// the project folder).
type DeclareScopeParams struct {
	Scope  string `json:"scope" desc:"the scope (document) to declare: an id (a letter or digit, then letters, digits, - or _; at most 128 bytes)"`
	Source string `json:"source,omitempty" desc:"the .dli file the document is written in, a slash path relative to the project folder; absent for none"`
}

// DeclareScopeResult says what the declaration did.
type DeclareScopeResult struct {
	Scope    string `json:"scope" desc:"the scope declared"`
	Source   string `json:"source" desc:"the .dli source as declared, relative to the project folder; \"\" for none"`
	Declared bool   `json:"declared" desc:"false when the lore already declared it so: nothing was written"`
	Commit   string `json:"commit" desc:"the serving branch's head after the call"`
}

// DeclareScope declares a document in the lore: one commit on the serving
// branch adding project/documents/<scope>.json, pushed and merged like
// any lore. Declaring it again as it is declared writes nothing; a
// different source for a declared scope is refused.
func (s *Service) DeclareScope(_ context.Context, p *DeclareScopeParams) (DeclareScopeResult, error) {
	if !objects.ValidID(p.Scope) {
		return DeclareScopeResult{}, fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: scope %q is not a scope id", p.Scope).With("field", "scope")
	}
	if reason := names.Problem(p.Scope); reason != "" {
		return DeclareScopeResult{}, fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: scope %q %s", p.Scope, reason).With("field", "scope")
	}
	data, err := project.EncodeDocument(p.Scope, p.Source)
	if err != nil {
		return DeclareScopeResult{}, fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: %v", err).With("field", "source")
	}
	st, err := s.needStore()
	if err != nil {
		return DeclareScopeResult{}, err
	}
	if s.cfg.Pin != "" {
		return DeclareScopeResult{}, fault.Errorf(fault.Refused, CodePinnedProject, "This project is pinned to %s: declaring a scope would commit to it.", s.cfg.Pin)
	}
	head, err := s.servingCommit()
	if err != nil {
		return DeclareScopeResult{}, err
	}
	if !head.IsZero() {
		sn, err := st.SnapshotAt(head)
		if err != nil {
			return DeclareScopeResult{}, err
		}
		files, err := sn.ProjectFiles()
		if err != nil {
			return DeclareScopeResult{}, err
		}
		decl, err := project.ReadDeclaration(files)
		if err != nil {
			return DeclareScopeResult{}, err
		}
		declared := make([]string, len(decl.Documents))
		for i, d := range decl.Documents {
			declared[i] = d.Scope
		}
		if other, ok := names.Collides(p.Scope, declared); ok {
			return DeclareScopeResult{}, fault.Errorf(fault.Refused, CodeScopeDeclared,
				"The lore declares scope %s already; %s differs from it only by case or Unicode form.", other, p.Scope).
				With("scope", other)
		}
		if d, ok := decl.Document(p.Scope); ok {
			if d.Source != p.Source {
				return DeclareScopeResult{}, fault.Errorf(fault.Refused, CodeScopeDeclared,
					"The lore declares scope %s with source %q already; it is not declared again with %q.", p.Scope, d.Source, p.Source).
					With("scope", p.Scope).With("source", d.Source)
			}
			return DeclareScopeResult{Scope: p.Scope, Source: d.Source, Commit: head.String()}, nil
		}
	}
	b := lorestore.NewBatch()
	if err := b.PutDocument(p.Scope, data); err != nil {
		return DeclareScopeResult{}, err
	}
	res, err := st.Commit(b, lorestore.NewMessage("declare scope "+p.Scope, "declare", p.Scope),
		lorestore.CommitOptions{Branch: s.cfg.Branch, Parent: head, AllowEmpty: false})
	if errors.Is(err, lorestore.ErrReadOnly) {
		return DeclareScopeResult{}, fault.Errorf(fault.Refused, CodePinnedProject, "The lorestore is open read-only: a scope cannot be declared in it.")
	}
	if err != nil {
		return DeclareScopeResult{}, err
	}
	return DeclareScopeResult{Scope: p.Scope, Source: p.Source, Declared: true, Commit: res.Commit.String()}, nil
}

// CodeScopeDeclared: the scope is declared already, otherwise.
const CodeScopeDeclared = "scope-declared"

func init() { ErrorCodes[CodeScopeDeclared] = fault.Refused }

// DefaultStoreDir is the store's folder inside a project folder, and
// DefaultBranch the canon branch.
const (
	DefaultStoreDir = lorestore.DefaultDir
	DefaultBranch   = lorestore.DefaultBranch
)

// StoreDir is the lorestore folder of the project found from dir (its
// deloreis.toml's store, or its .lore/); ErrNoProject when no folder from
// dir up holds a project.
func StoreDir(dir string) (string, error) {
	root, err := FindProject(dir)
	if err != nil {
		return "", err
	}
	p, err := project.Load(root)
	if err != nil {
		return "", err
	}
	return p.Store, nil
}

// ServingBranch is the branch the project is served on.
func (s *Service) ServingBranch() string { return s.cfg.Branch }

// ErrNoAuthor refuses a commit that nobody signs, when the store's
// options require an author (StoreOptions.RequireAuthor; errors.Is).
var ErrNoAuthor = lorestore.ErrNoAuthor

// DefaultAuthor signs the commits of a writer that names nobody.
var DefaultAuthor = lorestore.DefaultAuthor

// ParseSignature reads "Name <email>".
func ParseSignature(s string) (Signature, error) { return lorestore.ParseSignature(s) }

// GitAuthor is the author git's own configuration names (the store's
// config at gitDir over the global one; "" reads the global alone); ok
// is false when it names nobody.
func GitAuthor(gitDir string) (Signature, bool, error) { return lorestore.GitAuthor(gitDir) }
