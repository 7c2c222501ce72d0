// Following commits: on a miss, the world of a commit is derived from the
// cached world of one of its first-parent ancestors and the scope's diff
// between the two (world.Advance), not compiled from scratch (DL-0281).
// A materialize, a merge, or commits fetched by a sync then cost what they
// changed, not what the scope holds.

package author

import (
	"context"
	"os"
	"path/filepath"

	"github.com/deloreis/deloreis/base/hugemem"
	"github.com/deloreis/deloreis/base/phases"
	"github.com/deloreis/deloreis/base/progress"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// maxFollow bounds the first parents walked back to a cached world: past
// it the scope's diff is no longer small enough to be worth the walk (a
// fresh compile reads everything once).
const maxFollow = 32

// built says how a world was built.
type built int

const (
	builtCompiled      built = iota // from the store's objects (an Advance that had to compile, a removal say, too)
	builtDerived                    // incrementally, from a cached ancestor's world
	builtLoaded                     // from a verified world file (worldfile.go)
	builtLoadedDerived              // from an ancestor's verified world file, then derived
	builtCompiledFiled              // compiled from the store's objects, its world file written beside
)

// build makes the world of a scope at a commit: derived from a cached
// ancestor's when there is one within maxFollow first parents, else from
// its world file when one verifies, else derived from the world file of
// one of those first parents, else compiled.
func (c *worldCache) build(ctx context.Context, s *lorestore.Store, commit lorestore.Hash, scope string) (*world.World, built, error) {
	if from, fw, ok := c.cachedAncestor(s, commit, scope); ok {
		w, derived, err := advanceTo(s, from, fw, commit, scope, nil)
		if derived {
			return w, builtDerived, err
		}
		return w, builtCompiled, err
	}
	c.prepareHeap(s)
	if w, ok := c.loadFile(s, commit, scope); ok {
		return w, builtLoaded, nil
	}
	if from, fw, ok := c.fileAncestor(s, commit, scope); ok {
		w, derived, err := advanceTo(s, from, fw, commit, scope, nil)
		if derived {
			return w, builtLoadedDerived, err
		}
		return w, builtCompiled, err
	}
	progress.Report(ctx, 0, 0, "compiling the world of "+scope)
	endCompile := phases.Start(PhaseFirstCompile)
	beside, compiled := c.writeBeside(s, commit, scope)
	w, err := compileAtWith(s, commit, scope, c.dialects, beside)
	endCompile()
	compiled(w, err)
	return w, builtCompiledFiled, err
}

// PhaseFirstCompile is the phase (DL-0503) of a world compiled from the
// store's objects, from the first read to the checks' end; the world
// file is written beside it and after it.
const PhaseFirstCompile = "compile: read, index, lower, evaluate, check"

// prepareHeap advises the heap for huge pages before the process's first
// build that loads or compiles a world rather than deriving it (DL-0388):
// as much heap as twice the store's packed objects, which a world of them
// takes about, when that is at least minAdvisedHeap. On this machine a
// compiled open of the 10M world then takes a fifth less time and CPU:
// every random read of a large heap through small pages misses the TLB.
func (c *worldCache) prepareHeap(s *lorestore.Store) {
	c.heapOnce.Do(func() {
		if n := 2 * packedBytes(s.Dir()); n >= minAdvisedHeap {
			hugemem.AdviseHeap(int(min(n, maxAdvisedHeap)))
		}
	})
}

// The least and the most heap prepareHeap advises.
const (
	minAdvisedHeap = 256 << 20
	maxAdvisedHeap = 16 << 30
)

// packedBytes is the size of the store's packs.
func packedBytes(gitDir string) int64 {
	ms, _ := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "*.pack"))
	var n int64
	for _, m := range ms {
		if st, err := os.Stat(m); err == nil {
			n += st.Size()
		}
	}
	return n
}

// cachedAncestor walks the first parents of commit back to one whose world
// of scope is cached and ready; failing that, it asks whether one of the
// most recently used cached worlds of scope is an ancestor by any parent
// (a fast-forward to a head that merged ours as a second parent, as a
// sync brings). A store it cannot read is no ancestor: the compile
// reports what is wrong with it.
func (c *worldCache) cachedAncestor(s *lorestore.Store, commit lorestore.Hash, scope string) (lorestore.Hash, *world.World, bool) {
	h := commit
	for range maxFollow {
		p, ok, err := s.FirstParent(h)
		if err != nil || !ok {
			break
		}
		if w, ok := c.peek(p, scope); ok {
			return p, w, true
		}
		h = p
	}
	for _, a := range c.recent(scope, maxAncestorChecks) {
		if ok, err := s.IsAncestor(a, commit); err == nil && ok && a != commit {
			if w, ok := c.peek(a, scope); ok {
				return a, w, true
			}
		}
	}
	return lorestore.ZeroHash, nil, false
}

