// The Workspace: a staged layer over one document's world at a pinned
// commit, its digest, and the three things done to it besides staging —
// discard, suppose and materialize.

package author

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/jcs"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
	"github.com/zeebo/blake3"
)

// Workspace is one open workspace. Its fields are guarded by mu.
type Workspace struct {
	mu     sync.Mutex
	id     string
	scope  string // the document it is bound to
	fork   string // the question it forks, or ""
	branch string

	base      lorestore.Hash // the commit it stages over (zero: the branch has none yet)
	baseWorld *world.World   // the compiled base, shared through the cache
	world     *world.World   // the base with everything staged

	staged    []stagedObj // in staging order, each id once
	stagedSet map[objects.ID]bool
	hyps      []string // hypotheses minted here (a fork mints one)
	supposed  []string // hypotheses supposed true, sorted
	digest    string
	prefix    *blake3.Hasher // the canonical state up to the last staged id (computeDigest)
	prefixN   int            // how many staged ids prefix holds

	keys      map[string]keyed
	discarded bool
	changed   time.Time // when it opened or a mutation last applied (Workspaces)

	ctx   context.Context // the budget of the op holding mu, or nil (budget.go)
	limit time.Duration   // its time budget
}

// stagedObj is one staged declaration.
type stagedObj struct {
	id  objects.ID
	obj objects.Object
}

// context is the budget of the op holding mu (budget.go).
func (ws *Workspace) context() context.Context {
	if ws.ctx == nil {
		return context.Background()
	}
	return ws.ctx
}

// ID is the workspace's id.
func (ws *Workspace) ID() string { return ws.id }

// Open creates a workspace over a declared document (scope) or over the
// one document that declares a question (fork). It starts from the pinned
// commit, or from the serving branch's head as it is now.
func (s *Service) Open(scope, fork string) (*Workspace, error) {
	return s.OpenOn(scope, fork, "")
}

// OpenOn is Open on a named branch ("" is the serving branch): the
// workspace stages over that branch's head and materializes there. The
// branch name is data: it must be a valid branch name and name a branch
// that exists (unknown-branch otherwise).
func (s *Service) OpenOn(scope, fork, branch string) (*Workspace, error) {
	return s.OpenOnContext(context.Background(), scope, fork, branch)
}

// OpenOnContext is OpenOn telling ctx's progress listener when the
// opening commit's world has to be compiled (no world file holds it).
func (s *Service) OpenOnContext(ctx context.Context, scope, fork, branch string) (*Workspace, error) {
	switch {
	case scope == "" && fork == "", scope != "" && fork != "":
		return nil, fault.Errorf(fault.Invalid, CodeOpenMode, "Open a workspace with exactly one of scope or fork.")
	case fork != "":
		docs, err := s.forkDocs(fork)
		if err != nil {
			return nil, err
		}
		switch len(docs) {
		case 0:
			return nil, fault.Errorf(fault.Refused, CodeUnknownFork, "No document of this project declares a question %q to fork.", fork).With("fork", fork)
		case 1:
			scope = docs[0]
		default:
			return nil, fault.Errorf(fault.Refused, CodeAmbiguousFork,
				"Question %q is declared by %d documents (%s); a fork needs exactly one.", fork, len(docs), strings.Join(docs, ", ")).
				With("fork", fork).With("documents", docs)
		}
	default:
		docs, err := s.documents()
		if err != nil {
			return nil, err
		}
		if !slices.Contains(docs, scope) {
			return nil, errUndeclared(scope, docs)
		}
	}
	base, _, err := s.openingCommitOn(branch)
	if err != nil {
		return nil, err
	}
	bw, err := s.baseWorldReporting(ctx, base, scope)
	if err != nil {
		return nil, err
	}
	if branch == "" {
		branch = s.cfg.Branch
	}
	s.mu.Lock()
	s.next++
	ws := &Workspace{id: fmt.Sprintf("ws-%d", s.next), scope: scope, fork: fork, branch: branch,
		base: base, baseWorld: bw, world: bw, keys: map[string]keyed{}, changed: time.Now()}
	ws.digest = ws.computeDigest()
	s.workspaces[ws.id] = ws
	s.mu.Unlock()
	return ws, nil
}

// baseWorld is the compiled world of a scope at a commit, from the cache;
// the zero commit (a branch with no commit yet) is the empty world.
func (s *Service) baseWorld(commit lorestore.Hash, scope string) (*world.World, error) {
	return s.baseWorldReporting(context.Background(), commit, scope)
}

// baseWorldReporting is baseWorld reporting a compile to ctx's listener.
func (s *Service) baseWorldReporting(ctx context.Context, commit lorestore.Hash, scope string) (*world.World, error) {
	if commit.IsZero() {
		return world.Compile(world.Input{Scope: scope, Dialects: s.dialects()})
	}
	return s.cache.getReporting(ctx, s.store, commit, scope)
}

