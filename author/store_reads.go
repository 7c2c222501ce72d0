// The read-only store tools: objects, history, one commit's changes,
// branches, scopes, a paged export, fsck, the world graph, a scope's
// difference between two revisions, and the loaded project. None writes;
// every revision goes through lorestore.Resolve and every scope is checked
// as an id before it reaches the store.

package author

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// StoredObject is one object as stored: its id, type, section and scope,
// where it is filed, its canonical JSON and its canonical .dli lines.
type StoredObject struct {
	ID       string          `json:"id" desc:"the object id (64 hex digits)"`
	Type     string          `json:"type" desc:"the object's type (entity, fact, decision, attack, …)"`
	Scope    string          `json:"scope" desc:"the scope it is filed under"`
	Path     string          `json:"path" desc:"the object file in the commit's tree"`
	Object   json.RawMessage `json:"object" desc:"the object's canonical JSON"`
	Rendered []string        `json:"rendered" desc:"the object as canonical .dli lines"`
}

// objectPath is where the store files an object: scopes/<scope>/<section>/…
// (claims sharded by the id's first two digits, standing revisions under
// the claim they revise).
func objectPath(scope string, id objects.ID, o objects.Object) string {
	sec := objects.Section(o.Type())
	name := id.String() + ".json"
	switch x := o.(type) {
	case *objects.Standing:
		return strings.Join([]string{"scopes", scope, sec, x.Claim.String(), name}, "/")
	}
	if sec == objects.SectionClaims {
		return strings.Join([]string{"scopes", scope, sec, id.String()[:2], name}, "/")
	}
	return strings.Join([]string{"scopes", scope, sec, name}, "/")
}

func stored(scope string, id objects.ID, o objects.Object) (StoredObject, error) {
	data, err := objects.Canonical(o)
	if err != nil {
		return StoredObject{}, err
	}
	return StoredObject{ID: id.String(), Type: string(o.Type()), Scope: scope, Path: objectPath(scope, id, o), Object: data, Rendered: dli.RenderDecl(o)}, nil
}

// CommitAuthor is a commit's author, as data.
type CommitAuthor struct {
	Name  string `json:"name" desc:"the author's name"`
	Email string `json:"email" desc:"the author's email"`
	When  string `json:"when" desc:"the author time, RFC 3339"`
}

// Trailer is one trailer line of a commit message.
type Trailer struct {
	Key   string `json:"key" desc:"the trailer's key (Lore-Op, Lore-Scope, Lore-Decision, …)"`
	Value string `json:"value" desc:"its value"`
}

// Commit is one commit of the history.
type Commit struct {
	Commit   string       `json:"commit" desc:"the commit id (40 hex digits)"`
	Parents  []string     `json:"parents" desc:"its parents' ids; [] for a root commit, two for a merge"`
	Author   CommitAuthor `json:"author" desc:"who wrote it and when"`
	Summary  string       `json:"summary" desc:"the commit message's first line"`
	Trailers []Trailer    `json:"trailers" desc:"the commit message's trailers (Lore-Op, Lore-Scope, Lore-Decision, …), in order"`
}

func commitOf(e lorestore.LogEntry) Commit {
	c := Commit{Commit: e.Commit.String(), Parents: []string{}, Summary: e.Message.Summary, Trailers: []Trailer{},
		Author: CommitAuthor{e.Author.Name, e.Author.Email, e.Author.When.UTC().Format(time.RFC3339)}}
	for _, p := range e.Parents {
		c.Parents = append(c.Parents, p.String())
	}
	for _, t := range e.Message.Trailers {
		c.Trailers = append(c.Trailers, Trailer{t.Key, t.Value})
	}
	return c
}

// ObjectParams name a stored object: its id (or 4 or more leading hex
// digits of it) at a revision.
type ObjectParams struct {
	ID  string `json:"id" desc:"an object id, or at least 4 of its leading hex digits"`
	Rev string `json:"rev,omitempty" desc:"the revision to read at (default: the serving commit)"`
}

