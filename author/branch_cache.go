// The world cache seen from a merge: the worlds a merge check compiled are
// filed under the merge commit, so the first read after a merge does not
// compile them again.

package author

import (
	"github.com/deloreis/deloreis/world"
	"github.com/go-git/go-git/v5/plumbing"
)

// put files a compiled world under (commit, scope), replacing nothing
// already there (a World never changes, so either copy will do).
func (c *worldCache) put(commit plumbing.Hash, scope string, w *world.World) {
	k := cacheKey{commit, scope}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[k]; ok {
		return
	}
	e := &cacheEntry{key: k, ready: make(chan struct{}), w: w}
	close(e.ready)
	e.elem = c.order.PushFront(e)
	c.entries[k] = e
	c.evict()
}

// peek returns a world already compiled (not one being compiled), without
// compiling.
func (c *worldCache) peek(commit plumbing.Hash, scope string) (*world.World, bool) {
	c.mu.Lock()
	e, ok := c.entries[cacheKey{commit, scope}]
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	select {
	case <-e.ready:
		return e.w, e.err == nil
	default:
		return nil, false
	}
}
