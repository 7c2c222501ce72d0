// Worlds: the world cache for callers outside a Service (the sync
// command's conflict report), so that they derive, load world files and
// share worlds as a Service does instead of compiling each commit.

package author

import (
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/world"
)

// Worlds is a bounded cache of base worlds over one store. It is safe for
// concurrent use.
type Worlds struct {
	s *lorestore.Store
	c *worldCache
}

// NewWorlds returns a cache of at most max worlds over s.
func NewWorlds(s *lorestore.Store, max int) *Worlds {
	return &Worlds{s: s, c: newWorldCache(max)}
}

// Get returns the base world of a scope at a commit: cached, derived from
// a cached ancestor's, loaded from a verified world file, or compiled.
func (w *Worlds) Get(commit lorestore.Hash, scope string) (*world.World, error) {
	return w.c.get(w.s, commit, scope)
}

// Compiles reports how many worlds were compiled from scratch.
func (w *Worlds) Compiles() int { return w.c.compileCount() }