// ObjectResult is dli.object: the object as stored at a commit. (Its id
// is object_id: "id" beside "ok" is the request's.)
type ObjectResult struct {
	Commit   string          `json:"commit" desc:"the commit read (40 hex digits)"`
	ObjectID string          `json:"object_id" desc:"the object's full id (64 hex digits)"`
	Type     string          `json:"type" desc:"the object's type"`
	Scope    string          `json:"scope" desc:"the scope it is filed under"`
	Path     string          `json:"path" desc:"the object file in the commit's tree"`
	Object   json.RawMessage `json:"object" desc:"the object's canonical JSON"`
	Rendered []string        `json:"rendered" desc:"the object as canonical .dli lines"`
}

// LogParams filter the history.
type LogParams struct {
	Rev   string `json:"rev,omitempty" desc:"the revision to start at (default: the serving commit)"`
	Limit int    `json:"limit,omitempty" desc:"at most this many commits (default 50, at most 1000)"`
	Scope string `json:"scope,omitempty" desc:"only commits that change this scope"`
	Op    string `json:"op,omitempty" desc:"only commits whose Lore-Op trailer is this"`
}

// Validate checks the limit and the scope.
func (p *LogParams) Validate() error {
	if err := limitCheck(p.Limit, maxLog); err != nil {
		return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: %v", err).With("field", "limit")
	}
	if p.Scope != "" && !objects.ValidID(p.Scope) {
		return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: scope %q is not a scope id", p.Scope).With("field", "scope")
	}
	return nil
}

const (
	defaultLog = 50
	maxLog     = 1000
)

// LogResult is dli.log.
type LogResult struct {
	Commits []Commit `json:"commits" desc:"the commits from rev back that pass the filters, newest first"`
	More    bool     `json:"more" desc:"older commits pass the filters beyond the limit"`
}

// RevParams name a revision.
type RevParams struct {
	Rev string `json:"rev" desc:"the revision to show: a branch, a commit id (4 or more hex digits), main~2, …"`
}

// Change is one object a commit added or removed.
type Change struct {
	Removed bool `json:"removed" desc:"true when the commit removed the object, false when it added it"`
	StoredObject
}

// ShowResult is dli.show.
type ShowResult struct {
	Commit  Commit   `json:"commit" desc:"the commit shown, as dli.log lists one"`
	Changes []Change `json:"changes" desc:"the objects the commit added or removed against its first parent, in tree order"`
}

// Branch is one branch and its head.
type Branch struct {
	Name   string `json:"name" desc:"the branch name"`
	Commit string `json:"commit" desc:"its head (40 hex digits)"`
}

// BranchesResult is dli.branches.
type BranchesResult struct {
	Serving  string   `json:"serving" desc:"the serving branch"`
	Pin      string   `json:"pin" desc:"the commit the project is pinned to; \"\" when it is not pinned"`
	Branches []Branch `json:"branches" desc:"every branch with its head, sorted by name"`
}

// ScopesParams name a revision.
type ScopesParams struct {
	Rev string `json:"rev,omitempty" desc:"the revision to read: a branch, a commit id (4 or more hex digits), main~2, … (default: the serving commit)"`
}

// Document is one document the project declares.
type Document struct {
	Scope   string `json:"scope" desc:"the document's scope"`
	Source  string `json:"source" desc:"its .dli source, relative to the project folder; \"\" for none"`
	Present bool   `json:"present" desc:"the commit holds objects of this scope"`
}

// ScopesResult is dli.scopes.
type ScopesResult struct {
	Commit    string     `json:"commit" desc:"the commit read (40 hex digits); \"\" before the first commit"`
	Documents []Document `json:"documents" desc:"the documents the project declares, sorted by scope"`
	Scopes    []string   `json:"scopes" desc:"every scope the commit holds objects of, declared or not, sorted"`
}

// ExportParams page through a scope's objects.
type ExportParams struct {
	Scope  string `json:"scope" desc:"the scope whose objects to export"`
	Rev    string `json:"rev,omitempty" desc:"the revision to read (default: the serving commit); a cursor keeps the commit its first page read"`
	Cursor string `json:"cursor,omitempty" desc:"next_cursor of the page before; absent for the first page"`
	Limit  int    `json:"limit,omitempty" desc:"at most this many objects a page (default 500, at most 5000)"`
}

