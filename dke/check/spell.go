// Suggestions: "did you mean …?" from the nearest candidate name.

package check

import (
	"sort"
	"strings"
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
		d := editDistance(name, c)
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

// editDistance is the Levenshtein distance between a and b in characters.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
