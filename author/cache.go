// The world cache: compiled base worlds keyed by (commit, scope), so that a
// second workspace over the same commit opens without a compile. A World
// never changes, so one cached value can be shared by every workspace.

package author

import (
	"container/list"
	"context"
	"sync"

	"github.com/deloreis/deloreis/base/gcphase"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// cacheKey names one compiled base world.
type cacheKey struct {
	commit lorestore.Hash
	scope  string
}

// worldCache is a small LRU of compiled worlds. Concurrent misses on one
// key compile once: the second caller waits for the first.
type worldCache struct {
	mu      sync.Mutex
	max     int
	order   *list.List // of *cacheEntry, most recent first
	entries map[cacheKey]*cacheEntry
	// compiles counts worlds compiled from scratch, derives those derived
	// from an earlier commit's world (follow.go), for tests and benchmarks.
	compiles int
	derives  int
	settles  int                // of derives: a materialized layer settled (follow.go)
	dialects []*objects.Dialect // the project's, given to every world

	// World files (worldfile*.go): loads counts worlds built from a
	// verified file, rejects the files refused (lastReject why), written
	// those written. noFiles turns them off (benchmarks comparing).
	noFiles    bool
	store      *lorestore.Store // the store of the last get, for put's files
	loads      int
	restored   int // of loads: restored from a compiled section
	inPlace    int // of loads: whose entries are read in place (DL-0395)
	rebased    int // of compiles: moved onto their file once lowered (DL-0532)
	rejects    int
	lastReject error
	written    int
	writing    map[string]bool     // scope → a writer is running
	pending    map[string]writeJob // scope → the newest world waiting for it

	heapOnce sync.Once // the heap advised for huge pages (prepareHeap)
}

type cacheEntry struct {
	key   cacheKey
	elem  *list.Element
	ready chan struct{} // closed when w or err is set
	w     *world.World
	err   error
}

func newWorldCache(max int) *worldCache {
	return &worldCache{max: max, order: list.New(), entries: map[cacheKey]*cacheEntry{}}
}

// get returns the world of a scope at a commit, compiling it on a miss.
func (c *worldCache) get(s *lorestore.Store, commit lorestore.Hash, scope string) (*world.World, error) {
	return c.getReporting(context.Background(), s, commit, scope)
}

// getReporting is get telling ctx's progress listener when the world is
// compiled from its objects (no cached world, no world file: the first
// compile of a scope, the one that takes long).
func (c *worldCache) getReporting(ctx context.Context, s *lorestore.Store, commit lorestore.Hash, scope string) (*world.World, error) {
	k := cacheKey{commit, scope}
	c.mu.Lock()
	c.store = s
	if e, ok := c.entries[k]; ok {
		c.order.MoveToFront(e.elem)
		c.mu.Unlock()
		<-e.ready
		return e.w, e.err
	}
	e := &cacheEntry{key: k, ready: make(chan struct{})}
	e.elem = c.order.PushFront(e)
	c.entries[k] = e
	c.evict()
	c.mu.Unlock()

	var how built
	done := gcphase.Building() // a build grows the live heap: collect at the default pace
	e.w, how, e.err = c.build(ctx, s, commit, scope)
	done()
	close(e.ready)
	if e.err == nil && how != builtLoaded && how != builtCompiledFiled {
		c.scheduleWrite(s, commit, scope, e.w.ObjectsByID(), builtWorld(e.w), nil)
	}
	c.mu.Lock()
	switch how {
	case builtLoaded:
		c.loads++
	case builtLoadedDerived:
		c.loads++
		c.derives++
	default:
		c.countLocked(how == builtDerived)
	}
	if e.err != nil && c.entries[k] == e {
		c.order.Remove(e.elem)
		delete(c.entries, k)
	}
	c.mu.Unlock()
	return e.w, e.err
}

// evict drops the least recently used worlds past the limit. Called with
// c.mu held.
func (c *worldCache) evict() {
	for c.order.Len() > c.max {
		e := c.order.Remove(c.order.Back()).(*cacheEntry)
		delete(c.entries, e.key)
	}
}

// compileCount reports how many worlds the cache has compiled from
// scratch (a derivation that had to compile counts here too).
func (c *worldCache) compileCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.compiles
}

// count notes a world built outside get (a merge's): derived
// incrementally or compiled.
func (c *worldCache) count(derived bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.countLocked(derived)
}

func (c *worldCache) countLocked(derived bool) {
	if derived {
		c.derives++
	} else {
		c.compiles++
	}
}

// fileCounts reports the world files loaded, refused and written.
func (c *worldCache) fileCounts() (loads, rejects, written int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loads, c.rejects, c.written
}

// settleCount reports how many of the derivations settled a materialized
// layer (follow.go).
func (c *worldCache) settleCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.settles
}

// deriveCount reports how many worlds the cache has derived incrementally
// from an earlier commit's.
func (c *worldCache) deriveCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.derives
}

// put files a world the caller built for a commit (a standing op stages
// its records over the base world it committed on, so the next read of
// that commit needs no compile). A world already cached, or being
// compiled, for the key is left as it is: both are the same world. It
// reports whether it filed w.
func (c *worldCache) put(commit lorestore.Hash, scope string, w *world.World) bool {
	k := cacheKey{commit, scope}
	c.mu.Lock()
	if e, ok := c.entries[k]; ok {
		c.order.MoveToFront(e.elem)
		c.mu.Unlock()
		return false
	}
	e := &cacheEntry{key: k, ready: make(chan struct{}), w: w}
	close(e.ready)
	e.elem = c.order.PushFront(e)
	c.entries[k] = e
	c.evict()
	s := c.store
	c.mu.Unlock()
	if s != nil {
		c.scheduleWrite(s, commit, scope, w.ObjectsByID(), builtWorld(w), nil)
	}
	return true
}

// setDialects gives later compiles the project's dialects as they are
// now. When they differ from the ones the cache compiled with, those
// worlds are dropped: every compile reads the dialects (a world file names
// the ones it was compiled with); the same dialects keep every world.
func (c *worldCache) setDialects(ds []*objects.Dialect) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sameDialects(c.dialects, ds) {
		return
	}
	c.dialects = ds
	c.entries = map[cacheKey]*cacheEntry{}
	c.order.Init()
}