// Validate checks the limit.
func (p *ExportParams) Validate() error {
	if err := limitCheck(p.Limit, maxExport); err != nil {
		return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: %v", err).With("field", "limit")
	}
	return nil
}

const (
	defaultExport = 500
	maxExport     = 5000
)

// ExportResult is dli.export.
type ExportResult struct {
	Scope      string         `json:"scope" desc:"the scope exported"`
	Commit     string         `json:"commit" desc:"the commit read (40 hex digits); every page of a cursor reads the same one"`
	Total      int            `json:"total" desc:"objects in the scope at the commit"`
	Objects    []StoredObject `json:"objects" desc:"this page of the scope's objects: claims, decisions, attacks and standing revisions, dead claims too"`
	NextCursor string         `json:"next_cursor" desc:"the cursor of the next page; \"\" on the last page"`
}

// FsckProblem is one thing fsck found wrong.
type FsckProblem struct {
	Where string `json:"where" desc:"where it is: a pack file, a ref, or \"commit <id> at <path>\""`
	What  string `json:"what" desc:"what is wrong there"`
}

// FsckResult is dli.fsck.
type FsckResult struct {
	Sound    bool          `json:"sound" desc:"true when no problem was found"`
	Problems []FsckProblem `json:"problems" desc:"every problem found; [] when sound"`
}

// ScopeRevParams name a scope at a revision.
type ScopeRevParams struct {
	Scope string `json:"scope" desc:"the scope to read"`
	Rev   string `json:"rev,omitempty" desc:"the revision to read: a branch, a commit id (4 or more hex digits), main~2, … (default: the serving commit)"`
}

// GraphEntity is one entity node.
type GraphEntity struct {
	ID    string `json:"id" desc:"the entity's id"`
	Kind  string `json:"kind" desc:"person, place, thing or era"`
	Name  string `json:"name" desc:"its display name"`
	Grade string `json:"grade" desc:"certain, possible or dead"`
}

// GraphEdge is one live binary atom between entities.
type GraphEdge struct {
	Pred    string `json:"pred" desc:"the binary predicate (a relation or a fact key)"`
	From    string `json:"from" desc:"the first argument's entity id"`
	To      string `json:"to" desc:"the second argument's entity id"`
	Grade   string `json:"grade" desc:"certain or possible (dead atoms are not drawn)"`
	Derived bool   `json:"derived" desc:"no relation or fact states it; a rule or identity gave it"`
}

// GraphAttack is one attack edge with its grounded labels.
type GraphAttack struct {
	Claim         string `json:"claim" desc:"the attacked claim's object id (64 hex digits)"`
	Attacker      string `json:"attacker" desc:"the attacking decision id"`
	Target        string `json:"target" desc:"the attacked decision id"`
	AttackerLabel string `json:"attacker_label" desc:"in, out or undecided"`
	TargetLabel   string `json:"target_label" desc:"in, out or undecided"`
	Defeats       bool   `json:"defeats" desc:"true when the attacker is in, so the target is defeated on this claim"`
}

// GraphResult is dli.graph.
type GraphResult struct {
	Scope     string        `json:"scope" desc:"the scope drawn"`
	Commit    string        `json:"commit" desc:"the commit read (40 hex digits)"`
	Entities  []GraphEntity `json:"entities" desc:"the entity nodes"`
	Decisions []string      `json:"decisions" desc:"the decision ids of the scope"`
	Edges     []GraphEdge   `json:"edges" desc:"the live binary atoms between entities"`
	Attacks   []GraphAttack `json:"attacks" desc:"the attack edges with their grounded labels"`
}

// RevDiffParams name a scope and two revisions.
type RevDiffParams struct {
	Scope string `json:"scope" desc:"the scope to compare"`
	From  string `json:"from" desc:"the revision to compare from: a branch, a commit id (4 or more hex digits), main~2, …"`
	To    string `json:"to" desc:"the revision to compare to, in the same forms as from"`
}

