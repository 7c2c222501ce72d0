// The Service: one project's store, its world cache, and the workspaces
// open on it.

package author

import (
	"errors"
	"fmt"
	"sync"

	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/project"
)

// Config says what a Service serves.
type Config struct {
	Store *lorestore.Store
	// Documents are scopes declared beside the lore's declaration, as a
	// deloreis.toml adds them (Project's documents when a Project is given).
	Documents []string
	Branch    string // the serving branch; "" is main
	Pin       string // a revision the project is pinned to, or ""
	// CacheSize bounds the compiled worlds kept (default 16).
	CacheSize int
	// Dialects are dialects configured beside the lore's (deloreis.toml's
	// [[dialect]] tables): the naming oracle of dli.name.check and of every
	// world (expert_ops.go). Project's when a Project is given.
	Dialects []*objects.Dialect
	// Project is the working folder's settings (deloreis.toml), when the
	// service serves a project folder: its documents and dialects add to
	// the lore's declaration (Service.Project). Store may be nil: the text
	// tools work and the store's reads answer no-store.
	Project *project.Project
	// Budget bounds each request (budget.go); the zero value is no bound.
	Budget Budget
}

// Service holds the open workspaces of one project. Its methods are safe
// for concurrent use; calls on one workspace are serialized, calls on
// different workspaces run in parallel.
type Service struct {
	cfg   Config
	store *lorestore.Store
	cache *worldCache
	// local is the working folder's settings: the project's own documents
	// and dialects, added to the lore's declaration.
	local     *project.Project
	ownsStore bool // Open opened the store: Close closes it

	// The project as served (Project), read again when the serving commit
	// moves.
	projMu sync.Mutex
	proj   *project.Project
	projAt lorestore.Hash
	// forks maps a question id to the documents declaring it at forksAt,
	// the commit workspaces opened on when the service started; nil until
	// a fork is first asked for (forkDocs).
	forksMu  sync.Mutex
	forks    map[string][]string
	forksAt  lorestore.Hash
	forksAny bool           // forksAt names a commit (the branch had one)
	pin      lorestore.Hash // zero unless pinned

	// The text tools' stager over the serving branch's head, kept while
	// the head stays (stagerAt).
	textMu     sync.Mutex
	textStager *Stager
	textHead   lorestore.Hash

	mu         sync.Mutex
	next       int
	workspaces map[string]*Workspace
	tombstones *tombstones
}

// New opens a Service over a store. Forks are resolved from the snapshot
// workspaces would open on now (on first use, so that a start reads no
// scope): restart the service after changing the questions a document
// declares.
func New(cfg Config) (*Service, error) {
	useTransports()
	if cfg.Branch == "" {
		cfg.Branch = lorestore.DefaultBranch
	}
	if cfg.CacheSize <= 0 {
		cfg.CacheSize = 16
	}
	s := &Service{
		cfg: cfg, store: cfg.Store, cache: newWorldCache(cfg.CacheSize),
		workspaces: map[string]*Workspace{}, tombstones: newTombstones(maxTombstones),
	}
	s.local = cfg.Project
	if s.local == nil {
		s.local = &project.Project{Branch: cfg.Branch, Pin: cfg.Pin, Dialects: cfg.Dialects}
		for _, d := range cfg.Documents {
			if !objects.ValidID(d) {
				return nil, fmt.Errorf("author: document %q is not a scope id", d)
			}
			s.local.Documents = append(s.local.Documents, project.Document{Scope: d})
		}
	}
	if cfg.Project != nil {
		s.cfg.Dialects = cfg.Project.Dialects
	}
	s.cache.dialects = s.local.Dialects
	if cfg.Pin != "" && cfg.Store != nil {
		h, err := cfg.Store.Resolve(cfg.Pin)
		if err != nil {
			return nil, fmt.Errorf("author: pinned commit: %w", err)
		}
		s.pin = h
	}
	if cfg.Store == nil {
		return s, nil // the text tools only; every store read answers no-store
	}
	head, ok, err := s.openingCommit()
	if err != nil {
		return nil, err
	}
	s.forksAt, s.forksAny = head, ok
	return s, nil
}

