// Staging for the text commands: a .dli document's declarations staged
// over a scope's head (`deloreis import`, `deloreis check` in a project)
// or as a world of their own (`check --standalone`). The base is compiled
// once, through the same cache the workspaces use, and a small document is
// staged onto it incrementally with World.Stage.

package author

import (
	"context"
	"errors"
	"fmt"

	"github.com/deloreis/deloreis/base/progress"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// ErrBlocked refuses a materialize while an error finding stands.
var ErrBlocked = errors.New("error findings block materialization; nothing committed")

// Stager stages documents over the heads of one store's branch. A nil
// store stages every document as a world of its own.
type Stager struct {
	store  *lorestore.Store
	branch string
	head   lorestore.Hash // read once: every document of one run sees the same head
	headOK bool
	cache  *worldCache
	// dialects are the project file's [[dialect]] tables, which the naming
	// oracle reads as it does in a workspace (DL-0158).
	dialects []*objects.Dialect
}

// WithDialects makes the stager's worlds read a project's dialects, as the
// workspaces of a Service configured with them do. Call it before Stage.
func (st *Stager) WithDialects(ds []*objects.Dialect) *Stager {
	st.dialects, st.cache.dialects = ds, ds
	return st
}

// NewStager reads the branch head now; s may be nil (standalone).
func NewStager(s *lorestore.Store, branch string) (*Stager, error) {
	st := &Stager{store: s, branch: branch, cache: newWorldCache(4)}
	if s == nil {
		return st, nil
	}
	h, err := s.Head(branch)
	switch {
	case errors.Is(err, lorestore.ErrBranchNotFound):
	case err != nil:
		return nil, err
	default:
		st.head, st.headOK = h, true
	}
	return st, nil
}

// Staging is one document staged over its base.
type Staging struct {
	Scope   string
	Branch  string
	Base    lorestore.Hash // zero: standalone, or the branch has no commit
	After   *world.World   // the base with the document staged
	Objects []objects.Object

	before   *world.World
	stager   *Stager
	compile  int  // compilations this staging cost, for tests and benchmarks
	released bool // the worlds were let go; blocked holds their verdict
	blocked  bool
}

// bigStage is the number of declarations past which a document is
// compiled with its base in one pass rather than staged onto it.
const bigStage = 4096

// Stage stages a document's objects over the scope at the head.
func (st *Stager) Stage(scope string, objs []objects.Object) (*Staging, error) {
	return st.StageContext(context.Background(), scope, objs)
}

// StageContext is Stage whose evaluation of the document stops when ctx
// is done, failing with an error that wraps ctx's (DL-0427).
func (st *Stager) StageContext(ctx context.Context, scope string, objs []objects.Object) (*Staging, error) {
	sg := &Staging{Scope: scope, Branch: st.branch, Objects: objs, stager: st}
	if st.store == nil || !st.headOK {
		// A world of its own; a file with no scope line has scope "".
		progress.Report(ctx, 0, 0, fmt.Sprintf("compiling %d declarations", len(objs)))
		w, err := world.Compile(world.Input{Scope: scope, Staged: objs, Dialects: st.dialects, Context: ctx})
		sg.After, sg.compile = w, 1
		return sg, err
	}
	if !objects.ValidID(scope) {
		return nil, fmt.Errorf("author: scope %q is not an id", scope)
	}
	sg.Base = st.head
	if len(objs) > bigStage {
		sn, err := st.store.SnapshotAt(st.head)
		if err != nil {
			return nil, err
		}
		base, err := LoadScope(sn, scope)
		if err != nil {
			return nil, err
		}
		progress.Report(ctx, 0, 0, fmt.Sprintf("compiling %d declarations into %s", len(objs), scope))
		sg.After, err = world.Compile(world.Input{Scope: scope, Base: base, Staged: objs, Dialects: st.dialects, Owned: true, Context: ctx})
		sg.compile = 1
		return sg, err
	}
	before, err := st.cache.getReporting(ctx, st.store, st.head, scope)
	if err != nil {
		return nil, err
	}
	sg.before, sg.compile = before, 1
	sg.After, err = before.StageContext(ctx, objs, nil)
	return sg, err
}

// stageDoc stages an import's document: a big one, parsed in parts, is
// compiled with its base from the entries the parse made (their ids
// hashed beside the parse, the objects in no further list); any other as
// StageContext stages its objects.
func (st *Stager) stageDoc(ctx context.Context, d *ImportDoc) (*Staging, error) {
	if d.whole != nil || d.Len() <= bigStage || st.store == nil || !st.headOK || !objects.ValidID(d.Scope) {
		return st.StageContext(ctx, d.Scope, d.Objects())
	}
	sg := &Staging{Scope: d.Scope, Branch: st.branch, Objects: d.Objects(), stager: st, Base: st.head}
	sn, err := st.store.SnapshotAt(st.head)
	if err != nil {
		return nil, err
	}
	base, err := LoadScope(sn, d.Scope)
	if err != nil {
		return nil, err
	}
	entries, err := d.takeStaged(base)
	if err != nil {
		return nil, err
	}
	base = nil
	progress.Report(ctx, 0, 0, fmt.Sprintf("compiling %d declarations into %s", d.Len(), d.Scope))
	sg.After, err = world.Compile(world.Input{Scope: d.Scope, Base: entries, Dialects: st.dialects, Owned: true, Context: ctx})
	sg.compile = 1
	return sg, err
}

// Before is the base world (the empty world when standalone), compiled
// on first use when the document was compiled with it in one pass.
func (sg *Staging) Before() (*world.World, error) {
	if sg.before != nil {
		return sg.before, nil
	}
	if sg.Base.IsZero() {
		w, err := world.Compile(world.Input{Scope: sg.Scope, Dialects: sg.stager.dialects})
		sg.before = w
		return w, err
	}
	w, err := sg.stager.cache.get(sg.stager.store, sg.Base, sg.Scope)
	sg.compile++
	sg.before = w
	return w, err
}

// Diff is the derived-consequence diff the document makes.
func (sg *Staging) Diff() (world.ConsequenceDiff, error) {
	b, err := sg.Before()
	if err != nil {
		return world.ConsequenceDiff{}, err
	}
	return b.Diff(sg.After), nil
}

// Materialize commits the document's objects as one commit on the branch,
// on the base it was checked over: refused with ErrBlocked while an error
// finding stands, and with a *lorestore.StaleError when the branch moved.
func (sg *Staging) Materialize(m lorestore.Message) (lorestore.CommitResult, error) {
	return sg.materialize(m, nil)
}

// materialize is Materialize reporting to pr (nil: to no one) from step 2:
// a step per object written.
func (sg *Staging) materialize(m lorestore.Message, pr *steps) (lorestore.CommitResult, error) {
	if sg.stager.store == nil {
		return lorestore.CommitResult{}, errors.New("author: a standalone document has no store to commit to")
	}
	if sg.isBlocked() {
		return lorestore.CommitResult{}, ErrBlocked
	}
	opts := lorestore.CommitOptions{Branch: sg.Branch, Parent: sg.Base, Refuse: true}
	if len(sg.Objects) > bigStage && !sg.Base.IsZero() {
		return sg.materializeBulk(m, opts, pr)
	}
	b := sg.stager.store.NewBatch() // streams into the commit's pack
	defer b.Close()
	err := sg.putEach(pr, func(objs []objects.Object) error {
		for _, o := range objs {
			if _, err := b.Put(sg.Scope, o); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return lorestore.CommitResult{}, err
	}
	return sg.stager.store.Commit(b, m, opts)
}

// materializeBulk writes a big document's commit as a bulk commit does:
// each object streamed to disk as it is put, its path to an external
// sort, so that the commit's writer holds no list of the objects beside
// them. The trees are those a batch writes (DL-0510).
func (sg *Staging) materializeBulk(m lorestore.Message, opts lorestore.CommitOptions, pr *steps) (lorestore.CommitResult, error) {
	b, err := sg.stager.store.NewBulk(sg.Scope)
	if err != nil {
		return lorestore.CommitResult{}, err
	}
	defer b.Close()
	if err := sg.putEach(pr, b.PutAll); err != nil {
		return lorestore.CommitResult{}, err
	}
	return b.Commit(m, opts)
}

// putEach puts every object with put, in order, a run of them at a
// time, reporting a step per object from step 2.
func (sg *Staging) putEach(pr *steps, put func([]objects.Object) error) error {
	n, each := len(sg.Objects), every(len(sg.Objects))
	const writing = "writing objects"
	for i := 0; i < n; i += each {
		pr.to(float64(2+i), writing)
		if err := put(sg.Objects[i:min(n, i+each)]); err != nil {
			return err
		}
	}
	pr.to(float64(2+n), writing) // the last step: the commit's flush is drawn as its end
	return nil
}

// Compilations reports how many world compilations the staging cost.
func (sg *Staging) Compilations() int { return sg.compile }

// Release lets the compiled worlds go (keeping whether they block), so that
// committing a big document does not hold them in memory beside the pack it
// writes. After, Diff and Before must not be used.
func (sg *Staging) Release() {
	if sg.released {
		return
	}
	sg.blocked = world.Blocking(sg.After.Findings())
	sg.released, sg.After, sg.before = true, nil, nil
}

func (sg *Staging) isBlocked() bool {
	if sg.released {
		return sg.blocked
	}
	return world.Blocking(sg.After.Findings())
}