// RevDiffResult is dli.diff.
type RevDiffResult struct {
	Scope   string         `json:"scope" desc:"the scope compared"`
	From    string         `json:"from" desc:"the from commit (40 hex digits)"`
	To      string         `json:"to" desc:"the to commit (40 hex digits)"`
	Added   []StoredObject `json:"added" desc:"the objects in to and not in from, by id"`
	Removed []StoredObject `json:"removed" desc:"the objects in from and not in to, by id"`
}

// ProjectDocument is one declared document.
type ProjectDocument struct {
	Scope  string `json:"scope" desc:"the document's scope"`
	Source string `json:"source" desc:"the document's .dli source, relative to the project folder; \"\" for none"`
}

// ProjectResult is dli.project.
type ProjectResult struct {
	Store     string            `json:"store" desc:"the lorestore folder, relative to the project folder"`
	Branch    string            `json:"branch" desc:"the serving branch"`
	Pin       string            `json:"pin" desc:"the revision the project is pinned to; \"\" when it is not pinned"`
	Commit    string            `json:"commit" desc:"the serving branch's head (40 hex digits); \"\" before the first commit"`
	Documents []ProjectDocument `json:"documents" desc:"the documents the project declares, sorted by scope"`
}

func (s *Service) Object(_ context.Context, p *ObjectParams) (ObjectResult, error) {
	id := strings.ToLower(p.ID)
	if len(id) < 4 || len(id) > 64 || strings.Trim(id, "0123456789abcdef") != "" {
		return ObjectResult{}, fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: id %q is not an object id (4 to 64 hex digits)", p.ID).With("field", "id")
	}
	h, err := s.mustResolve(p.Rev)
	if err != nil {
		return ObjectResult{}, err
	}
	found, err := objectHits(s.store, h, id)
	if err != nil {
		return ObjectResult{}, err
	}
	switch hits := found.Hits; {
	case len(hits) == 0:
		return ObjectResult{}, fault.Errorf(fault.NotFound, CodeUnknownObject, "No object %s is stored at %s.", p.ID, h.String()[:12]).With("id", p.ID)
	case len(hits) > 1 && hits[0].ID != hits[1].ID:
		return ObjectResult{}, fault.Errorf(fault.Refused, CodeAmbiguousObject, "%d objects begin with %s; give more digits.", len(hits), p.ID).With("id", p.ID)
	}
	return found.Read(0)
}

func (s *Service) Log(_ context.Context, p *LogParams) (LogResult, error) {
	h, ok, err := s.resolve(p.Rev)
	if err != nil || !ok {
		return LogResult{Commits: []Commit{}}, err
	}
	limit := p.Limit
	if limit == 0 {
		limit = defaultLog
	}
	es, err := s.CommitLog(LogQuery{Rev: h.String(), Scope: p.Scope, Op: p.Op, Limit: limit + 1})
	if err != nil {
		return LogResult{}, err
	}
	res := LogResult{Commits: []Commit{}, More: len(es) > limit}
	for _, e := range es[:min(len(es), limit)] {
		res.Commits = append(res.Commits, commitOf(e))
	}
	return res, nil
}

func (s *Service) Show(_ context.Context, p *RevParams) (ShowResult, error) {
	if p.Rev == "" {
		return ShowResult{}, fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: rev is empty").With("field", "rev")
	}
	h, err := s.mustResolve(p.Rev)
	if err != nil {
		return ShowResult{}, err
	}
	c, err := shownAt(s.store, h)
	if err != nil {
		return ShowResult{}, err
	}
	res := ShowResult{Commit: commitOf(c.Entry), Changes: []Change{}}
	err = ShowChanges(c, true, func(ch ObjectChange, o objects.Object) (Change, error) {
		so, err := stored(ch.Scope, ch.ID, o)
		return Change{Removed: ch.Removed, StoredObject: so}, err
	}, func(_ ObjectChange, ch Change) error {
		res.Changes = append(res.Changes, ch)
		return nil
	})
	if err != nil {
		return ShowResult{}, err
	}
	return res, nil
}

