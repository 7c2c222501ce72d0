//go:build race

package world

// The race pass is there for the goroutines; the random-world property
// tests run whole in make test's unit step, without the race detector,
// and here run a fraction of their worlds (each about ten times slower):
// TestStageEqualsCompile 8 of 60 (its floors scale), TestIdentityOracle
// 14 of 40, TestLazyEqualsCompile 10 of 30, and Advance one commit chain.
// TestCompiledSameAtAnyGOMAXPROCS, whose compiles do run on several
// goroutines, keeps all of its worlds. A -stage.seeds, -oracle.seeds or
// -advance.seeds flag still wins.
func init() {
	*stageSeeds = 8
	*oracleSeeds = 14
	*advanceSeeds = 1
	advanceSteps = 16
	lazySeeds = 10
}
