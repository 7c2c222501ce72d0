// Config, Register, and what every op shares: the error codes, revision
// and scope checks, and the stager the text tools stage through.

package dliops

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/project"
	"github.com/deloreis/deloreis/worker"
)

// Config says what the dli.* ops serve.
type Config struct {
	// Store is the project's lorestore; nil when there is none, and then
	// the store ops answer no-store and check stages standalone.
	Store *lorestore.Store
	// Project is the loaded project; its Store is the store's folder as
	// served (an explicit --store already put in). Nil serves no documents.
	Project *project.Project
	// Version is the build version.
	Version string
}

// The codes the dli.* ops answer with beyond the protocol's and author's.
const (
	CodeParseError      = "parse-error"
	CodeNoSuchOp        = "no-such-op"
	CodeScopeMismatch   = "scope-mismatch"
	CodeUnknownRevision = "unknown-revision"
	CodeUnknownObject   = "unknown-object"
	CodeAmbiguousObject = "ambiguous-object"
	CodeBadCursor       = author.CodeBadCursor // one code for a cursor never given, author's reads and dli.export alike
	CodeNoStore         = "no-store"
	CodeProjectPinned   = "project-pinned"
)

// codes are this package's codes with their classes.
var codes = map[string]fault.Class{
	CodeParseError: fault.Invalid, CodeNoSuchOp: fault.NotFound, CodeScopeMismatch: fault.Refused,
	CodeUnknownRevision: fault.NotFound, CodeUnknownObject: fault.NotFound, CodeAmbiguousObject: fault.Refused,
	CodeBadCursor: fault.Invalid, CodeNoStore: fault.Refused, CodeProjectPinned: fault.Refused,
}

// ErrorCodes is the whole error-code reference: the protocol's codes,
// the author ops', and this package's, each with its class.
func ErrorCodes() map[string]fault.Class {
	out := map[string]fault.Class{}
	for _, m := range []map[string]fault.Class{worker.ProtocolCodes, author.ErrorCodes, codes} {
		for c, cl := range m {
			out[c] = cl
		}
	}
	return out
}

// service is the state the ops share.
type service struct {
	cfg  Config
	reg  *worker.Registry
	docs []string // the project's scopes, sorted

	mu     sync.Mutex
	stager *author.Stager // over the branch head it was made at
	head   lorestore.Hash
}

// Register files the dli.* ops of this package in r. The self-describing
// ops read r when they are called, so register everything else too.
func Register(r *worker.Registry, cfg Config) { register(r, cfg) }

func register(r *worker.Registry, cfg Config) *service {
	s := &service{cfg: cfg, reg: r}
	if cfg.Project != nil {
		for _, d := range cfg.Project.Documents {
			s.docs = append(s.docs, d.Scope)
		}
		slices.Sort(s.docs)
	}
	registerMeta(r, s)
	registerText(r, s)
	registerStore(r, s)
	return s
}

// branch is the serving branch.
func (s *service) branch() string {
	if s.cfg.Project != nil && s.cfg.Project.Branch != "" {
		return s.cfg.Project.Branch
	}
	return lorestore.DefaultBranch
}

// pin is the pinned revision, or "".
func (s *service) pin() string {
	if s.cfg.Project == nil {
		return ""
	}
	return s.cfg.Project.Pin
}

// store is the project's store, or the no-store refusal.
func (s *service) store() (*lorestore.Store, error) {
	if s.cfg.Store == nil {
		return nil, fault.Errorf(fault.Refused, CodeNoStore, "This project has no lorestore to read; run deloreis init first.")
	}
	return s.cfg.Store, nil
}

// maxRev bounds a revision string; a longer one names nothing.
const maxRev = 256

// resolve names the commit a revision param points at: "" is the serving
// commit (the pin, else the serving branch's head). ok is false only for
// "" on a branch with no commit yet.
func (s *service) resolve(rev string) (h lorestore.Hash, ok bool, err error) {
	st, err := s.store()
	if err != nil {
		return lorestore.ZeroHash, false, err
	}
	if rev == "" {
		if p := s.pin(); p != "" {
			rev = p
		} else {
			h, err := st.Head(s.branch())
			if errors.Is(err, lorestore.ErrBranchNotFound) {
				return lorestore.ZeroHash, false, nil
			}
			return h, err == nil, err
		}
	}
	if len(rev) > maxRev || !utf8.ValidString(rev) {
		return lorestore.ZeroHash, false, fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: a revision is at most %d bytes of UTF-8", maxRev).With("field", "rev")
	}
	h, err = st.Resolve(rev)
	if err != nil {
		var re *lorestore.RevisionError
		if errors.As(err, &re) || errors.Is(err, lorestore.ErrNotFound) {
			return lorestore.ZeroHash, false, fault.Errorf(fault.NotFound, CodeUnknownRevision, "No commit is named %q: %v", rev, err).With("rev", rev)
		}
		return lorestore.ZeroHash, false, err
	}
	return h, true, nil
}

// mustResolve is resolve for ops that need a commit.
func (s *service) mustResolve(rev string) (lorestore.Hash, error) {
	h, ok, err := s.resolve(rev)
	if err == nil && !ok {
		err = fault.Errorf(fault.NotFound, CodeUnknownRevision, "Branch %s has no commit yet.", s.branch()).With("rev", rev)
	}
	return h, err
}

// checkScope refuses a scope param that is not an id, or (in a project
// that declares documents) not one of them.
func (s *service) checkScope(scope string) error {
	if !objects.ValidID(scope) {
		return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: scope %q is not a scope id", scope).With("field", "scope")
	}
	if len(s.docs) > 0 && !slices.Contains(s.docs, scope) {
		return fault.Errorf(fault.Refused, author.CodeUnknownScope, "No document %q is declared by this project; it declares %v.", scope, s.docs).With("scope", scope)
	}
	return nil
}

// stagerAt returns a stager over the serving branch's head as it is now,
// keeping the one made before while the head has not moved, so that its
// compiled base worlds serve the next call too.
func (s *service) stagerAt() (*author.Stager, lorestore.Hash, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var head lorestore.Hash
	if st := s.cfg.Store; st != nil {
		h, err := st.Head(s.branch())
		if err != nil && !errors.Is(err, lorestore.ErrBranchNotFound) {
			return nil, lorestore.ZeroHash, err
		}
		head = h
	}
	if s.stager == nil || s.head != head {
		st, err := author.NewStager(s.cfg.Store, s.branch())
		if err != nil {
			return nil, lorestore.ZeroHash, err
		}
		s.stager, s.head = st.WithDialects(s.dialects()), head
	}
	return s.stager, head, nil
}

// hashOrEmpty is a commit id, or "" for none.
func hashOrEmpty(h lorestore.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}

// limitCheck refuses a negative or oversized limit.
func limitCheck(limit, max int) error {
	if limit < 0 || limit > max {
		return fmt.Errorf("limit must be 0 (the default) to %d, not %d", max, limit)
	}
	return nil
}

// dialects are the loaded project's [[dialect]] tables (none without a
// project): dli.check and dli.import vet names as a workspace does.
func (s *service) dialects() []*objects.Dialect {
	if s.cfg.Project == nil {
		return nil
	}
	return s.cfg.Project.Dialects
}
