package testenv

import (
	"runtime"
	"testing"
	"time"
)

// QuietGoroutines waits until no more goroutines run than before, and
// fails the test when some are still running after 5 seconds: what a
// test that starts background work checks it left nothing behind with.
func QuietGoroutines(t testing.TB, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left running (%d before)", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
}