// maxAncestorChecks bounds the cached worlds asked about by ancestry: each
// question may walk the history back to its root.
const maxAncestorChecks = 2

// recent lists the commits of up to n cached, ready worlds of scope, the
// most recently used first.
func (c *worldCache) recent(scope string, n int) []lorestore.Hash {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []lorestore.Hash
	for el := c.order.Front(); el != nil && len(out) < n; el = el.Next() {
		e := el.Value.(*cacheEntry)
		if e.key.scope != scope {
			continue
		}
		select {
		case <-e.ready:
			if e.err == nil {
				out = append(out, e.key.commit)
			}
		default:
		}
	}
	return out
}

// advanceTo derives the world of scope at commit from fw, its world at
// from, and the scope's diff between the two commits; objects the world
// src (if any) holds committed are taken from it, not read again.
func advanceTo(s *lorestore.Store, from lorestore.Hash, fw *world.World, commit lorestore.Hash, scope string, src *world.World) (*world.World, bool, error) {
	fsn, err := s.SnapshotAt(from)
	if err != nil {
		return nil, false, err
	}
	sn, err := s.SnapshotAt(commit)
	if err != nil {
		return nil, false, err
	}
	var have func(objects.ID) (objects.Object, bool)
	if src != nil {
		have = func(id objects.ID) (objects.Object, bool) {
			e, ok := src.Lookup(id)
			return e.Object, ok && !e.Staged
		}
	}
	d, err := sn.ScopeDiffWith(fsn, scope, have)
	if err != nil {
		return nil, false, err
	}
	add := make([]world.Entry, len(d.Added))
	for i, e := range d.Added {
		add[i] = world.Entry{ID: e.ID, Object: e.Object}
	}
	return fw.Advance(add, d.Removed)
}

// mergedWorld is the world of one scope of a merge commit: ours (the
// target's world) advanced by what the merge brought in, its diff against
// the target, the objects taken from theirs where it holds them (they are
// what the merge brought); Advance compiles the merged objects when it
// cannot take them incrementally.
func (s *Service) mergedWorld(r lorestore.MergeResult, scope string, ours, theirs *world.World) (*world.World, error) {
	w, incremental, err := advanceTo(s.store, r.Target, ours, r.Commit, scope, theirs)
	if err == nil {
		s.cache.count(incremental)
	}
	return w, err
}

// settleMaterialized files, for a commit a workspace just made of exactly
// its staged layer over its base, the workspace's world settled
// (world.Settle): that layer is already lowered and evaluated there, so the
// new head's world costs the staged tail, not a diff read and lowered
// again. Only the names of the commit's scope diff are read (the objects
// are the staged ones). It reports whether it filed one; when not (a
// decision stamped the layer, the branch moved, a rule was left out), the
// cache follows the commit as any other.
func (s *Service) settleMaterialized(ws *Workspace, commit lorestore.Hash) bool {
	if ws.fork != "" || len(ws.supposed) > 0 || ws.base.IsZero() {
		return false
	}
	if p, ok, err := s.store.FirstParent(commit); err != nil || !ok || p != ws.base {
		return false
	}
	from, err := s.store.SnapshotAt(ws.base)
	if err != nil {
		return false
	}
	sn, err := s.store.SnapshotAt(commit)
	if err != nil {
		return false
	}
	missing := false
	d, err := sn.ScopeDiffWith(from, ws.scope, func(id objects.ID) (objects.Object, bool) {
		if !ws.stagedSet[id] {
			missing = true // not staged here: stop reading, the layer is not the commit
			return nil, false
		}
		e, ok := ws.world.Lookup(id)
		return e.Object, ok
	})
	if err != nil || missing || len(d.Removed) > 0 || len(d.Added) != len(ws.staged) {
		return false
	}
	w, ok := ws.world.Settle()
	if !ok {
		return false
	}
	if !s.cache.put(commit, ws.scope, w) {
		return false
	}
	s.cache.mu.Lock()
	s.cache.derives++
	s.cache.settles++
	s.cache.mu.Unlock()
	return true
}
