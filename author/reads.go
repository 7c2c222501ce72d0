// The eight read tools of DLI section 3.16: status, diff, query, why and
// check, and three a reviewer needs — entities, history and questions
// (docs/decisions.md). They carry no fence and no key and change nothing.

package author

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// read runs a read on a workspace under its lock.
func read[R any](s *Service, wsID string, f func(ws *Workspace) (R, error)) (R, error) {
	ws, err := s.workspace(wsID)
	if err != nil {
		var zero R
		return zero, err
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.discarded {
		var zero R
		return zero, errUnknownDoc(wsID)
	}
	return f(ws)
}

// StagedDecl is one staged declaration of a status.
type StagedDecl struct {
	Decl     string   `json:"decl" desc:"the declaration's object id (64 hex digits): what author.discard's decl takes"` // its object id, what author.discard takes
	Type     string   `json:"type" desc:"the object's type (entity, fact, relation, decision, standing, …)"`
	Rendered []string `json:"rendered" desc:"the declaration as canonical .dli lines"`
}

// StatusResult is author.status.
type StatusResult struct {
	Workspace       string          `json:"workspace" desc:"the workspace id (ws-N)"`
	WorkspaceDigest string          `json:"workspace_digest" desc:"the workspace's current digest, the next expected_digest"`
	Scope           string          `json:"scope" desc:"the document the workspace is bound to"`
	Fork            string          `json:"fork,omitempty" desc:"the question the fork explores; absent in a scope workspace"`
	RootHash        string          `json:"root_hash" desc:"the base commit the workspace stages over (40 hex digits); \"\" before the first commit"`
	Staged          []StagedDecl    `json:"staged" desc:"the staged declarations, in staging order"`
	Hypotheses      []string        `json:"hypotheses" desc:"the hyp variables minted in this fork; [] in a scope workspace"`
	Supposed        []string        `json:"supposed" desc:"the hypotheses author.suppose pinned true; [] when none"`
	Findings        []world.Finding `json:"findings" desc:"every finding over the staged world, at most 20 of a code"`
	Blocked         bool            `json:"blocked" desc:"true when an error finding stands, so author.materialize would refuse"` // an error finding bars materialize
}

func (s *Service) Status(_ context.Context, p *WorkspaceParams) (StatusResult, error) {
	return read(s, p.Workspace, func(ws *Workspace) (StatusResult, error) {
		res := StatusResult{Workspace: ws.id, WorkspaceDigest: ws.digest, Scope: ws.scope, Fork: ws.fork, RootHash: hashString(ws.base),
			Staged: []StagedDecl{}, Hypotheses: nonNil(ws.hyps), Supposed: nonNil(ws.supposed), Findings: ws.world.Findings()}
		for _, st := range ws.staged {
			res.Staged = append(res.Staged, StagedDecl{Decl: st.id.String(), Type: string(st.obj.Type()), Rendered: dli.RenderDecl(st.obj)})
		}
		res.Blocked = world.Blocking(res.Findings)
		res.Findings = boundFindings(res.Findings)
		return res, nil
	})
}

// DiffRow is one staged declaration with its standing before and after.
type DiffRow struct {
	Decl     string   `json:"decl" desc:"the staged declaration's object id (64 hex digits)"`
	Type     string   `json:"type" desc:"the object's type (entity, fact, relation, …)"`
	Rendered []string `json:"rendered" desc:"the declaration as canonical .dli lines"`
	Before   string   `json:"before" desc:"its grade in the base: certain, possible or dead, or \"absent\" when the base does not hold it"` // "absent" or the grade in the base
	After    string   `json:"after" desc:"its grade with everything staged: certain, possible or dead"`                                     // the grade with everything staged
}

// Consequence is one derived atom whose grade moved.
type Consequence struct {
	Pred   string   `json:"pred" desc:"the atom's predicate"`
	Args   []string `json:"args" desc:"the atom's arguments, in order"`
	Before string   `json:"before" desc:"its grade in the base: certain, possible or dead, or \"absent\" when it was not derived there"` // "absent" when it was not derived
	After  string   `json:"after" desc:"its grade with everything staged: certain, possible or dead"`
}

// Consequences is the derived-consequence diff.
type Consequences struct {
	NewlyCertain []Consequence   `json:"newly_certain" desc:"atoms whose grade moved to certain"`
	Possible     []Consequence   `json:"possible" desc:"atoms whose grade moved to possible"`
	Dead         []Consequence   `json:"dead" desc:"atoms whose grade moved to dead, or that are no longer derived"`
	GradeChanged []Consequence   `json:"grade_changed" desc:"every atom whose grade moved (the three lists above together), by predicate and arguments"`
	Conflicts    []world.Finding `json:"conflicts" desc:"error findings the staged world has and the base did not"`
}

// DiffResult is author.diff.
type DiffResult struct {
	WorkspaceDigest string          `json:"workspace_digest" desc:"the workspace's current digest"`
	Rendered        []string        `json:"rendered" desc:"the staged change as one canonical .dli document (grammar and scope lines first)"` // the staged change as a canonical .dli document
	Rows            []DiffRow       `json:"rows" desc:"each staged declaration with its grade before and after, in staging order"`
	Findings        []world.Finding `json:"findings" desc:"every finding over the staged world, at most 20 of a code"`
	Consequences    Consequences    `json:"consequences" desc:"the derived-consequence diff between the base and the staged world"`
}

func (s *Service) Diff(_ context.Context, p *WorkspaceParams) (DiffResult, error) {
	return read(s, p.Workspace, func(ws *Workspace) (DiffResult, error) {
		doc := &dli.Document{Grammar: dli.Grammar, Scope: ws.scope}
		res := DiffResult{WorkspaceDigest: ws.digest, Rows: []DiffRow{}, Findings: boundFindings(ws.world.Findings())}
		for _, st := range ws.staged {
			doc.Decls = append(doc.Decls, dli.Decl{Object: st.obj})
			before := "absent"
			if _, ok := ws.baseWorld.Lookup(st.id); ok {
				before = ws.baseWorld.ClaimGrade(st.id).String()
			}
			res.Rows = append(res.Rows, DiffRow{Decl: st.id.String(), Type: string(st.obj.Type()), Rendered: dli.RenderDecl(st.obj),
				Before: before, After: ws.world.ClaimGrade(st.id).String()})
		}
		res.Rendered = strings.Split(strings.TrimSuffix(string(dli.Format(doc)), "\n"), "\n")
		d := ws.baseWorld.Diff(ws.world)
		res.Consequences = Consequences{NewlyCertain: consequences(d.NewlyCertain), Possible: consequences(d.Possible),
			Dead: consequences(d.Dead), GradeChanged: consequences(d.GradeChanged), Conflicts: d.Conflicts}
		return res, nil
	})
}

func consequences(cs []world.Consequence) []Consequence {
	out := make([]Consequence, len(cs))
	for i, c := range cs {
		out[i] = consequenceOf(c)
	}
	return out
}

// consequenceOf is the wire form of one consequence.
func consequenceOf(c world.Consequence) Consequence {
	before := c.Before.String()
	if c.New {
		before = "absent"
	}
	return Consequence{Pred: c.Pred, Args: c.Args, Before: before, After: c.After.String()}
}

// Term is a goal argument: a variable or a constant (exactly one).
type Term struct {
	Var   string `json:"var,omitempty" desc:"a variable name, bound in each answer (_ matches anything and is not bound); exactly one of var and const"`
	Const string `json:"const,omitempty" desc:"a constant the argument must equal; exactly one of var and const"`
}

// GoalAtom is a typed goal: a predicate over terms.
type GoalAtom struct {
	Pred string `json:"pred" desc:"the predicate to query"`
	Args []Term `json:"args" desc:"the arguments, in order, each {var} or {const}"`
}

// QueryParams ask a goal of a workspace's world, one page at a time.
type QueryParams struct {
	Workspace string   `json:"workspace" desc:"the workspace id author.open returned (ws-N); the query reads its staged world"`
	Goal      GoalAtom `json:"goal" desc:"the goal to answer: a predicate over variables and constants"`
	Limit     int      `json:"limit,omitempty" desc:"at most this many answers a page (default 100, at most 1000)"`                       // default 100, at most 1000
	Cursor    string   `json:"cursor,omitempty" desc:"next_cursor of the page before; refused (stale-cursor) once the workspace changed"` // from the previous page
}

// Validate checks the goal's shape and the page bounds.
func (p *QueryParams) Validate() error {
	if !objects.ValidID(p.Goal.Pred) {
		return fmt.Errorf("goal.pred %q is not a predicate id", p.Goal.Pred)
	}
	for i, t := range p.Goal.Args {
		if (t.Var == "") == (t.Const == "") {
			return fmt.Errorf("goal.args[%d] must set exactly one of var and const", i)
		}
	}
	if p.Limit < 0 || p.Limit > maxPage {
		return fmt.Errorf("limit must be between 1 and %d", maxPage)
	}
	return nil
}

const (
	defaultPage = 100
	maxPage     = 1000
)

// Answer is one answer of a query.
type Answer struct {
	Args     []string          `json:"args" desc:"the goal's arguments with the variables bound, in order"`
	Bindings map[string]string `json:"bindings" desc:"each variable of the goal and its value; {} for a goal without variables"`
	Grade    string            `json:"grade" desc:"the atom's grade: certain, possible or dead (dead atoms are answers too)"`
}

// QueryResult is one page of answers.
type QueryResult struct {
	Answers    []Answer `json:"answers" desc:"this page of the matching atoms, ordered by arguments"`
	Total      int      `json:"total" desc:"how many answers the goal has in all"`
	NextCursor string   `json:"next_cursor,omitempty" desc:"the cursor of the next page; absent on the last page"`
}

func (s *Service) Query(_ context.Context, p *QueryParams) (QueryResult, error) {
	return read(s, p.Workspace, func(ws *Workspace) (QueryResult, error) {
		q := datalog.Atom{Pred: p.Goal.Pred, Args: make([]datalog.Term, len(p.Goal.Args))}
		for i, t := range p.Goal.Args {
			q.Args[i] = datalog.Term{Var: t.Var, Const: t.Const}
		}
		from, limit, err := page(p.Cursor, p.Limit, ws.digest, math.MaxInt) // QueryPage bounds from
		if err != nil {
			return QueryResult{}, err
		}
		answers, total := ws.world.QueryPage(q, from, limit)
		from = min(from, total)
		res := QueryResult{Answers: []Answer{}, Total: total}
		for _, a := range answers {
			b := a.Bindings
			if b == nil {
				b = map[string]string{}
			}
			res.Answers = append(res.Answers, Answer{Args: a.Args, Bindings: b, Grade: a.Grade.String()})
		}
		if from+limit < total {
			res.NextCursor = cursor(from+limit, ws.digest)
		}
		return res, nil
	})
}

// CodeStaleCursor refuses a cursor from another state of the workspace;
// CodeBadCursor one the server never gave (the code dli.export answers).
const (
	CodeStaleCursor = "stale-cursor"
	CodeBadCursor   = "bad-cursor"
)

func init() {
	ErrorCodes[CodeStaleCursor] = fault.Refused
	ErrorCodes[CodeBadCursor] = fault.Invalid
}

// cursor is an offset bound to the workspace digest it was read at.
func cursor(offset int, digest string) string {
	return "c" + strconv.Itoa(offset) + "." + strings.TrimPrefix(digest, "wd-")[:16]
}

// page reads a cursor and a limit into an offset and a page size.
func page(cur string, limit int, digest string, n int) (from, size int, err error) {
	size = limit
	if size == 0 {
		size = defaultPage
	}
	if cur == "" {
		return 0, size, nil
	}
	off, tag, ok := strings.Cut(strings.TrimPrefix(cur, "c"), ".")
	from, convErr := strconv.Atoi(off)
	if !ok || convErr != nil || from < 0 || !strings.HasPrefix(cur, "c") {
		return 0, 0, fault.Errorf(fault.Invalid, CodeBadCursor, "params: cursor %q is not one this server gave", cur).With("field", "cursor")
	}
	if tag != strings.TrimPrefix(digest, "wd-")[:16] {
		return 0, 0, fault.Errorf(fault.Refused, CodeStaleCursor, "The workspace changed since this cursor was given; query again from the first page.")
	}
	return min(from, n), size, nil
}

// WhyParams name one ground atom.
type WhyParams struct {
	Workspace string     `json:"workspace" desc:"the workspace id author.open returned (ws-N); the atom is explained under its valuation"`
	Atom      GroundAtom `json:"atom" desc:"the ground atom to explain"`
}

// BlockedSupport is a support path that does not hold, with its blockers.
type BlockedSupport struct {
	Path     []string `json:"path" desc:"a support path that does not hold: its literals (d:<decision>, h:<hyp>, o:<option>, …)"`
	Blockers []string `json:"blockers" desc:"the path's literals that are false or unknown"`
}

// WhyResult explains an atom under the workspace's valuation.
type WhyResult struct {
	Pred            string           `json:"pred" desc:"the atom's predicate"`
	Args            []string         `json:"args" desc:"the atom's arguments"`
	Grade           string           `json:"grade" desc:"certain, possible or dead (dead also for an atom never derived)"`
	Truncated       bool             `json:"truncated" desc:"true when the atom has more support paths than are listed; grade is still exact and blocking_defeats is empty"`
	Paths           [][]string       `json:"paths" desc:"every support path, sorted: each a list of literals (d:<decision>, h:<hyp>, o:<option>, …); [[]] for an unconditional atom, [] for one never derived"`
	ActivePaths     [][]string       `json:"active_paths" desc:"the paths whose every literal holds"`
	BlockedSupports []BlockedSupport `json:"blocked_supports" desc:"the other paths, each with the literals that block it"`
	BlockingDefeats []string         `json:"blocking_defeats" desc:"the false literals on every path, each of which alone kills the atom; [] while some path is live"`
	AttackPairs     [][2]string      `json:"attack_pairs" desc:"the attacks, as [attacker, target] decision pairs, on decisions the paths name; sorted"`
}

func (s *Service) Why(_ context.Context, p *WhyParams) (WhyResult, error) {
	return read(s, p.Workspace, func(ws *Workspace) (WhyResult, error) {
		args := p.Atom.Args
		if args == nil {
			args = []string{}
		}
		w := ws.world.Why(p.Atom.Pred, args...)
		res := WhyResult{Pred: w.Pred, Args: args, Grade: w.Grade.String(), Truncated: w.Truncated,
			Paths: w.Paths, ActivePaths: w.Active, BlockedSupports: []BlockedSupport{}, BlockingDefeats: w.BlockingDefeats,
			AttackPairs: ws.world.AttackPairs(w.Paths)}
		for _, b := range w.Blocked {
			res.BlockedSupports = append(res.BlockedSupports, BlockedSupport{Path: b.Path, Blockers: b.Blockers})
		}
		return res, nil
	})
}

// CheckResult is the check battery's verdict.
type CheckResult struct {
	WorkspaceDigest string          `json:"workspace_digest" desc:"the workspace's current digest"`
	Findings        []world.Finding `json:"findings" desc:"every finding of the check battery over the staged world, at most 20 of a code"`
	Errors          int             `json:"errors" desc:"how many error-severity findings there are (before the per-code bound)"`
	Warnings        int             `json:"warnings" desc:"how many warn-severity findings there are (before the per-code bound)"`
	Blocked         bool            `json:"blocked" desc:"true when errors > 0, so author.materialize would refuse"`
}

func (s *Service) Check(_ context.Context, p *WorkspaceParams) (CheckResult, error) {
	return read(s, p.Workspace, func(ws *Workspace) (CheckResult, error) {
		res := CheckResult{WorkspaceDigest: ws.digest, Findings: ws.world.Findings()}
		for _, f := range res.Findings {
			switch f.Severity {
			case world.SeverityError:
				res.Errors++
			case world.SeverityWarn:
				res.Warnings++
			}
		}
		res.Blocked = res.Errors > 0
		res.Findings = boundFindings(res.Findings)
		return res, nil
	})
}

// EntitiesParams page through a workspace's entities, optionally of one kind.
type EntitiesParams struct {
	Workspace string `json:"workspace" desc:"the workspace id author.open returned (ws-N)"`
	Kind      string `json:"kind,omitempty" desc:"only entities of this kind: person, place, thing or era (default: every kind)"`
	Limit     int    `json:"limit,omitempty" desc:"at most this many entities a page (default 100, at most 1000)"`
	Cursor    string `json:"cursor,omitempty" desc:"next_cursor of the page before; refused (stale-cursor) once the workspace changed"`
}

// Validate checks the page bounds.
func (p *EntitiesParams) Validate() error {
	if p.Limit < 0 || p.Limit > maxPage {
		return fmt.Errorf("limit must be between 1 and %d", maxPage)
	}
	return nil
}

// EntityRow is one entity.
type EntityRow struct {
	ID     string `json:"id" desc:"the entity's id"`
	Kind   string `json:"kind" desc:"person, place, thing or era"`
	Name   string `json:"name" desc:"its display name"`
	Grade  string `json:"grade" desc:"the entity claim's grade: certain, possible or dead"`
	Staged bool   `json:"staged" desc:"true when the entity is staged in this workspace, not yet committed"`
	Decl   string `json:"decl" desc:"the object id (64 hex digits) of the entity claim"`
}

// EntitiesResult is one page of entities.
type EntitiesResult struct {
	Entities   []EntityRow `json:"entities" desc:"this page of entities, by id"`
	Total      int         `json:"total" desc:"how many entities (of the kind) there are in all"`
	NextCursor string      `json:"next_cursor,omitempty" desc:"the cursor of the next page; absent on the last page"`
}

func (s *Service) Entities(_ context.Context, p *EntitiesParams) (EntitiesResult, error) {
	return read(s, p.Workspace, func(ws *Workspace) (EntitiesResult, error) {
		_, total := ws.world.EntityPage(p.Kind, 0, 0)
		from, limit, err := page(p.Cursor, p.Limit, ws.digest, total)
		if err != nil {
			return EntitiesResult{}, err
		}
		rows, _ := ws.world.EntityPage(p.Kind, from, limit)
		res := EntitiesResult{Entities: []EntityRow{}, Total: total}
		for _, e := range rows {
			res.Entities = append(res.Entities, EntityRow{ID: e.ID, Kind: e.Kind, Name: e.Name, Grade: e.Grade.String(), Staged: e.Staged, Decl: e.Claim})
		}
		if from+limit < total {
			res.NextCursor = cursor(from+limit, ws.digest)
		}
		return res, nil
	})
}

// HistoryParams name one claim by its object id.
type HistoryParams struct {
	Workspace string `json:"workspace" desc:"the workspace id author.open returned (ws-N)"`
	Claim     string `json:"claim" desc:"the claim's object id (64 hex digits)"`
}

// HistoryCommit is a commit that added the claim.
type HistoryCommit struct {
	Commit  string `json:"commit" desc:"the commit id (40 hex digits)"`
	Summary string `json:"summary" desc:"the commit message's first line"`
	Op      string `json:"op" desc:"the commit's Lore-Op trailer (the op that wrote it); \"\" when it has none"`
	When    string `json:"when" desc:"the author time, RFC 3339 in UTC"` // RFC 3339
}

// HistoryResult is one claim's history up to the workspace's base.
type HistoryResult struct {
	Claim    string          `json:"claim" desc:"the claim's object id, as asked"`
	Type     string          `json:"type" desc:"the claim's object type"`
	Rendered []string        `json:"rendered" desc:"the claim as canonical .dli lines"`
	Staged   bool            `json:"staged" desc:"true when the claim is staged in this workspace, not yet committed"`
	Grade    string          `json:"grade" desc:"its grade in the workspace: certain, possible or dead"`
	AddedIn  []HistoryCommit `json:"added_in" desc:"the commits up to the workspace's base that added it, newest first; [] for a staged claim or an empty store"`
	Standing []StagedDecl    `json:"standing" desc:"its standing revisions, as declarations"`                // its standing revisions
	Attacks  [][2]string     `json:"attacks" desc:"the attacks on it, as [attacker, target] decision pairs"` // (attacker, target) pairs about it
}

func (s *Service) History(_ context.Context, p *HistoryParams) (HistoryResult, error) {
	id, err := objects.ParseID(p.Claim)
	if err != nil {
		return HistoryResult{}, fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: claim must be a 64-digit object id").With("field", "claim")
	}
	return read(s, p.Workspace, func(ws *Workspace) (HistoryResult, error) {
		e, ok := ws.world.Lookup(id)
		if !ok {
			return HistoryResult{}, fault.Errorf(fault.NotFound, CodeUnknownClaim, "No claim %s is in workspace %s.", p.Claim, ws.id).With("claim", p.Claim)
		}
		res := HistoryResult{Claim: p.Claim, Type: string(e.Object.Type()), Rendered: dli.RenderDecl(e.Object), Staged: e.Staged,
			Grade: ws.world.ClaimGrade(id).String(), AddedIn: []HistoryCommit{}, Standing: []StagedDecl{}, Attacks: [][2]string{}}
		if !ws.base.IsZero() {
			log, err := s.store.Log(lorestore.LogOptions{From: ws.base.String(), Object: id})
			if err != nil {
				return HistoryResult{}, err
			}
			for _, l := range log {
				res.AddedIn = append(res.AddedIn, HistoryCommit{Commit: l.Commit.String(), Summary: l.Message.Summary,
					Op: l.Message.Get(lorestore.TrailerOp), When: l.Author.When.UTC().Format("2006-01-02T15:04:05Z07:00")})
			}
		}
		for _, x := range ws.world.Ledger(id) {
			switch o := x.Object.(type) {
			case *objects.Standing:
				res.Standing = append(res.Standing, StagedDecl{Decl: x.ID.String(), Type: string(o.Type()), Rendered: dli.RenderDecl(o)})
			case *objects.Attack:
				res.Attacks = append(res.Attacks, [2]string{o.Attacker, o.Target})
			}
		}
		return res, nil
	})
}

// OptionRow is one option of a question.
type OptionRow struct {
	ID      string      `json:"id" desc:"the option's id"`
	Label   string      `json:"label" desc:"the option as shown"`
	Implies *GroundAtom `json:"implies,omitempty" desc:"the ground atom the option supports; absent when it implies none"`
}

// QuestionRow is one question.
type QuestionRow struct {
	ID      string      `json:"id" desc:"the question's id"`
	Prompt  string      `json:"prompt" desc:"the question as asked"`
	Options []OptionRow `json:"options" desc:"its options, in order"`
	Staged  bool        `json:"staged" desc:"true when the question is staged in this workspace, not yet committed"`
	Answer  string      `json:"answer,omitempty" desc:"the id of the option selected; absent while the question is open"`
	Open    bool        `json:"open" desc:"true while no option is selected"`
	Decl    string      `json:"decl" desc:"the question's object id (64 hex digits)"`
}

// QuestionsResult lists the questions.
type QuestionsResult struct {
	Questions []QuestionRow `json:"questions" desc:"every question of the workspace's world, committed and staged"`
}

func (s *Service) Questions(_ context.Context, p *WorkspaceParams) (QuestionsResult, error) {
	return read(s, p.Workspace, func(ws *Workspace) (QuestionsResult, error) {
		res := QuestionsResult{Questions: []QuestionRow{}}
		for _, q := range ws.world.Questions() {
			row := QuestionRow{ID: q.Question.Ident, Prompt: q.Question.Prompt, Options: []OptionRow{}, Staged: q.Staged,
				Answer: q.Answer, Open: q.Answer == "", Decl: q.Claim.String()}
			for _, o := range q.Question.Options {
				or := OptionRow{ID: o.Ident, Label: o.Label}
				if o.Implies != nil {
					or.Implies = &GroundAtom{Pred: o.Implies.Pred, Args: o.Implies.Args}
				}
				row.Options = append(row.Options, or)
			}
			res.Questions = append(res.Questions, row)
		}
		return res, nil
	})
}