func (s *Service) Branches(_ context.Context, _ *Empty) (BranchesResult, error) {
	st, err := s.needStore()
	if err != nil {
		return BranchesResult{}, err
	}
	bs, err := st.Branches()
	if err != nil {
		return BranchesResult{}, err
	}
	res := BranchesResult{Serving: s.cfg.Branch, Pin: s.cfg.Pin, Branches: make([]Branch, len(bs))}
	for i, b := range bs {
		res.Branches[i] = Branch{Name: b.Name, Commit: b.Commit.String()}
	}
	slices.SortFunc(res.Branches, func(a, b Branch) int { return strings.Compare(a.Name, b.Name) })
	return res, nil
}

func (s *Service) Scopes(_ context.Context, p *ScopesParams) (ScopesResult, error) {
	h, ok, err := s.resolve(p.Rev)
	if err != nil {
		return ScopesResult{}, err
	}
	res := ScopesResult{Commit: hashOrEmpty(h), Documents: []Document{}, Scopes: []string{}}
	if ok {
		sn, err := s.store.SnapshotAt(h)
		if err != nil {
			return ScopesResult{}, err
		}
		scopes, err := sn.Scopes()
		if err != nil {
			return ScopesResult{}, err
		}
		res.Scopes = append(res.Scopes, scopes...)
	}
	docs, err := s.projectDocuments()
	if err != nil {
		return ScopesResult{}, err
	}
	for _, d := range docs {
		res.Documents = append(res.Documents, Document{Scope: d.Scope, Source: d.Source, Present: slices.Contains(res.Scopes, d.Scope)})
	}
	return res, nil
}

// projectDocuments are the project's documents, sources relative to its
// folder.
func (s *Service) projectDocuments() ([]ProjectDocument, error) {
	out := []ProjectDocument{}
	p, err := s.Project()
	if err != nil {
		return nil, err
	}
	for _, d := range p.Documents {
		out = append(out, ProjectDocument{Scope: d.Scope, Source: s.relative(d.Source)})
	}
	slices.SortFunc(out, func(a, b ProjectDocument) int { return strings.Compare(a.Scope, b.Scope) })
	return out, nil
}

// relative is a path relative to the project folder, so that no reply
// tells a client where the server's files sit ("" for none).
func (s *Service) relative(path string) string {
	if path == "" || s.local.Dir == "" {
		return ""
	}
	rel, err := filepath.Rel(s.local.Dir, path)
	if err != nil {
		return filepath.Base(path)
	}
	return filepath.ToSlash(rel)
}

// scopeAt checks a scope param against a snapshot: an id, and either held
// by the commit or declared by the project.
func (s *Service) scopeAt(sn *lorestore.Snapshot, scope string) error {
	if !objects.ValidID(scope) {
		return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: scope %q is not a scope id", scope).With("field", "scope")
	}
	if ok, err := s.declares(scope); err != nil || ok {
		return err
	}
	if sn != nil {
		scopes, err := sn.Scopes()
		if err != nil {
			return err
		}
		if slices.Contains(scopes, scope) {
			return nil
		}
	}
	return fault.Errorf(fault.Refused, CodeUnknownScope, "No scope %q is declared by the project or held by the commit.", scope).With("scope", scope)
}

// exportCursor is where a page ends: the commit, the scope and the offset,
// opaque to the client.
func exportCursor(commit lorestore.Hash, scope string, offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(commit.String() + "/" + scope + "/" + strconv.Itoa(offset)))
}

func parseCursor(cur, scope string) (lorestore.Hash, int, error) {
	bad := fault.Errorf(fault.Invalid, CodeBadCursor, "params: cursor is not a next_cursor dli.export gave for scope %s", scope).With("field", "cursor")
	raw, err := base64.RawURLEncoding.DecodeString(cur)
	if err != nil {
		return lorestore.ZeroHash, 0, bad
	}
	parts := strings.Split(string(raw), "/")
	if len(parts) != 3 || len(parts[0]) != 40 || strings.Trim(parts[0], "0123456789abcdef") != "" || parts[1] != scope {
		return lorestore.ZeroHash, 0, bad
	}
	off, err := strconv.Atoi(parts[2])
	if err != nil || off <= 0 || parts[2] != strconv.Itoa(off) {
		return lorestore.ZeroHash, 0, bad
	}
	return lorestore.NewHash(parts[0]), off, nil
}

