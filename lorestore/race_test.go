//go:build race

package lorestore

// The race pass is there for the goroutines (DL-0527); the corrupt-content
// tests try each bad edit by one way in at a time, one goroutine (a merge,
// a clone, an fsck), and run whole in make test's unit step, without the
// race detector. Here each edit is tried by 2 of its 5 ways, rotating
// over the edits in name order, so every way still meets several edits:
// TestCorruptContentNeverReachesABranch, TestDKECorruptContentNeverReachesABranch
// and TestProjectCorruptContentNeverReachesABranch.
func init() {
	corruptOpsEach = 2
}
