//go:build race

package odb

// The race pass is there for the goroutines (DL-0527); the inflater's
// agreement tests run on one and run whole in make test's unit step,
// without the race detector. Here TestInflateSmallAgrees inflates 100 of
// its 400 small objects, TestInflateIntoAgrees corrupts each stream 6
// times, not 30, and TestPackFilesCorrupt (whose reads are on one
// goroutine too) reads 8 changed packs, not 40.
func init() {
	inflateSmallSources, inflateCorruptions = 100, 6
	packCorruptFlips = 8
}
