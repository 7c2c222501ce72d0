// The mutation law: fences, idempotency keys and tombstones. Every
// mutating op runs through mutate, which replays a keyed retry, refuses a
// stale fence, and otherwise runs the op under the workspace's lock.

package author

import (
	"bytes"
	"container/list"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/jcs"
	"github.com/deloreis/deloreis/lorestore"
)

// Error codes the author ops answer with.
const (
	CodeUnknownDoc         = "unknown-doc"
	CodeStaleFence         = "stale-fence"
	CodeKeyConflict        = "idempotency-conflict"
	CodeMaterializeBlocked = "materialize-blocked"
	CodeUnknownScope       = "unknown-scope"
	CodeUnknownFork        = "unknown-fork"
	CodeAmbiguousFork      = "ambiguous-fork"
	CodeOpenMode           = "open-mode"
	CodeNotAFork           = "not-a-fork"
	CodeHypothesisLimit    = "hypothesis-limit"
	CodeUnknownHypothesis  = "unknown-hypothesis"
	CodeHypothesisInScope  = "hypothesis-outside-fork"
	CodeQuestionExists     = "question-exists"
	CodeQuestionCommitted  = "question-committed"
	CodeUnknownQuestion    = "unknown-question"
	CodeOptionExists       = "option-exists"
	CodeUnknownDecl        = "unknown-decl"
	CodeForkLocal          = "fork-local"
	CodeInvalidObject      = "invalid-object"
	CodeBranchMoved        = "branch-moved"
)

// ErrorCodes lists every code the author ops may answer with, with its
// class, for the generated error reference.
var ErrorCodes = map[string]fault.Class{
	CodeUnknownDoc: fault.Refused, CodeStaleFence: fault.Refused, CodeKeyConflict: fault.Conflict,
	CodeMaterializeBlocked: fault.Refused, CodeUnknownScope: fault.Refused, CodeUnknownFork: fault.Refused,
	CodeAmbiguousFork: fault.Refused, CodeOpenMode: fault.Invalid, CodeNotAFork: fault.Refused,
	CodeHypothesisLimit: fault.Refused, CodeUnknownHypothesis: fault.Refused, CodeHypothesisInScope: fault.Refused,
	CodeQuestionExists: fault.Refused, CodeQuestionCommitted: fault.Refused, CodeUnknownQuestion: fault.NotFound,
	CodeOptionExists: fault.Refused, CodeUnknownDecl: fault.NotFound, CodeForkLocal: fault.Refused,
	CodeInvalidObject: fault.Invalid, CodeBranchMoved: fault.Refused,
}

// keyed is what an applied idempotency key remembers: the call it was
// given for, and the result it returned.
type keyed struct {
	op     string
	params []byte // canonical (RFC 8785) params
	result any
}

// maxTombstones is how many discarded workspaces are remembered.
const maxTombstones = 1024

// tombstone is what remains of a discarded workspace: its id and the keys
// its calls applied, so that a retried discard answers as the first did.
type tombstone struct {
	id   string
	keys map[string]keyed
}

// tombstones keeps the most recent discarded workspaces, oldest evicted.
type tombstones struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *tombstone, oldest at the front
	byID  map[string]*list.Element
}

func newTombstones(max int) *tombstones {
	return &tombstones{max: max, order: list.New(), byID: map[string]*list.Element{}}
}

func (t *tombstones) add(ts *tombstone) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byID[ts.id] = t.order.PushBack(ts)
	for t.order.Len() > t.max {
		old := t.order.Remove(t.order.Front()).(*tombstone)
		delete(t.byID, old.id)
	}
}

func (t *tombstones) get(id string) (*tombstone, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.byID[id]
	if !ok {
		return nil, false
	}
	return e.Value.(*tombstone), true
}

// Guard is what a mutating call presents under the mutation law, beside
// its params: the op it is (for the key's record), the workspace digest
// it was decided against ("" when it presents none), and its idempotency
// key ("" when none).
type Guard struct {
	Op             string
	ExpectedDigest string
	IdempotencyKey string
}

