// The branch and merge ops of DLI section 3.18. Both act on durable refs
// (refs/heads/<name>) through the mutation law: the workspace they name
// gives the fence and keeps the idempotency keys, but what they change is
// the store's branches, not what the workspace stages.

package author

import (
	"context"
	"errors"

	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/lorestore/refs"
	"github.com/deloreis/deloreis/world"
)

// Error codes of the branch and merge ops.
const (
	CodeUnknownBranch      = "unknown-branch"
	CodeBranchExists       = "branch-exists"
	CodeBranchProtected    = "branch-protected"
	CodeUnrelatedHistories = "unrelated-histories"
	CodeMergeRefused       = "merge-refused"
	CodePinnedProject      = "pinned-project"
)

func init() {
	ErrorCodes[CodeUnknownBranch] = fault.NotFound
	ErrorCodes[CodeBranchExists] = fault.Refused
	ErrorCodes[CodeBranchProtected] = fault.Refused
	ErrorCodes[CodeUnrelatedHistories] = fault.Refused
	ErrorCodes[CodeMergeRefused] = fault.Refused
	ErrorCodes[CodePinnedProject] = fault.Refused
}

// Branch actions.
const (
	BranchCreate = "create"
	BranchList   = "list"
	BranchDelete = "delete"
)

// BranchParams create, list or delete a branch.
type BranchParams struct {
	Workspace string `json:"workspace" desc:"the workspace id author.open returned (ws-N); its lorestore is the one branched"`
	Action    string `json:"action" desc:"create, list or delete"`
	Name      string `json:"name,omitempty" desc:"the branch to create or delete; required for create and delete, refused for list"`
	From      string `json:"from,omitempty" desc:"create only: the branch whose head the new one starts at (default main)"` // create only; default main
}

// Validate checks the action and that the names it needs are there and
// are branch names; nothing is looked up in the store yet.
func (p *BranchParams) Validate() error {
	switch p.Action {
	case BranchCreate, BranchDelete:
		if p.Name == "" {
			return fault.Errorf(fault.Invalid, fault.CodeMissingField, "params: action %s needs field name", p.Action).With("field", "name")
		}
		if err := checkBranchName("name", p.Name); err != nil {
			return err
		}
	case BranchList:
		if p.Name != "" {
			return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: action list takes no name").With("field", "name")
		}
	default:
		return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: action must be create, list or delete").
			With("field", "action").With("allowed", []string{BranchCreate, BranchList, BranchDelete})
	}
	if p.From != "" {
		if p.Action != BranchCreate {
			return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: from is for action create only").With("field", "from")
		}
		return checkBranchName("from", p.From)
	}
	return nil
}

// BranchInfo is one branch and the commit it points at.
type BranchInfo struct {
	Name string `json:"name" desc:"the branch name"`
	Head string `json:"head" desc:"the commit it points at (40 hex digits)"`
}

// BranchResult says what a branch call did: the branch created or deleted
// and its head (for delete, the commit it pointed at), or every branch.
type BranchResult struct {
	Action          string       `json:"action" desc:"the action done, as asked: create, list or delete"`
	Branch          string       `json:"branch,omitempty" desc:"the branch created or deleted; absent for list"`
	Head            string       `json:"head,omitempty" desc:"the new branch's head, or for delete the commit it pointed at (40 hex digits); absent for list"`
	Branches        []BranchInfo `json:"branches,omitempty" desc:"list: every branch, sorted by name; absent for create and delete"`
	WorkspaceDigest string       `json:"workspace_digest" desc:"the workspace's digest, unchanged: a branch call stages nothing"`
}

// MergeParams merge branch source into branch target (default main).
type MergeParams struct {
	Workspace string `json:"workspace" desc:"the workspace id author.open returned (ws-N); its lorestore is the one merged in"`
	Source    string `json:"source" desc:"the branch to merge from"`
	Target    string `json:"target,omitempty" desc:"the branch to merge into (default main)"`
}

// Validate checks both names are branch names.
func (p *MergeParams) Validate() error {
	if err := checkBranchName("source", p.Source); err != nil {
		return err
	}
	if p.Target != "" {
		return checkBranchName("target", p.Target)
	}
	return nil
}

// MergeConflict is one world conflict a merge brings, in its scope.
type MergeConflict struct {
	Kind    string         `json:"kind" desc:"valuation (the sides give a claim different standings or grades), exclusivity (a question answered two ways) or functional (two certain values of a functional predicate)"` // valuation, exclusivity or functional
	Claims  []string       `json:"claims" desc:"the object ids (64 hex digits) of the claims in conflict"`
	Message string         `json:"message" desc:"the conflict in words, for a reader"`
	Data    map[string]any `json:"data" desc:"the conflict's details by kind (ours and theirs for valuation, question and options for exclusivity, …); {} when there are none"`
	Scope   string         `json:"scope" desc:"the document (scope) the conflict is in"`
}

