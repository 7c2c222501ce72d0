// Package gcphase holds the garbage collector at Go's default GC percent
// while a large heap is being built, in a process whose policy otherwise
// lets the heap grow further between collections (internal/gcpolicy's
// server policy, DL-0359).
//
// A high GC percent pays off in a steady state, where a little garbage is
// made against a live heap that stays put: collections are rare. While a
// world is compiled the live heap is what grows, and the heap may reach
// (1 + percent/100) times what was live at the last collection before the
// next one starts: at 400, a process opening a 1M-object world peaked at
// twice the memory it needed at the default. A build therefore runs at the
// default, and the steady percent comes back when the last build ends.
//
// Nothing happens unless a policy has said its steady percent: the plain
// command line and GOGC from the environment are left alone.
package gcphase

import (
	"runtime/debug"
	"sync"
)

// defaultPercent is Go's own GC percent, the one a build runs at.
const defaultPercent = 100

var (
	mu       sync.Mutex
	steady   int // the policy's GC percent; 0: no policy has set one
	building int // builds running now
)

// SetSteady records that the process's policy set the GC percent to
// percent, so that builds may lower it and restore it after. It is called
// once, at start, by the code that applied the policy.
func SetSteady(percent int) {
	mu.Lock()
	defer mu.Unlock()
	steady = percent
}

// Building marks the start of a large build and returns the function that
// marks its end (safe to call more than once). Builds may overlap: the
// percent is lowered by the first and restored by the last.
func Building() (done func()) {
	mu.Lock()
	building++
	if building == 1 && steady > defaultPercent {
		debug.SetGCPercent(defaultPercent)
	}
	mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			building--
			if building == 0 && steady > defaultPercent {
				debug.SetGCPercent(steady)
			}
			mu.Unlock()
		})
	}
}
