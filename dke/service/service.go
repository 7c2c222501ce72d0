// The Service: configuration, the per-store claim stores and grants.

package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/keys"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
)

// Config configures a Service.
type Config struct {
	Store *lorestore.Store
	// Branch is the lorestore branch the DKE stores live on; default main.
	Branch string
	// Now gives the wall-clock time of module and store records (never of
	// claims, which take the store's logical clock); default time.Now.
	Now func() time.Time
	// Authority names who compiles, as info reports it; default "deloreis".
	Authority string
	// Budget bounds each compile, run and checkup (budget.go); the zero
	// value is the defaults.
	Budget Budget
}

// Service answers the DKE tools over one lorestore. Calls are serialized:
// a run's writes and a compile's commit never interleave.
type Service struct {
	cfg    Config
	mu     sync.Mutex
	stores map[string]*claimStore
	parsed parseCache
	rules  ruleCache // each store's rule model at its latest commit
	// beforeRunCommit, when set (by tests), runs before each attempt of a
	// run's final commit: another writer can move the branch there.
	beforeRunCommit func(attempt int)
	// owned: the Service opened its store (Open, Init) and Close closes it.
	owned bool
}

// New returns a Service over cfg.Store, which the caller closes.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil {
		return nil, errors.New("dke service: no lorestore")
	}
	if cfg.Branch == "" {
		cfg.Branch = lorestore.DefaultBranch
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Authority == "" {
		cfg.Authority = "deloreis"
	}
	cfg.Budget = cfg.Budget.withDefaults()
	if _, err := cfg.Store.Head(cfg.Branch); err != nil {
		return nil, fmt.Errorf("dke service: branch %s: %w", cfg.Branch, err)
	}
	return &Service{cfg: cfg, stores: map[string]*claimStore{}}, nil
}

func (s *Service) now() time.Time { return s.cfg.Now().UTC() }

// DefaultStore is the store_id a call names when it names none.
const DefaultStore = "default"

// Error codes the DKE tools answer with beyond the protocol's own.
const (
	CodeNotFound     = "not-found"
	CodeRefused      = "refused"
	CodeBadStore     = "bad-store-id"
	CodeBadName      = "bad-name"
	CodeCompileError = "compile-error"
	CodeReadOnly     = "read-only-grant"
	CodeWrongStore   = "wrong-store"
	CodeReferenced   = "module-referenced"
	CodeConfirm      = "confirm-required"
	CodeConflict     = "conflict"
)

// ErrorCodes maps each code to its class, for the op reference.
func ErrorCodes() map[string]fault.Class {
	return map[string]fault.Class{
		CodeNotFound: fault.NotFound, CodeRefused: fault.Refused, CodeBadStore: fault.Invalid,
		CodeBadName: fault.Invalid, CodeCompileError: fault.Refused, CodeReadOnly: fault.Refused,
		CodeWrongStore: fault.Refused, CodeReferenced: fault.Refused, CodeConfirm: fault.Refused,
		CodeConflict: fault.Conflict, CodeBudget: fault.Refused,
	}
}

// grantKey carries a keys.Grant in a context.
type grantKey struct{}

// WithGrant returns ctx carrying the grant of the caller's key. With one,
// a call must name the grant's store, and a read grant may call only the
// tools that change nothing.
func WithGrant(ctx context.Context, g keys.Grant) context.Context {
	return context.WithValue(ctx, grantKey{}, g)
}

// ReadOnlyTools lists the tools that change nothing, the ones a read
// grant may call.
func ReadOnlyTools() []string {
	return []string{"spec", "list", "info", "list_modules", "info_module", "stores", "checkup"}
}

// authorize refuses a call its grant does not allow, before it runs.
func authorize(ctx context.Context, tool, store string) error {
	g, ok := ctx.Value(grantKey{}).(keys.Grant)
	if !ok {
		return nil
	}
	if g.Store != store {
		return fault.Errorf(fault.Refused, CodeWrongStore, "this key addresses store %q, not store %q", g.Store, store)
	}
	if g.CanWrite() {
		return nil
	}
	for _, t := range ReadOnlyTools() {
		if t == tool {
			return nil
		}
	}
	return fault.Errorf(fault.Refused, CodeReadOnly, "a read key may not call %s; it may call only %s", tool, strings.Join(ReadOnlyTools(), ", "))
}

// storeID validates a store_id, "" being the default.
// CheckStoreID refuses what no tool would take as store_id ("" is the
// default store): the rule every tool applies, for a command line to
// check its flag before any work.
func CheckStoreID(id string) error {
	_, err := storeID(id)
	return err
}

func storeID(id string) (string, error) {
	if id == "" {
		return DefaultStore, nil
	}
	if !keys.ValidStore(id) {
		return "", fault.Errorf(fault.Invalid, CodeBadStore, "store_id %q is not a store id: letters and digits, with '-' or '_' inside, at most 128 bytes", id)
	}
	return id, nil
}

// store returns the claim store of id. The caller holds s.mu.
func (s *Service) store(id string) *claimStore {
	cs, ok := s.stores[id]
	if !ok {
		cs = &claimStore{svc: s, id: id}
		s.stores[id] = cs
	}
	return cs
}

// read returns the lorestore snapshot at the store's head, with the
// store's claim snapshot at the same commit.
func (s *Service) read(id string) (*lorestore.Snapshot, claims.Snapshot, error) {
	cs := s.store(id)
	csnap, err := cs.Snapshot()
	if err != nil {
		return nil, nil, err
	}
	sn, err := s.cfg.Store.SnapshotAt(lorestore.NewHash(csnap.Version()))
	if err != nil {
		return nil, nil, err
	}
	return sn, csnap, nil
}

// write commits a change set and a batch edit as one commit on the head
// the store last read, labelled msg; next, when not nil, is the store's
// modules after the edit.
func (s *Service) write(id string, set claims.ChangeSet, extra func(*lorestore.Batch) error, msg lorestore.Message, next *modset) error {
	cs := s.store(id)
	if _, err := cs.Snapshot(); err != nil {
		return err
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	ms, _ := cs.mem.Snapshot()
	set.Base, set.Clock = cs.head.String(), ms.Clock()
	_, err := cs.commitLocked(set, extra, msg)
	if errors.Is(err, claims.ErrConflict) {
		return fault.Errorf(fault.Conflict, CodeConflict, "the store changed while this call ran; retry it")
	}
	if err == nil && next != nil {
		cs.mods, cs.modsAt = next, cs.head
	}
	return err
}

// jsonOf marshals v, for records whose types cannot fail to encode.
func jsonOf(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