// computeDigest is the RFC 8785 digest of the staged state: the document,
// the fork, the staged declarations in order, the minted and the supposed
// hypotheses. The base commit is not in it: a standing change that moves
// the base leaves the staged state, and so the fence, as it was.
//
// The canonical form's keys sort as fork, hypotheses, scope, staged,
// supposed, so everything up to the last staged id is a prefix that only
// grows while declarations are appended: a running hash of it is kept, and
// a digest costs the new ids and the short tail, not the whole list.
func (ws *Workspace) computeDigest() string {
	if ws.prefix == nil || ws.prefixN > len(ws.staged) {
		ws.prefix, ws.prefixN = blake3.New(), 0
		var b []byte
		b = append(b, `{"fork":`...)
		b = appendJSONString(b, ws.fork)
		b = append(b, `,"hypotheses":`...)
		b = appendJSONStrings(b, ws.hyps)
		b = append(b, `,"scope":`...)
		b = appendJSONString(b, ws.scope)
		b = append(b, `,"staged":[`...)
		ws.prefix.Write(b)
	}
	var b []byte
	for i := ws.prefixN; i < len(ws.staged); i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = hex.AppendEncode(b, ws.staged[i].id[:])
		b = append(b, '"')
	}
	ws.prefix.Write(b)
	ws.prefixN = len(ws.staged)
	h := ws.prefix.Clone()
	tail := append([]byte(`],"supposed":`), appendJSONStrings(nil, ws.supposed)...)
	h.Write(append(tail, '}'))
	var d jcs.Digest
	copy(d[:], h.Sum(nil))
	return "wd-" + d.String()
}

// resetDigest drops the running hash: the staged order or the hypotheses
// changed otherwise than by appending.
func (ws *Workspace) resetDigest() { ws.prefix = nil }

// canonicalState is the staged state as RFC 8785 JSON, built the slow way;
// tests hold computeDigest to it.
func (ws *Workspace) canonicalState() []byte {
	ids := make([]string, len(ws.staged))
	for i, st := range ws.staged {
		ids[i] = st.id.String()
	}
	state := struct {
		Scope      string   `json:"scope"`
		Fork       string   `json:"fork"`
		Staged     []string `json:"staged"`
		Hypotheses []string `json:"hypotheses"`
		Supposed   []string `json:"supposed"`
	}{ws.scope, ws.fork, ids, nonNil(ws.hyps), nonNil(ws.supposed)}
	canonical, err := jcs.Transform(mustJSON(state))
	if err != nil {
		panic(err) // ids and scope names are plain strings
	}
	return canonical
}

func appendJSONString(b []byte, s string) []byte {
	out, err := jcs.AppendString(b, s)
	if err != nil {
		panic(err) // ids are valid UTF-8 with no lone surrogates
	}
	return out
}

func appendJSONStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

