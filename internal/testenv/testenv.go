// Package testenv holds what the tests of several packages share about
// their surroundings: the installed tools a test needs (NeedTool), the
// state of a store's branches a refusal must leave alone (Branches), the
// committed contract schemas a response must keep to (Schemas), a
// stand-in for ssh (FakeSSH), how far a bound on wall time stretches
// under the race detector (Bound), and whether a test left goroutines
// running (QuietGoroutines). Only tests import it.
package testenv

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// CI reports whether the tests run under continuous integration: the
// variable CI holds a true value (CI=true, as .ci/run and CI systems set
// it). There a missing tool is a failure, not a skip (DL-0430).
func CI() bool {
	v, err := strconv.ParseBool(os.Getenv("CI"))
	return err == nil && v
}

// NeedTool returns the path of the program name as exec.LookPath finds it.
// When it is not installed, the test fails under CI and is skipped
// elsewhere, naming the program either way. A test calling it belongs in
// the README's list of tests that need an installed tool.
func NeedTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if CI() {
		t.Fatalf("%s is not installed and CI is set: this test needs it (%v)", name, err)
		return ""
	}
	t.Skipf("%s is not installed (%v); under CI=true this test fails instead", name, err)
	return ""
}

// RaceSlowdown is how many times longer a bound on wall time is under the
// race detector, which slows code 2–20 times (and `make test` runs its race
// step beside other work).
const RaceSlowdown = 5

// Bound is a wall-time bound d for this test binary: d itself, or d times
// RaceSlowdown under the race detector. Such a bound catches runaway cost
// (an unbounded request takes minutes or never ends), not a slow machine:
// it is no performance figure, and the unit run holds the tight one.
func Bound(d time.Duration) time.Duration {
	if raceEnabled {
		return d * RaceSlowdown
	}
	return d
}
