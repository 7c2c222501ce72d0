package lorestore

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

// benchSizes is a benchmark's list of sizes, or only the first under
// -short.
func benchSizes(sizes ...int) []int {
	if testing.Short() {
		return sizes[:1]
	}
	return sizes
}
