//go:build race

package testenv

// raceEnabled: this test binary runs under the race detector.
const raceEnabled = true