// canonicalParams is the RFC 8785 form of a call's params: a retry is the
// same call when these bytes are equal. The params are the decoded Go
// value, so two spellings of one request are one call.
func canonicalParams(params any) []byte {
	b, err := json.Marshal(params)
	if err != nil {
		panic(err) // params are plain data; they always marshal
	}
	if b, err = jcs.Transform(b); err != nil {
		panic(err)
	}
	return b
}

// replay answers a keyed call from a key cache: the first result for an
// exact retry, a conflict for the same key with another call, nothing
// (ok false) for a new key.
func replay[R any](keys map[string]keyed, g Guard, params any) (R, bool, error) {
	var zero R
	if g.IdempotencyKey == "" {
		return zero, false, nil
	}
	k, ok := keys[g.IdempotencyKey]
	if !ok {
		return zero, false, nil
	}
	if k.op != g.Op || !bytes.Equal(k.params, canonicalParams(params)) {
		return zero, true, fault.Errorf(fault.Conflict, CodeKeyConflict,
			"Idempotency key %q was already used for another call (%s); use a new key for a new call.", g.IdempotencyKey, k.op).
			With("idempotency_key", g.IdempotencyKey)
	}
	r, ok := k.result.(R)
	if !ok {
		return zero, true, fault.Errorf(fault.Internal, fault.CodeInternal, "stored result of %s has another type", k.op)
	}
	return r, true, nil
}

// mutate runs one mutating call on a workspace under the mutation law:
// g is what the call presented beside its params.
func mutate[R any](s *Service, g Guard, params any, wsID string, apply func(ws *Workspace) (R, error)) (R, error) {
	var zero R
	ws, werr := s.workspace(wsID)
	if werr != nil {
		if ts, ok := s.tombstones.get(wsID); ok {
			if r, hit, err := replay[R](ts.keys, g, params); hit {
				return r, err
			}
		}
		return zero, werr
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.discarded {
		// Discarded while this call waited for the lock: answer as a
		// tombstone would.
		if ts, ok := s.tombstones.get(wsID); ok {
			if r, hit, err := replay[R](ts.keys, g, params); hit {
				return r, err
			}
		}
		return zero, errUnknownDoc(wsID)
	}
	if r, hit, err := replay[R](ws.keys, g, params); hit {
		return r, err
	}
	if g.ExpectedDigest != "" && g.ExpectedDigest != ws.digest {
		return zero, fault.Errorf(fault.Refused, CodeStaleFence,
			"Workspace %s is at digest %s; you presented %s. Read author.status before continuing.", ws.id, ws.digest, g.ExpectedDigest).
			With("expected_digest", ws.digest).With("presented_digest", g.ExpectedDigest)
	}
	r, err := apply(ws)
	if errors.Is(err, lorestore.ErrReadOnly) {
		// A store opened pinned to a commit takes no commit: say so in the
		// caller's terms rather than as an internal failure.
		return zero, fault.Errorf(fault.Refused, CodePinnedProject,
			"The lorestore is open read-only, pinned to a commit: %s cannot write to it.", g.Op)
	}
	if err != nil {
		return zero, err
	}
	ws.changed = time.Now()
	if g.IdempotencyKey != "" {
		ws.keys[g.IdempotencyKey] = keyed{op: g.Op, params: canonicalParams(params), result: r}
	}
	if ws.discarded {
		s.retire(ws) // after its key is recorded: a retried discard replays
	}
	return r, nil
}

// retire closes a discarded workspace and leaves its tombstone. Called
// with ws.mu held; ws.keys is never written again.
func (s *Service) retire(ws *Workspace) {
	s.mu.Lock()
	delete(s.workspaces, ws.id)
	s.mu.Unlock()
	s.tombstones.add(&tombstone{id: ws.id, keys: ws.keys})
}

// mustJSON marshals a value that cannot fail to marshal.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
