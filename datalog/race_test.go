//go:build race

package datalog

// Under the race detector the shaped-program property test and the
// random-program ones run a third of their programs (each about ten times
// slower): make test runs them all without it, and the race pass is there
// for the goroutines. A -shape.seeds flag still wins.
// (TestEvalFromMatchesFresh keeps its 300: fewer would not reach every
// incremental path its floors ask for.)
func init() {
	*shapeSeeds = 100
	propertyCases = 100
}
