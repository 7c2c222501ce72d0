//go:build race

package world

// Under the race detector the random-world property tests run a third of
// their worlds (about ten times slower each): make test runs them whole
// without it, and the race pass is there for the goroutines, not for
// more worlds (one commit chain for Advance). A -stage.seeds,
// -oracle.seeds or -advance.seeds flag still wins.
func init() {
	*stageSeeds = 20
	*oracleSeeds = 14
	*advanceSeeds = 1
	advanceSteps = 16
}
