// Suggestions: "did you mean …?" from the nearest candidate name.

package check

import (
	"sort"
	"strings"

	"github.com/deloreis/deloreis/internal/spell"
)

// nearest returns the candidate closest to name in edit distance, if it is
// close enough to be a plausible misspelling. cands maps each spelling to
// what to suggest for it (a keyword's spelling on another surface maps to
// this surface's word).
func nearest(name string, cands map[string]string) string {
	best, bestD := "", 1<<30
	sorted := make([]string, 0, len(cands))
	for c := range cands {
		sorted = append(sorted, c)
	}
	sort.Strings(sorted)
	for _, c := range sorted {
		if c == name {
			continue
		}
		if strings.EqualFold(c, name) {
			return cands[c]
		}
		d := spell.Distance(name, c)
		if d < bestD {
			best, bestD = cands[c], d
		}
	}
	limit := 1 + len([]rune(name))/4
	if bestD <= limit && bestD < len([]rune(name)) {
		return best
	}
	return ""
}

// didYouMean renders " (did you mean x?)" or "".
func didYouMean(name string, cands map[string]string) string {
	if n := nearest(name, cands); n != "" {
		return " (did you mean " + n + "?)"
	}
	return ""
}