// MergeFinding is an error finding the merged world has and neither side
// had (functional violations are conflicts, not repeated here).
type MergeFinding struct {
	Scope string `json:"scope" desc:"the document (scope) whose merged world has the finding"`
	world.Finding
}

// AuthorMergeResult is what a merge did. RootHash is the merge commit when
// one was written, else the target's head; Merged says which.
type AuthorMergeResult struct {
	Merged          bool            `json:"merged" desc:"true when the target moved (a merge commit or a fast-forward); false when conflicts or findings held the merge back or the source was merged already"`
	UpToDate        bool            `json:"up_to_date,omitempty" desc:"true when the source was merged already and nothing was written; absent otherwise"` // the source was merged already; nothing to write
	FastForward     bool            `json:"-"`                                                                                                             // the target moved to the source (the command line's --ff); no merge commit
	RootHash        string          `json:"root_hash" desc:"the merge commit when one was written, else the target's head (40 hex digits)"`
	Base            string          `json:"base" desc:"the merge base of source and target (40 hex digits)"`
	SourceHead      string          `json:"source_head" desc:"the source branch's head that was merged (40 hex digits)"`
	TargetHead      string          `json:"target_head" desc:"the target branch's head before the merge (40 hex digits)"`
	Conflicts       []MergeConflict `json:"conflicts" desc:"what the merge would bring into conflict, per scope; any one holds the merge back; [] when none"`
	Findings        []MergeFinding  `json:"findings" desc:"error findings the merged world has and neither side had (functional ones are conflicts instead); any one holds the merge back; [] when none"`
	WorkspaceDigest string          `json:"workspace_digest" desc:"the workspace's digest, unchanged: a merge stages nothing"`
}

// checkBranchName refuses a name git would not take as a branch: a schema
// error naming the field.
func checkBranchName(field, name string) error {
	if _, err := refs.BranchRef(name); err != nil {
		return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: %s is not a branch name: %v", field, err).With("field", field)
	}
	return nil
}

// branchHead is the head of an existing branch, or unknown-branch.
func (s *Service) branchHead(name string) (lorestore.Hash, error) {
	h, err := s.store.Head(name)
	if errors.Is(err, lorestore.ErrBranchNotFound) {
		return lorestore.ZeroHash, errUnknownBranch(name)
	}
	return h, err
}

func errUnknownBranch(name string) *fault.Error {
	return fault.Errorf(fault.NotFound, CodeUnknownBranch, "The lorestore has no branch %q; author.branch {action: list} lists them.", name).With("branch", name)
}

// storeError types what the store refuses; anything else stays internal.
func storeError(err error, branch string) error {
	var (
		me *lorestore.MergeError
		ce *lorestore.ContentError
		se *lorestore.StaleError
	)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, lorestore.ErrReadOnly):
		return fault.Errorf(fault.Refused, CodePinnedProject, "The lorestore is open read-only, pinned to a commit; its branches cannot change.")
	case errors.Is(err, lorestore.ErrBranchNotFound):
		return errUnknownBranch(branch)
	case errors.Is(err, lorestore.ErrBranchExists):
		return fault.Errorf(fault.Refused, CodeBranchExists, "A branch %q exists already.", branch).With("branch", branch)
	case errors.Is(err, lorestore.ErrUnrelated):
		return fault.Errorf(fault.Refused, CodeUnrelatedHistories, "The two branches share no history; unrelated histories are not merged.")
	case errors.As(err, &me):
		return fault.Errorf(fault.Refused, CodeMergeRefused, "The merge would break the lorestore's layout at %s (%s); nothing was written.", me.Path, me.Reason).
			With("path", me.Path)
	case errors.As(err, &ce):
		return fault.Errorf(fault.Refused, CodeMergeRefused, "The source holds content that is not a valid lorestore: %v. Nothing was written.", ce).
			With("path", ce.Path)
	case errors.As(err, &se):
		return fault.Errorf(fault.Refused, CodeBranchMoved, "Branch %s moved to %s while this call ran; nothing was written. Try again.", se.Branch, se.Actual.String()[:12]).
			With("branch", se.Branch).With("root_hash", se.Actual.String())
	}
	return err
}

func (s *Service) Branch(_ context.Context, g Guard, p *BranchParams) (BranchResult, error) {
	return mutate(s, g, p, p.Workspace, func(ws *Workspace) (BranchResult, error) {
		res := BranchResult{Action: p.Action, WorkspaceDigest: ws.digest}
		var err error
		switch p.Action {
		case BranchList:
			res.Branches, err = s.ListBranches()
		case BranchCreate:
			var b BranchInfo
			b, err = s.CreateBranch(p.Name, p.From, false)
			res.Branch, res.Head = b.Name, b.Head
		case BranchDelete:
			var b BranchInfo
			b, err = s.deleteBranch(ws, p.Name)
			res.Branch, res.Head = b.Name, b.Head
		}
		if err != nil {
			return BranchResult{}, err
		}
		return res, nil
	})
}

