// The rule models kept between runs: each store's at its latest commit,
// so that a run over a commit the last run made starts from that run's
// model and pays for its own writes, not for every claim the rules read
// (issue 34; eval/carry.go advances the model).

package service

import (
	"cmp"
	"slices"

	"github.com/deloreis/deloreis/dke/eval"
	"github.com/deloreis/deloreis/lorestore"
)

// Bounds of the rule cache: at most maxRuleModels models (one per store),
// holding at most maxRuleCells cells between them; the least recently
// used goes first. A model of 100,000 cells holds 78 MB of heap
// (measured: one rule over Item.*.qty), so the cache stays near 300 MB
// however many stores are run, and a model past the cells alone is not
// kept at all.
const (
	maxRuleModels = 4
	maxRuleCells  = 400_000
)

// ruleCache holds the carried rule models. The service's mutex guards it:
// every run holds s.mu from its read to its commit.
type ruleCache struct {
	entries []ruleEntry // least recently used first
	// maxModels and maxCells override the bounds (tests); 0 is the
	// default.
	maxModels, maxCells int
}

// ruleEntry is a store's rule model at one commit.
type ruleEntry struct {
	store string
	at    lorestore.Hash
	rules *eval.Rules
}

// get returns the store's model when it is at commit at.
func (c *ruleCache) get(store string, at lorestore.Hash) *eval.Rules {
	for i, e := range c.entries {
		if e.store == store {
			if e.at != at {
				return nil
			}
			c.entries = append(slices.Delete(c.entries, i, i+1), e)
			return e.rules
		}
	}
	return nil
}

// put makes r the store's model, at commit at, and evicts past the
// bounds; a nil r drops the store's model.
func (c *ruleCache) put(store string, at lorestore.Hash, r *eval.Rules) {
	c.drop(store)
	models, cells := cmp.Or(c.maxModels, maxRuleModels), cmp.Or(c.maxCells, maxRuleCells)
	if r == nil || r.Cells() > cells {
		return
	}
	c.entries = append(c.entries, ruleEntry{store: store, at: at, rules: r})
	for len(c.entries) > models || c.cells() > cells {
		c.entries = slices.Delete(c.entries, 0, 1)
	}
}

// drop forgets the store's model.
func (c *ruleCache) drop(store string) {
	for i, e := range c.entries {
		if e.store == store {
			c.entries = slices.Delete(c.entries, i, i+1)
			return
		}
	}
}

func (c *ruleCache) cells() int {
	n := 0
	for _, e := range c.entries {
		n += e.rules.Cells()
	}
	return n
}