// forkDocs returns the documents that declare question fork at the commit
// the service started on. The forks are resolved on the first call, from
// the compiled worlds of that commit (the world cache: opening the fork
// compiles its world anyway), not at start: a server of a 10M-object
// scope would otherwise read and decode every claim before it answers
// anything, only to find the questions.
func (s *Service) forkDocs(fork string) ([]string, error) {
	s.forksMu.Lock()
	defer s.forksMu.Unlock()
	if s.forks == nil {
		forks, err := s.resolveForks()
		if err != nil {
			return nil, err
		}
		s.forks = forks
	}
	return s.forks[fork], nil
}

// resolveForks finds, for every question a document declares at forksAt,
// the documents that declare it, sorted.
func (s *Service) resolveForks() (map[string][]string, error) {
	forks := map[string][]string{}
	if !s.forksAny {
		return forks, nil
	}
	docs, err := s.documents()
	if err != nil {
		return nil, err
	}
	for _, scope := range docs {
		w, err := s.cache.get(s.store, s.forksAt, scope)
		if err != nil {
			return nil, err
		}
		for _, q := range w.Questions() {
			if !contains(forks[q.Question.Ident], scope) {
				forks[q.Question.Ident] = append(forks[q.Question.Ident], scope)
			}
		}
	}
	return forks, nil
}

// openingCommit is the commit a workspace opened now starts from: the pin,
// or the serving branch's head read now (a live project sees commits other
// servers made). ok is false for a branch with no commit yet.
func (s *Service) openingCommit() (lorestore.Hash, bool, error) {
	return s.openingCommitOn("")
}

// openingCommitOn is openingCommit for a workspace opened on a named
// branch ("" is the serving branch). A named branch must exist: it is
// refused as unknown-branch, where the serving branch with no commit yet
// opens the empty world. A pinned project opens on its pin only, so a
// named branch is refused there (DL-0131).
func (s *Service) openingCommitOn(branch string) (lorestore.Hash, bool, error) {
	if branch != "" {
		if err := checkBranchName("branch", branch); err != nil {
			return lorestore.ZeroHash, false, err
		}
		if !s.pin.IsZero() {
			return lorestore.ZeroHash, false, fault.Errorf(fault.Refused, CodePinnedProject,
				"This project is pinned to commit %s: every workspace opens there, so a workspace cannot open on branch %q.", s.pin.String()[:12], branch).
				With("branch", branch).With("pin", s.pin.String())
		}
		h, err := s.branchHead(branch)
		return h, err == nil, err
	}
	if !s.pin.IsZero() {
		return s.pin, true, nil
	}
	h, err := s.store.Head(s.cfg.Branch)
	if err != nil {
		if errors.Is(err, lorestore.ErrBranchNotFound) {
			return lorestore.ZeroHash, false, nil
		}
		return lorestore.ZeroHash, false, err
	}
	return h, true, nil
}

// workspace finds an open workspace, or says why there is none.
func (s *Service) workspace(id string) (*Workspace, *fault.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ws, ok := s.workspaces[id]; ok {
		return ws, nil
	}
	return nil, errUnknownDoc(id)
}

func errUnknownDoc(id string) *fault.Error {
	return fault.Errorf(fault.Refused, CodeUnknownDoc, "No workspace %q is open; open one with author.open.", id).With("workspace", id)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// ForProject is a Service over a loaded project's settings, over st (nil
// when the project has no store yet: the text tools work, the store's
// reads answer no-store).
func ForProject(st *lorestore.Store, p *project.Project) (*Service, error) {
	return New(Config{Store: st, Branch: p.Branch, Pin: p.Pin, Project: p})
}
