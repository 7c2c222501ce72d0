// The workspace and claim-staging ops of DLI sections 2 and 3.1–3.9, as
// handlers over typed params, and Register, which files them (with the read
// tools of reads.go) in a worker registry.

package author

import (
	"context"
	"fmt"

	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// OpenParams open a workspace over a scope or a fork (exactly one), on
// the serving branch or on a named one.
type OpenParams struct {
	Scope  string `json:"scope,omitempty" desc:"open over this project document (scope mode); exactly one of scope and fork"`
	Fork   string `json:"fork,omitempty" desc:"open a fork over the question of this id, in the one document that declares it (fork mode); exactly one of scope and fork"`
	Branch string `json:"branch,omitempty" desc:"open on this lorestore branch and materialize to it (default: the serving branch)"`
}

// OpenResult names the new workspace and its first digest.
type OpenResult struct {
	Workspace       string `json:"workspace" desc:"the new workspace's id (ws-N), which every later call names"`
	WorkspaceDigest string `json:"workspace_digest" desc:"the workspace's first digest (wd- and 64 hex digits), the fence the next mutation may present as expected_digest"`
	Scope           string `json:"scope" desc:"the document the workspace is bound to (in fork mode, the one that declares the question)"`
	Fork            string `json:"fork,omitempty" desc:"the question the fork explores; absent in scope mode"`
	RootHash        string `json:"root_hash" desc:"the base commit the workspace opened at (40 hex digits); \"\" before the first commit"` // the base commit ("" before the first commit)
	Branch          string `json:"branch,omitempty" desc:"the branch the workspace materializes to; absent unless the call named one"`     // the branch it materializes to, when the open named one
}

// WorkspaceParams name a workspace.
type WorkspaceParams struct {
	Workspace string `json:"workspace" desc:"the workspace id author.open returned (ws-N)"`
}

// StageResult is the feedback contract of a staging call (DLI section 4).
type StageResult struct {
	WorkspaceDigest string          `json:"workspace_digest" desc:"the workspace's digest after the call (wd- and 64 hex digits), the next expected_digest"`
	Rendered        []string        `json:"rendered" desc:"the staged declaration as canonical .dli lines; [] when the call renders nothing"`
	Findings        []world.Finding `json:"findings" desc:"every finding over the staged world after the call, at most 20 of a code (DL-0426); an error one bars author.materialize"`
}

// OpenQuestionParams file an open question, with no options yet.
type OpenQuestionParams struct {
	Workspace string `json:"workspace" desc:"the workspace id author.open returned (ws-N)"`
	ID        string `json:"id" desc:"the question's id, unique in the world; the id a fork opens on"`
	Prompt    string `json:"prompt" desc:"the question as asked, stored as data"`
}

// GroundAtom is a predicate applied to constants.
type GroundAtom struct {
	Pred string   `json:"pred" desc:"the predicate name"`
	Args []string `json:"args" desc:"the constant arguments, in order (entity ids or values)"`
}

// AddOptionParams add one option to a question staged in the workspace.
type AddOptionParams struct {
	Workspace string      `json:"workspace" desc:"the workspace id author.open returned (ws-N)"`
	Question  string      `json:"question" desc:"the id of a question staged in this workspace and not yet committed"`
	ID        string      `json:"id" desc:"the option's id, unique in the world"`
	Label     string      `json:"label" desc:"the option as shown, stored as data"`
	Implies   *GroundAtom `json:"implies,omitempty" desc:"a ground atom this option supports, possible while the question is open; absent when it implies nothing"`
}

// SupposeParams pin minted hypotheses true in a fork.
type SupposeParams struct {
	Workspace  string   `json:"workspace" desc:"a fork workspace's id (ws-N)"`
	Hypotheses []string `json:"hypotheses" desc:"the ids of hypotheses minted in this fork to pin true"`
}

// DiscardParams drop a whole workspace, or one staged declaration (decl:
// its object id).
type DiscardParams struct {
	Workspace string `json:"workspace" desc:"the workspace id author.open returned (ws-N)"`
	Decl      string `json:"decl,omitempty" desc:"the object id (64 hex digits) of one staged declaration to drop, as author.status lists it; absent drops the whole workspace"`
}

// DiscardResult says what was dropped; a declaration discard also gives
// the new digest and the findings it brought.
type DiscardResult struct {
	Discarded       string          `json:"discarded" desc:"\"workspace\" when the whole workspace was dropped, else the dropped declaration's object id"` // "workspace" or the declaration's id
	WorkspaceDigest string          `json:"workspace_digest,omitempty" desc:"the new digest after dropping one declaration; absent when the whole workspace was dropped"`
	Rendered        []string        `json:"rendered" desc:"the dropped declaration as canonical .dli lines; [] for a whole workspace"`
	Findings        []world.Finding `json:"findings" desc:"the findings over what stays staged, at most 20 of a code; [] for a whole workspace"`
}

// MaterializeParams commit a workspace; rendered opts into .dli text; a
// decision (recorded) accepts the staged facts under it.
type MaterializeParams struct {
	Workspace string `json:"workspace" desc:"the workspace id author.open returned (ws-N)"`
	Rendered  bool   `json:"rendered,omitempty" desc:"true adds the committed declarations as canonical .dli lines (rendered); default false"`
	Decision  string `json:"decision,omitempty" desc:"a recorded decision id under which the committed facts are accepted, so they read certain (carriage claims are never stamped); absent commits them as staged"`
}

// MaterializeResult is the new commit and what it committed, as data.
type MaterializeResult struct {
	RootHash        string      `json:"root_hash" desc:"the new commit on the workspace's branch (40 hex digits)"`
	WorkspaceDigest string      `json:"workspace_digest" desc:"the workspace's digest after the commit; nothing stays staged"`
	Committed       []Committed `json:"committed" desc:"the objects the commit wrote, as data, in staging order"`
	Stamped         []Stamp     `json:"stamped,omitempty" desc:"with decision: each staged fact's id and the id of the stamped object committed for it; absent without a decision"` // with a decision: staged id → committed id
	Rendered        []string    `json:"rendered,omitempty" desc:"the committed declarations as canonical .dli lines; absent unless the call asked for rendered"`
}

func (s *Service) OpenWorkspace(ctx context.Context, p *OpenParams) (OpenResult, error) {
	ws, err := s.OpenOnContext(ctx, p.Scope, p.Fork, p.Branch)
	if err != nil {
		return OpenResult{}, err
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	res := OpenResult{Workspace: ws.id, WorkspaceDigest: ws.digest, Scope: ws.scope, Fork: ws.fork, RootHash: hashString(ws.base)}
	if p.Branch != "" {
		res.Branch = ws.branch
	}
	return res, nil
}

// AddClaim stages one object of type T: the use case of every author.add_*
// and declaration op whose params are the object itself (ClaimParams).
func AddClaim[T objects.Object](s *Service, ctx context.Context, g Guard, p *ClaimParams[T]) (StageResult, error) {
	return mutate(s, g, p, p.Workspace, func(ws *Workspace) (StageResult, error) {
		defer s.under(ws, ctx)()
		return s.stageClaim(ws, p.Object)
	})
}

// stageClaim checks a claim's provenance against the workspace and stages
// it. Findings stage it anyway (and may bar materialize); a refusal stages
// nothing.
func (s *Service) stageClaim(ws *Workspace, o objects.Object) (StageResult, error) {
	if n, ok := o.(*objects.Name); ok && len(n.Words) > MaxNameWords {
		return StageResult{}, fault.Errorf(fault.Invalid, CodeInvalidObject,
			"A name lists at most %d words; this one lists %d. Name it from fewer words.", MaxNameWords, len(n.Words)).
			With("field", "words").With("max", MaxNameWords)
	}
	if err := ws.checkProvenance(o); err != nil {
		return StageResult{}, err
	}
	if h, ok := o.(*objects.Hypothesis); ok {
		if err := ws.checkMint(h); err != nil {
			return StageResult{}, err
		}
	}
	fs, err := ws.stage([]objects.Object{o}, nil)
	if err != nil {
		return StageResult{}, err
	}
	if h, ok := o.(*objects.Hypothesis); ok {
		ws.hyps = append(ws.hyps, h.Ident)
		ws.resetDigest()
		ws.digest = ws.computeDigest()
	}
	return StageResult{WorkspaceDigest: ws.digest, Rendered: dli.RenderDecl(o), Findings: boundFindings(fs)}, nil
}

// checkProvenance applies the provenance rules of DLI section 3: a
// hypothesis provenance is legal only in a fork, and only for the
// hypothesis minted there.
func (ws *Workspace) checkProvenance(o objects.Object) error {
	p, ok := objects.ProvenanceOf(o)
	if !ok || p.Kind != objects.ProvenanceHypothesis {
		return nil
	}
	if ws.fork == "" {
		return fault.Errorf(fault.Refused, CodeHypothesisInScope,
			"Hypothesis provenance is fork-local: workspace %s is over scope %s, not a fork. Open a fork to stage claims under %s.", ws.id, ws.scope, p.Hyp).
			With("hyp", p.Hyp)
	}
	if !contains(ws.hyps, p.Hyp) {
		return fault.Errorf(fault.Refused, CodeUnknownHypothesis,
			"Hypothesis %q has not been minted in workspace %s; mint it with author.add_hypothesis first.", p.Hyp, ws.id).With("hyp", p.Hyp)
	}
	return nil
}

// checkMint allows one hypothesis per fork.
func (ws *Workspace) checkMint(h *objects.Hypothesis) error {
	if ws.fork == "" {
		return fault.Errorf(fault.Refused, CodeNotAFork,
			"Hypotheses are minted in fork workspaces only; %s is over scope %s.", ws.id, ws.scope)
	}
	if len(ws.hyps) > 0 {
		return fault.Errorf(fault.Refused, CodeHypothesisLimit,
			"Workspace %s already minted %s: a bundle that needs two independent suppositions is two forks.", ws.id, ws.hyps[0]).
			With("minted", ws.hyps[0])
	}
	return nil
}

func (s *Service) OpenQuestion(ctx context.Context, g Guard, p *OpenQuestionParams) (StageResult, error) {
	q := &objects.Question{Ident: p.ID, Prompt: p.Prompt}
	if err := q.Validate(); err != nil {
		return StageResult{}, objectError(err)
	}
	return mutate(s, g, p, p.Workspace, func(ws *Workspace) (StageResult, error) {
		defer s.under(ws, ctx)()
		if _, ok := questionOf(ws.world, p.ID); ok {
			return StageResult{}, fault.Errorf(fault.Refused, CodeQuestionExists, "A question %q is already in this document.", p.ID).With("question", p.ID)
		}
		fs, err := ws.stage([]objects.Object{q}, nil)
		if err != nil {
			return StageResult{}, err
		}
		return StageResult{WorkspaceDigest: ws.digest, Rendered: dli.RenderDecl(q), Findings: boundFindings(fs)}, nil
	})
}

func (s *Service) AddOption(ctx context.Context, g Guard, p *AddOptionParams) (StageResult, error) {
	opt := objects.Option{Ident: p.ID, Label: p.Label}
	if p.Implies != nil {
		opt.Implies = &objects.GroundAtom{Pred: p.Implies.Pred, Args: p.Implies.Args}
	}
	return mutate(s, g, p, p.Workspace, func(ws *Workspace) (StageResult, error) {
		defer s.under(ws, ctx)()
		qi, ok := questionOf(ws.world, p.Question)
		switch {
		case !ok:
			return StageResult{}, fault.Errorf(fault.NotFound, CodeUnknownQuestion, "No question %q is open in this workspace; open it with author.open_question.", p.Question).With("question", p.Question)
		case !qi.Staged:
			return StageResult{}, fault.Errorf(fault.Refused, CodeQuestionCommitted,
				"Question %q is committed; extending a committed question is refused. Add all options before materializing it.", p.Question).With("question", p.Question)
		case ws.world.HasOption(p.ID):
			return StageResult{}, fault.Errorf(fault.Refused, CodeOptionExists, "Option id %q is taken; option ids are unique in the world.", p.ID).With("option", p.ID)
		}
		nq := &objects.Question{Ident: qi.Question.Ident, Prompt: qi.Question.Prompt,
			Options: append(append([]objects.Option(nil), qi.Question.Options...), opt)}
		if err := nq.Validate(); err != nil {
			return StageResult{}, objectError(err)
		}
		at := ws.stagedIndex(qi.Claim)
		fs, err := ws.stage([]objects.Object{nq}, []objects.ID{qi.Claim})
		if err != nil {
			return StageResult{}, err
		}
		ws.moveLast(at) // the new version takes the old one's place
		return StageResult{WorkspaceDigest: ws.digest, Rendered: []string{dli.RenderOption(&opt)}, Findings: boundFindings(fs)}, nil
	})
}

// moveLast moves the last staged declaration to position at (when at is a
// position), so that a revised declaration keeps its place in the order.
func (ws *Workspace) moveLast(at int) {
	n := len(ws.staged)
	if at < 0 || at >= n-1 {
		return
	}
	last := ws.staged[n-1]
	copy(ws.staged[at+1:], ws.staged[at:n-1])
	ws.staged[at] = last
	ws.resetDigest()
	ws.digest = ws.computeDigest()
}

func questionOf(w *world.World, id string) (world.QuestionInfo, bool) {
	for _, q := range w.Questions() {
		if q.Question.Ident == id {
			return q, true
		}
	}
	return world.QuestionInfo{}, false
}

func (s *Service) Suppose(_ context.Context, g Guard, p *SupposeParams) (StageResult, error) {
	return mutate(s, g, p, p.Workspace, func(ws *Workspace) (StageResult, error) {
		if ws.fork == "" {
			return StageResult{}, fault.Errorf(fault.Refused, CodeNotAFork, "Suppositions are fork-local; %s is over scope %s.", ws.id, ws.scope)
		}
		if len(p.Hypotheses) == 0 {
			return StageResult{}, fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: hypotheses must name at least one minted hypothesis")
		}
		for _, h := range p.Hypotheses {
			if !contains(ws.hyps, h) {
				return StageResult{}, fault.Errorf(fault.Refused, CodeUnknownHypothesis,
					"Hypothesis %q has not been minted in workspace %s; only minted hypotheses can be supposed.", h, ws.id).With("hyp", h)
			}
		}
		if err := s.suppose(ws, p.Hypotheses); err != nil {
			return StageResult{}, err
		}
		f := world.Finding{Code: world.CodeConsequenceChanged, Message: fmt.Sprintf(
			"Under %s, the derived-consequence set may move. See author.diff for the consequences.", joinAnd(ws.supposed)), Citations: []string{}}
		info, _ := world.Info(world.CodeConsequenceChanged)
		f.Severity, f.Grade = info.Severity, info.Grade
		return StageResult{WorkspaceDigest: ws.digest, Rendered: []string{}, Findings: []world.Finding{f}}, nil
	})
}

func (s *Service) Discard(ctx context.Context, g Guard, p *DiscardParams) (DiscardResult, error) {
	var decl objects.ID
	if p.Decl != "" {
		id, err := objects.ParseID(p.Decl)
		if err != nil {
			return DiscardResult{}, fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: decl must be the 64-digit id of a staged declaration").With("field", "decl")
		}
		decl = id
	}
	return mutate(s, g, p, p.Workspace, func(ws *Workspace) (DiscardResult, error) {
		defer s.under(ws, ctx)()
		if p.Decl == "" {
			ws.discarded = true
			return DiscardResult{Discarded: "workspace", Rendered: []string{}, Findings: []world.Finding{}}, nil
		}
		at := ws.stagedIndex(decl)
		if at < 0 {
			return DiscardResult{}, fault.Errorf(fault.NotFound, CodeUnknownDecl, "Nothing staged in workspace %s has id %s.", ws.id, p.Decl).With("decl", p.Decl)
		}
		o := ws.staged[at].obj
		if h, ok := o.(*objects.Hypothesis); ok {
			if err := ws.unmint(h.Ident); err != nil {
				return DiscardResult{}, err
			}
		}
		fs, err := ws.stage(nil, []objects.ID{decl})
		if err != nil {
			return DiscardResult{}, err
		}
		return DiscardResult{Discarded: p.Decl, WorkspaceDigest: ws.digest, Rendered: dli.RenderDecl(o), Findings: boundFindings(fs)}, nil
	})
}

func (s *Service) Materialize(ctx context.Context, g Guard, p *MaterializeParams) (MaterializeResult, error) {
	if p.Decision != "" {
		if err := checkDecisionID("decision", p.Decision); err != nil {
			return MaterializeResult{}, err
		}
	}
	return mutate(s, g, p, p.Workspace, func(ws *Workspace) (MaterializeResult, error) {
		pr := &steps{ctx: ctx}
		commit, committed, stamps, err := s.materialize(ws, g.Op, p.Decision, pr)
		if err != nil {
			return MaterializeResult{}, err
		}
		res := MaterializeResult{RootHash: hashString(commit), Committed: committed, Stamped: stamps}
		if p.Rendered {
			res.Rendered = []string{}
			if p.Decision == "" {
				for _, st := range ws.staged {
					res.Rendered = append(res.Rendered, dli.RenderDecl(st.obj)...)
				}
			} else {
				for _, c := range committed {
					o, err := objects.Decode(c.Object)
					if err != nil {
						return MaterializeResult{}, err
					}
					res.Rendered = append(res.Rendered, dli.RenderDecl(o)...)
				}
			}
		}
		pr.to(pr.total-1, "loading the world of "+res.RootHash[:12])
		if err := s.afterMaterialize(ws, commit); err != nil {
			return MaterializeResult{}, err
		}
		pr.finish("materialized")
		res.WorkspaceDigest = ws.digest
		return res, nil
	})
}

func joinAnd(ss []string) string {
	switch len(ss) {
	case 0:
		return ""
	case 1:
		return ss[0]
	}
	out := ss[0]
	for _, s := range ss[1 : len(ss)-1] {
		out += ", " + s
	}
	return out + " and " + ss[len(ss)-1]
}