// stage stages objects (and discards ids) and returns the findings the
// change brought: those of the new world that the old one did not have.
// The workspace is unchanged when it fails. Appending costs the new
// objects, not the staged list.
func (ws *Workspace) stage(add []objects.Object, discard []objects.ID) ([]world.Finding, error) {
	ids := make([]objects.ID, len(add))
	for i, o := range add {
		id, err := o.ID()
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	nw, err := ws.world.StageContext(ws.context(), add, discard)
	if err != nil {
		return nil, budgetErr("staging", ws.limit, err)
	}
	brought := newFindings(ws.world.Findings(), nw.Findings())
	if ws.stagedSet == nil {
		ws.stagedSet = map[objects.ID]bool{}
	}
	if len(discard) > 0 {
		gone := map[objects.ID]bool{}
		for _, id := range discard {
			gone[id] = true
			delete(ws.stagedSet, id)
		}
		kept := ws.staged[:0:0]
		for _, st := range ws.staged {
			if !gone[st.id] {
				kept = append(kept, st)
			}
		}
		ws.staged = kept
		ws.resetDigest()
	}
	for i, o := range add {
		if !ws.stagedSet[ids[i]] {
			ws.staged = append(ws.staged, stagedObj{ids[i], o})
			ws.stagedSet[ids[i]] = true
		}
	}
	ws.world = nw
	ws.digest = ws.computeDigest()
	return brought, nil
}

// newFindings lists the findings of after that before does not hold (as
// a multiset: a second copy of a finding is new).
func newFindings(before, after []world.Finding) []world.Finding {
	count := map[string]int{}
	for _, f := range before {
		count[findingKey(f)]++
	}
	out := []world.Finding{}
	for _, f := range after {
		k := findingKey(f)
		if count[k] > 0 {
			count[k]--
			continue
		}
		out = append(out, f)
	}
	return out
}

func findingKey(f world.Finding) string {
	return f.Code + "\x00" + f.Message + "\x00" + strings.Join(f.Citations, ",")
}

// stagedIndex returns the position of a staged id, or -1.
func (ws *Workspace) stagedIndex(id objects.ID) int {
	for i, st := range ws.staged {
		if st.id == id {
			return i
		}
	}
	return -1
}

// blocking lists the error findings of the staged world.
func (ws *Workspace) blocking() []world.Finding {
	out := []world.Finding{}
	for _, f := range ws.world.Findings() {
		if f.Severity == world.SeverityError {
			out = append(out, f)
		}
	}
	return out
}

// Committed is one object a materialize committed, as data.
type Committed struct {
	ID     string          `json:"id" desc:"the committed object's id (64 hex digits)"`
	Type   string          `json:"type" desc:"the object's type (entity, fact, relation, …)"`
	Object json.RawMessage `json:"object" desc:"the object's canonical JSON"` // its canonical JSON
}

// materialize commits the staged declarations on the workspace's branch.
// When the branch moved since the workspace's base, the staged layer is
// checked again over the new head and committed on top of it, or refused
// with the findings that now block it: a materialize never overwrites.
// With a decision, the staged facts are stamped under it (stamp) and the
// stamped layer is what is checked and committed, with its Ratify record
// and a Lore-Decision trailer.
//
// Its steps go to pr: one per object encoded, the commit, and the load of
// the new base (which the caller reports).
func (s *Service) materialize(ws *Workspace, workspaceOp, decision string, pr *steps) (lorestore.Hash, []Committed, []Stamp, error) {
	if ws.fork != "" {
		return lorestore.ZeroHash, nil, nil, fault.Errorf(fault.Refused, CodeForkLocal,
			"Workspace %s forks question %s: what is staged in a fork stays in the fork and is never materialized.", ws.id, ws.fork)
	}
	if err := s.refusePinned(workspaceOp); err != nil {
		return lorestore.ZeroHash, nil, nil, err
	}
	if decision != "" {
		if _, _, ok := ws.baseWorld.Decision(decision); !ok {
			return lorestore.ZeroHash, nil, nil, unknownDecision("decision", decision)
		}
	}
	if b := ws.blocking(); len(b) > 0 {
		return lorestore.ZeroHash, nil, nil, blockedError(ws, b, "")
	}
	if len(ws.staged) == 0 {
		return ws.base, []Committed{}, nil, nil
	}
	objs, st, err := s.materializeObjects(ws, decision)
	if err != nil {
		return lorestore.ZeroHash, nil, nil, err
	}
	batch, committed, counts, err := encodeMaterialized(ws.scope, objs, pr)
	if err != nil {
		return lorestore.ZeroHash, nil, nil, err
	}
	msg := lorestore.NewMessage(materializeSummary(ws.scope, counts), "materialize", ws.scope)
	if st != nil && st.ratify != nil {
		msg.Trailers = append(msg.Trailers, lorestore.Trailer{Key: lorestore.TrailerDecision, Value: decision})
	}
	msg.Trailers = append(msg.Trailers, lorestore.Trailer{Key: "Lore-Workspace", Value: ws.id})
	pr.to(float64(len(objs)), "committing to "+ws.branch)
	commit, err := s.commitMaterialized(ws, batch, msg, st != nil, decision)
	if err != nil {
		return lorestore.ZeroHash, nil, nil, err
	}
	var stamps []Stamp
	if st != nil {
		stamps = st.stamps
	}
	return commit, committed, stamps, nil
}

// materializeObjects is what a materialize commits: the staged objects,
// or, with a decision, the stamped layer and its Ratify record (st).
func (s *Service) materializeObjects(ws *Workspace, decision string) ([]objects.Object, *stamping, error) {
	objs := make([]objects.Object, len(ws.staged))
	for i, st := range ws.staged {
		objs[i] = st.obj
	}
	var st *stamping
	if decision != "" {
		var err error
		if st, err = s.checkStamped(ws, decision, ""); err != nil {
			return nil, nil, err
		}
		objs = st.objs
		if st.ratify != nil {
			objs = append(objs[:len(objs):len(objs)], st.ratify)
		}
	}
	return objs, st, nil
}

// encodeMaterialized puts objs in a batch for scope, and encodes each as
// the Committed the caller returns, counting them by type for the commit
// summary. Its steps go to pr: one per object, and two more to come (the
// commit and the load of the new base).
func encodeMaterialized(scope string, objs []objects.Object, pr *steps) (*lorestore.Batch, []Committed, map[objects.Type]int, error) {
	committed := make([]Committed, len(objs))
	batch := lorestore.NewBatch()
	counts := map[objects.Type]int{}
	pr.of(len(objs) + 2)
	step := every(len(objs))
	for i, o := range objs {
		if i%step == 0 {
			pr.to(float64(i), fmt.Sprintf("encoding %d of %d objects", i, len(objs)))
		}
		id, err := batch.Put(scope, o)
		if err != nil {
			return nil, nil, nil, err
		}
		data, err := objects.Canonical(o)
		if err != nil {
			return nil, nil, nil, err
		}
		committed[i] = Committed{ID: id.String(), Type: string(o.Type()), Object: data}
		counts[o.Type()]++
	}
	return batch, committed, counts, nil
}

// commitMaterialized commits batch on the workspace's branch over its
// base. When the branch moved, the staged layer (and, stamped, the
// stamped one) is checked again over the new head and the commit tried
// on top of it, up to eight times: a materialize never overwrites.
func (s *Service) commitMaterialized(ws *Workspace, batch *lorestore.Batch, msg lorestore.Message, stamped bool, decision string) (lorestore.Hash, error) {
	parent := ws.base
	for attempt := 0; attempt < 8; attempt++ {
		res, err := s.store.Commit(batch, msg, lorestore.CommitOptions{Branch: ws.branch, Parent: parent, Refuse: true})
		var stale *lorestore.StaleError
		if errors.As(err, &stale) {
			// Someone committed first: check again over their head.
			if err := s.restage(ws, stale.Actual); err != nil {
				return lorestore.ZeroHash, err
			}
			if stamped {
				// The stamped layer is a function of the staged one, so
				// only its findings can have moved.
				if _, err := s.checkStamped(ws, decision, stale.Actual.String()); err != nil {
					return lorestore.ZeroHash, err
				}
			}
			parent = stale.Actual
			continue
		}
		if err != nil {
			return lorestore.ZeroHash, err
		}
		return res.Commit, nil
	}
	return lorestore.ZeroHash, fault.Errorf(fault.Refused, CodeBranchMoved,
		"Branch %s kept moving while workspace %s tried to materialize; try again.", ws.branch, ws.id)
}

// restage checks the staged layer again over a new head: the workspace
// moves onto it, and the materialize is refused when its findings block.
func (s *Service) restage(ws *Workspace, head lorestore.Hash) error {
	bw, err := s.baseWorld(head, ws.scope)
	if err != nil {
		return err
	}
	objs := make([]objects.Object, len(ws.staged))
	for i, st := range ws.staged {
		objs[i] = st.obj
	}
	nw, err := bw.Stage(objs, nil)
	if err != nil {
		return err
	}
	ws.base, ws.baseWorld, ws.world = head, bw, nw
	if b := ws.blocking(); len(b) > 0 {
		return blockedError(ws, b, head.String())
	}
	return nil
}

func blockedError(ws *Workspace, findings []world.Finding, movedTo string) *fault.Error {
	msg := fmt.Sprintf("Workspace %s cannot materialize: %d error finding(s) stand. Repair or discard the staged claims they cite.", ws.id, len(findings))
	if movedTo != "" {
		msg = fmt.Sprintf("Branch %s moved to %s; over it, workspace %s has %d error finding(s). Nothing was committed.", ws.branch, movedTo[:12], ws.id, len(findings))
	}
	e := fault.Errorf(fault.Refused, CodeMaterializeBlocked, "%s", msg).With("findings", findings)
	if movedTo != "" {
		e = e.With("root_hash", movedTo)
	}
	return e
}

// materializeSummary is the commit summary: the scope and what was
// committed, by type (`materialize camelot: 2 facts, 1 relation`).
func materializeSummary(scope string, counts map[objects.Type]int) string {
	var parts []string
	for _, t := range objects.Types() {
		if n := counts[t]; n > 0 {
			name := strings.ReplaceAll(string(t), "_", "-")
			if n > 1 {
				name = plural(name)
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, name))
		}
	}
	return "materialize " + scope + ": " + strings.Join(parts, ", ")
}

func plural(s string) string {
	switch {
	case strings.HasSuffix(s, "y"):
		return s[:len(s)-1] + "ies"
	case strings.HasSuffix(s, "s"):
		return s + "es"
	}
	return s + "s"
}

// afterMaterialize moves the workspace onto the commit it made: nothing
// is staged any more, and the base is the new commit's world.
func (s *Service) afterMaterialize(ws *Workspace, commit lorestore.Hash) error {
	if commit == ws.base {
		return nil
	}
	s.settleMaterialized(ws, commit)
	bw, err := s.baseWorld(commit, ws.scope)
	if err != nil {
		return err
	}
	ws.base, ws.baseWorld, ws.world, ws.staged, ws.stagedSet = commit, bw, bw, nil, nil
	ws.resetDigest()
	ws.digest = ws.computeDigest()
	return nil
}
