package cli

import "testing"

// benchN is a benchmark's size n, or a hundredth of it (at least 1,000)
// under -short: CI runs every benchmark once at its smallest size, so
// that none rots unseen (make bench-ci); make bench measures at n.
func benchN(n int) int {
	if testing.Short() {
		return max(n/100, 1_000)
	}
	return n
}
