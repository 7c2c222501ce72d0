// The world cache seen from a merge: the worlds a merge check compiled are
// filed under the merge commit, so the first read after a merge does not
// compile them again.

package author

import (
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/world"
)

// peek returns a world already compiled (not one being compiled), without
// compiling.
func (c *worldCache) peek(commit lorestore.Hash, scope string) (*world.World, bool) {
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