func (s *Service) Export(_ context.Context, p *ExportParams) (ExportResult, error) {
	var h lorestore.Hash
	offset := 0
	if p.Cursor != "" {
		var err error
		if h, offset, err = parseCursor(p.Cursor, p.Scope); err != nil {
			return ExportResult{}, err
		}
		if p.Rev != "" {
			r, err := s.mustResolve(p.Rev)
			if err != nil {
				return ExportResult{}, err
			}
			if r != h {
				return ExportResult{}, fault.Errorf(fault.Invalid, CodeBadCursor, "params: the cursor reads commit %s, not %s", h.String()[:12], p.Rev).With("field", "cursor")
			}
		}
		// The cursor names a full commit id; Resolve checks it is one.
		if _, err := s.mustResolve(h.String()); err != nil {
			return ExportResult{}, err
		}
	} else {
		var err error
		if h, err = s.mustResolve(p.Rev); err != nil {
			return ExportResult{}, err
		}
	}
	sn, err := s.store.SnapshotAt(h)
	if err != nil {
		return ExportResult{}, err
	}
	if err := s.scopeAt(sn, p.Scope); err != nil {
		return ExportResult{}, err
	}
	var ids []objects.ID
	for _, k := range lorestore.Kinds {
		ks, err := sn.IDs(p.Scope, k)
		if err != nil {
			return ExportResult{}, err
		}
		ids = append(ids, ks...)
	}
	limit := p.Limit
	if limit == 0 {
		limit = defaultExport
	}
	if offset > len(ids) {
		return ExportResult{}, fault.Errorf(fault.Invalid, CodeBadCursor, "params: the cursor is past the end of scope %s", p.Scope).With("field", "cursor")
	}
	end := min(len(ids), offset+limit)
	res := ExportResult{Scope: p.Scope, Commit: h.String(), Total: len(ids), Objects: make([]StoredObject, 0, end-offset)}
	for _, id := range ids[offset:end] {
		o, err := sn.Get(p.Scope, id)
		if err != nil {
			return ExportResult{}, err
		}
		so, err := stored(p.Scope, id, o)
		if err != nil {
			return ExportResult{}, err
		}
		res.Objects = append(res.Objects, so)
	}
	if end < len(ids) {
		res.NextCursor = exportCursor(h, p.Scope, end)
	}
	return res, nil
}

func (s *Service) Fsck(_ context.Context, _ *Empty) (FsckResult, error) {
	st, err := s.needStore()
	if err != nil {
		return FsckResult{}, err
	}
	ps, err := st.Fsck()
	if err != nil {
		return FsckResult{}, err
	}
	res := FsckResult{Sound: len(ps) == 0, Problems: make([]FsckProblem, len(ps))}
	for i, p := range ps {
		res.Problems[i] = FsckProblem{Where: p.Where, What: p.What}
	}
	return res, nil
}

func (s *Service) Graph(_ context.Context, p *ScopeRevParams) (GraphResult, error) {
	h, err := s.mustResolve(p.Rev)
	if err != nil {
		return GraphResult{}, err
	}
	sn, err := s.store.SnapshotAt(h)
	if err != nil {
		return GraphResult{}, err
	}
	if err := s.scopeAt(sn, p.Scope); err != nil {
		return GraphResult{}, err
	}
	return graphAt(s.store, h, p.Scope)
}

// graphAt compiles the world of a scope at a commit and draws it.
func graphAt(st *lorestore.Store, h lorestore.Hash, scope string) (GraphResult, error) {
	w, err := CompileAt(st, h, scope)
	if err != nil {
		return GraphResult{}, err
	}
	return graphOf(w, h, scope), nil
}

