// Package spell measures how far apart two spellings are, for the
// "did you mean" suggestions of the checkers (DKE names, unknown lore
// entities). It is not a fuzzy search index; callers have a few thousand
// candidates at most.
package spell

// Distance is the Levenshtein distance between a and b, in characters
// (runes): the fewest single-character insertions, deletions and
// substitutions that turn one into the other.
func Distance(a, b string) int {
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
