// What the dli.* use cases share: their error codes, revision and scope
// checks, and the stager the text tools stage through.

package author

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// The codes the dli.* use cases answer with beyond the workspace ops'.
const (
	CodeParseError      = "parse-error"
	CodeNoSuchOp        = "no-such-op"
	CodeScopeMismatch   = "scope-mismatch"
	CodeUnknownRevision = "unknown-revision"
	CodeUnknownObject   = "unknown-object"
	CodeAmbiguousObject = "ambiguous-object"
	CodeNoStore         = "no-store"
	CodeProjectPinned   = "project-pinned"
)

func init() {
	for code, class := range map[string]fault.Class{
		CodeParseError: fault.Invalid, CodeNoSuchOp: fault.NotFound, CodeScopeMismatch: fault.Refused,
		CodeUnknownRevision: fault.NotFound, CodeUnknownObject: fault.NotFound, CodeAmbiguousObject: fault.Refused,
		CodeNoStore: fault.Refused, CodeProjectPinned: fault.Refused,
	} {
		ErrorCodes[code] = class
	}
}

// needStore is the project's store, or the no-store refusal.
func (s *Service) needStore() (*lorestore.Store, error) {
	if s.store == nil {
		return nil, fault.Errorf(fault.Refused, CodeNoStore, "This project has no lorestore to read; run deloreis init first.")
	}
	return s.store, nil
}

// maxRev bounds a revision string; a longer one names nothing.
const maxRev = 256

// resolve names the commit a revision param points at: "" is the serving
// commit (the pin, else the serving branch's head). ok is false only for
// "" on a branch with no commit yet.
func (s *Service) resolve(rev string) (h lorestore.Hash, ok bool, err error) {
	st, err := s.needStore()
	if err != nil {
		return lorestore.ZeroHash, false, err
	}
	if rev == "" {
		if s.cfg.Pin != "" {
			rev = s.cfg.Pin
		} else {
			h, err := st.Head(s.cfg.Branch)
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

// mustResolve is resolve for use cases that need a commit.
func (s *Service) mustResolve(rev string) (lorestore.Hash, error) {
	h, ok, err := s.resolve(rev)
	if err == nil && !ok {
		err = fault.Errorf(fault.NotFound, CodeUnknownRevision, "Branch %s has no commit yet.", s.cfg.Branch).With("rev", rev)
	}
	return h, err
}

// checkDocument refuses a scope param that is not an id, or (in a project
// that declares documents) not one of them.
func (s *Service) checkDocument(scope string) error {
	if !objects.ValidID(scope) {
		return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: scope %q is not a scope id", scope).With("field", "scope")
	}
	docs, err := s.documents()
	if err != nil {
		return err
	}
	if !slices.Contains(docs, scope) {
		return errUndeclared(scope, docs)
	}
	return nil
}

// stagerAt returns a stager over the serving branch's head as it is now,
// keeping the one made before while the head has not moved, so that its
// compiled base worlds serve the next call too.
func (s *Service) stagerAt() (*Stager, lorestore.Hash, error) {
	s.textMu.Lock()
	defer s.textMu.Unlock()
	var head lorestore.Hash
	if st := s.store; st != nil {
		h, err := st.Head(s.cfg.Branch)
		if err != nil && !errors.Is(err, lorestore.ErrBranchNotFound) {
			return nil, lorestore.ZeroHash, err
		}
		head = h
	}
	if s.textStager == nil || s.textHead != head {
		st, err := NewStager(s.store, s.cfg.Branch)
		if err != nil {
			return nil, lorestore.ZeroHash, err
		}
		s.textStager, s.textHead = st.WithDialects(s.dialects()), head
	}
	return s.textStager, head, nil
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

// Empty is the params of a use case that takes none.
type Empty struct{}

// FindingRow is one catalogued finding code.
type FindingRow struct {
	Code     string         `json:"code" desc:"the finding code, as findings carry it"`
	Severity world.Severity `json:"severity" desc:"error, warn or info: an error finding bars author.materialize, warn and info do not"`
	Grade    world.Evidence `json:"grade" desc:"asserted, checked or derived: the strength of the evidence (asserted < checked < derived)"`
	Meaning  string         `json:"meaning" desc:"what a finding of this code says, in one line"`
}

// FindingsResult is dli.findings.
type FindingsResult struct {
	Findings []FindingRow `json:"findings" desc:"every finding code the checks can give, sorted by code"`
}

// Findings is the finding catalogue, by code.
func (s *Service) Findings(_ context.Context, _ *Empty) (FindingsResult, error) {
	res := FindingsResult{Findings: make([]FindingRow, len(world.Catalogue))}
	for i, c := range world.Catalogue {
		res.Findings[i] = FindingRow{Code: c.Code, Severity: c.Severity, Grade: c.Grade, Meaning: c.Meaning}
	}
	sort.Slice(res.Findings, func(i, j int) bool { return res.Findings[i].Code < res.Findings[j].Code })
	return res, nil
}

// The store format this build reads and writes, and the contract version
// it writes into a store's lore.json (dli.version).
const (
	StoreFormat   = lorestore.FormatVersion
	StoreContract = lorestore.ContractVersion
)