// graphOf is the graph of a compiled world.
func graphOf(w *world.World, h lorestore.Hash, scope string) GraphResult {
	g := w.Graph()
	res := GraphResult{Scope: scope, Commit: h.String(), Entities: []GraphEntity{}, Decisions: append([]string{}, g.Decisions...),
		Edges: []GraphEdge{}, Attacks: []GraphAttack{}}
	for _, e := range g.Entities {
		res.Entities = append(res.Entities, GraphEntity{ID: e.ID, Kind: e.Kind, Name: e.Name, Grade: e.Grade.String()})
	}
	for _, e := range g.Edges {
		res.Edges = append(res.Edges, GraphEdge{Pred: e.Pred, From: e.From, To: e.To, Grade: e.Grade.String(), Derived: e.Derived})
	}
	for _, a := range g.Attacks {
		res.Attacks = append(res.Attacks, GraphAttack{Claim: a.Claim.String(), Attacker: a.Attacker, Target: a.Target,
			AttackerLabel: a.AttackerLabel.String(), TargetLabel: a.TargetLabel.String(), Defeats: a.Defeats()})
	}
	return res
}

// scopeIDs lists every object id of a scope at a snapshot.
func scopeIDs(sn *lorestore.Snapshot, scope string) (map[objects.ID]bool, error) {
	out := map[objects.ID]bool{}
	for _, k := range lorestore.Kinds {
		ids, err := sn.IDs(scope, k)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			out[id] = true
		}
	}
	return out, nil
}

func (s *Service) DiffRevisions(_ context.Context, p *RevDiffParams) (RevDiffResult, error) {
	for _, f := range []struct{ name, v string }{{"from", p.From}, {"to", p.To}} {
		if f.v == "" {
			return RevDiffResult{}, fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: %s is empty", f.name).With("field", f.name)
		}
	}
	var sns [2]*lorestore.Snapshot
	var sets [2]map[objects.ID]bool
	var hs [2]lorestore.Hash
	for i, rev := range []string{p.From, p.To} {
		h, err := s.mustResolve(rev)
		if err != nil {
			return RevDiffResult{}, err
		}
		if sns[i], err = s.store.SnapshotAt(h); err != nil {
			return RevDiffResult{}, err
		}
		hs[i] = h
	}
	if err := s.scopeAt(sns[0], p.Scope); err != nil {
		if err := s.scopeAt(sns[1], p.Scope); err != nil {
			return RevDiffResult{}, err
		}
	}
	for i := range sns {
		var err error
		if sets[i], err = scopeIDs(sns[i], p.Scope); err != nil {
			return RevDiffResult{}, err
		}
	}
	side := func(sn *lorestore.Snapshot, in, notIn map[objects.ID]bool) ([]StoredObject, error) {
		ids := make([]objects.ID, 0)
		for id := range in {
			if !notIn[id] {
				ids = append(ids, id)
			}
		}
		slices.SortFunc(ids, func(a, b objects.ID) int { return strings.Compare(a.String(), b.String()) })
		out := make([]StoredObject, 0, len(ids))
		for _, id := range ids {
			o, err := sn.Get(p.Scope, id)
			if err != nil {
				return nil, err
			}
			so, err := stored(p.Scope, id, o)
			if err != nil {
				return nil, err
			}
			out = append(out, so)
		}
		return out, nil
	}
	added, err := side(sns[1], sets[1], sets[0])
	if err != nil {
		return RevDiffResult{}, err
	}
	removed, err := side(sns[0], sets[0], sets[1])
	if err != nil {
		return RevDiffResult{}, err
	}
	return RevDiffResult{Scope: p.Scope, From: hs[0].String(), To: hs[1].String(), Added: added, Removed: removed}, nil
}

func (s *Service) ProjectInfo(_ context.Context, _ *Empty) (ProjectResult, error) {
	docs, err := s.projectDocuments()
	if err != nil {
		return ProjectResult{}, err
	}
	res := ProjectResult{Branch: s.cfg.Branch, Pin: s.cfg.Pin, Documents: docs, Store: s.relative(s.local.Store)}
	if s.store != nil {
		h, ok, err := s.resolve("")
		if err != nil && !errors.Is(err, lorestore.ErrNotFound) {
			return ProjectResult{}, err
		}
		if ok {
			res.Commit = h.String()
		}
	}
	return res, nil
}
