// Suggestions: "did you mean …?" from the nearest candidate name, within a
// budget of work per check proportional to the source, so that a module
// of many misspellings among many names still checks in linear time.

package check

import (
	"iter"
	"strings"
	"unicode/utf8"

	"github.com/deloreis/deloreis/base/spell"
)

// spellBudget returns the suggestion work a check of src may do, in
// candidate comparisons: plenty for any module a person writes, linear in
// the source for any other.
func spellBudget(src string) int { return 20_000 + len(src) }

// nearest returns the candidate closest to name in edit distance, if it is
// close enough to be a plausible misspelling. cands maps each spelling to
// what to suggest for it (a keyword's spelling on another surface maps to
// this surface's word). A spelling differing only in case wins; ties go
// to the smallest spelling.
func nearest(name string, cands ...map[string]string) string {
	n := utf8.RuneCountInString(name)
	limit := 1 + n/4
	best, bestC, bestD := "", "", limit+1
	folded, foldedC := "", ""
	for c, s := range all(cands) {
		if c == name {
			continue
		}
		if strings.EqualFold(c, name) {
			if folded == "" || c < foldedC {
				folded, foldedC = s, c
			}
			continue
		}
		if diff := utf8.RuneCountInString(c) - n; diff > limit || -diff > limit {
			continue // the distance is at least the difference in length
		}
		if d := spell.Distance(name, c); d < bestD || d == bestD && c < bestC {
			best, bestC, bestD = s, c, d
		}
	}
	if folded != "" {
		return folded
	}
	if bestD <= limit && bestD < n {
		return best
	}
	return ""
}

// all yields the pairs of several maps; a spelling in more than one
// yields once per map.
func all(ms []map[string]string) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for _, m := range ms {
			for k, v := range m {
				if !yield(k, v) {
					return
				}
			}
		}
	}
}

// didYouMean renders " (did you mean x?)" or "", from the candidates
// cands returns, while the check's suggestion budget lasts.
func (c *checker) didYouMean(name string, cands func() map[string]string) string {
	return c.didYouMeanIn(name, func() []map[string]string { return []map[string]string{cands()} })
}

// didYouMeanIn is didYouMean over several candidate maps.
func (c *checker) didYouMeanIn(name string, cands func() []map[string]string) string {
	if c.spellLeft <= 0 {
		return ""
	}
	ms := cands()
	for _, m := range ms {
		c.spellLeft -= len(m)
	}
	if n := nearest(name, ms...); n != "" {
		return " (did you mean " + n + "?)"
	}
	return ""
}