// ListBranches lists the store's branches and their heads, by name: the
// use case of author.branch {action: list} and `deloreis branch`.
func (s *Service) ListBranches() ([]BranchInfo, error) {
	st, err := s.needStore()
	if err != nil {
		return nil, err
	}
	bs, err := st.Branches()
	if err != nil {
		return nil, err
	}
	out := make([]BranchInfo, len(bs))
	for i, b := range bs {
		out[i] = BranchInfo{Name: b.Name, Head: b.Commit.String()}
	}
	return out, nil
}

// CreateBranch makes branch name at from's head ("" is main): the use case
// of author.branch {action: create} and `deloreis branch NAME [FROM]`.
// anyRevision lets from name any revision (the command line's), not only
// a branch.
func (s *Service) CreateBranch(name, from string, anyRevision bool) (BranchInfo, error) {
	if _, err := s.needStore(); err != nil {
		return BranchInfo{}, err
	}
	if err := checkBranchName("name", name); err != nil {
		return BranchInfo{}, err
	}
	if from == "" {
		from = lorestore.DefaultBranch
	}
	at := "refs/heads/" + from
	if anyRevision {
		h, err := s.mustResolve(from)
		if err != nil {
			return BranchInfo{}, err
		}
		at = h.String()
	} else if _, err := s.branchHead(from); err != nil {
		return BranchInfo{}, err
	}
	h, err := s.store.CreateBranch(name, at)
	if err != nil {
		return BranchInfo{}, storeError(err, name)
	}
	return BranchInfo{Name: name, Head: h.String()}, nil
}

// DeleteBranch deletes a branch: the use case of `deloreis branch -d` and,
// for a workspace, author.branch {action: delete}. Main, the serving
// branch and a branch an open workspace materializes to are kept.
func (s *Service) DeleteBranch(name string) (BranchInfo, error) {
	return s.deleteBranch(nil, name)
}

func (s *Service) deleteBranch(ws *Workspace, name string) (BranchInfo, error) {
	if _, err := s.needStore(); err != nil {
		return BranchInfo{}, err
	}
	if err := checkBranchName("name", name); err != nil {
		return BranchInfo{}, err
	}
	if err := s.deletable(ws, name); err != nil {
		return BranchInfo{}, err
	}
	h, err := s.branchHead(name)
	if err != nil {
		return BranchInfo{}, err
	}
	if err := s.store.DeleteBranch(name, h); err != nil {
		return BranchInfo{}, storeError(err, name)
	}
	return BranchInfo{Name: name, Head: h.String()}, nil
}

// deletable refuses deleting main, the serving branch, and a branch any
// open workspace stages for (this one included): its materialize would
// have nowhere to go (DL-0132).
func (s *Service) deletable(ws *Workspace, name string) error {
	refuse := func(why string) error {
		return fault.Errorf(fault.Refused, CodeBranchProtected, "Branch %s cannot be deleted: %s.", name, why).With("branch", name)
	}
	switch {
	case name == lorestore.DefaultBranch:
		return refuse("it is the canon branch")
	case name == s.cfg.Branch:
		return refuse("this project serves it")
	case ws != nil && name == ws.branch:
		return refuse("workspace " + ws.id + " materializes to it")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.workspaces {
		if o.branch == name { // set before the workspace is listed, never written again
			return refuse("workspace " + o.id + " materializes to it")
		}
	}
	return nil
}

// refusePinned refuses an author op that would commit in a pinned project
// (DL-0443): every workspace opens at the pin, so a commit on the serving
// branch would be one no workspace of this server sees, and the pin would
// no longer name what the project serves.
func (s *Service) refusePinned(op string) error {
	if s.pin.IsZero() {
		return nil
	}
	return fault.Errorf(fault.Refused, CodePinnedProject,
		"This project is pinned to commit %s and every workspace opens there: %s would commit where no workspace sees it, so nothing was committed. Remove pin from deloreis.toml (or serve without it) to commit.",
		s.pin.String()[:12], op).With("pin", s.pin.String())
}

func (s *Service) Merge(ctx context.Context, g Guard, p *MergeParams) (AuthorMergeResult, error) {
	return mutate(s, g, p, p.Workspace, func(ws *Workspace) (AuthorMergeResult, error) {
		if err := s.refusePinned(g.Op); err != nil {
			return AuthorMergeResult{}, err
		}
		res, err := s.merge(MergeRequest{Source: p.Source, Target: p.Target, Workspace: ws.id}, &steps{ctx: ctx})
		if err != nil {
			return AuthorMergeResult{}, err
		}
		res.WorkspaceDigest = ws.digest
		return res, nil
	})
}
