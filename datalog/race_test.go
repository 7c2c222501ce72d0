//go:build race

package datalog

// The race pass is there for the goroutines (DL-0527); the sequential
// oracles run whole in make test's unit step, without the race detector,
// and here draw a fraction of their cases (each runs about ten times slower):
// the shaped-program and random-program property tests a third of their
// programs, TestEvalFromMatchesFresh a fifth (asking only that every
// incremental path is taken), TestSnapshotLitsCorrupt a seventh of its
// corrupted places, TestSnapshotLarge a chain of 30,000 edges, not
// 150,000. A -shape.seeds flag still wins.
func init() {
	*shapeSeeds = 100
	propertyCases = 100
	incPrograms = 60
	litCorruptSamples = 31
	snapshotLargeEdges = 30_000
}
