//go:build race

package world

// The race pass is there for the goroutines (DL-0527); the random-world
// property tests run whole in make test's unit step, without the race
// detector, and here run a fraction of their worlds (each about ten
// times slower): TestStageEqualsCompile 8 of 60 (its floors scale),
// TestIdentityOracle 14 of 40, TestLazyEqualsCompile 10 of 30,
// TestOrderIndependence 30 of 150, TestSupposeEqualsCompile and
// TestDerivedClosureEqualsBuilt 15 of 60, Advance one commit chain, and
// TestCompiledSameAtAnyGOMAXPROCS 5 of its 20 small worlds beside the
// large one whose entry checks run on several goroutines. A -stage.seeds,
// -oracle.seeds or -advance.seeds flag still wins.
func init() {
	*stageSeeds = 8
	*oracleSeeds = 14
	*advanceSeeds = 1
	advanceSteps = 16
	lazySeeds = 10
	orderSeeds = 30
	supposeSeeds = 15
	closureSeeds = 15
	compiledSameSeeds = 5
}
