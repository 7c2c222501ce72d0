package datalog

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestDispatchRunsEveryPart hands parts to helpers from many goroutines at
// once, more than there are helper slots, in bursts with pauses shorter and
// longer than helperWait, so that parts go to waiting helpers, to helpers
// about to give up their slot, and to new goroutines: every part runs once,
// and once the dispatching stops the helpers exit. It fails when a handed
// part is lost (the count falls short, or a dispatcher waits forever) or
// run twice, or when a helper never leaves.
func TestDispatchRunsEveryPart(t *testing.T) {
	// Helpers of earlier tests' evaluations leave within helperWait; the
	// count to come back to is taken without them.
	for deadline := time.Now().Add(5 * time.Second); !helpersGone(); {
		if time.Now().After(deadline) {
			t.Fatal("helpers of earlier tests did not leave")
		}
		time.Sleep(time.Millisecond)
	}
	before := runtime.NumGoroutine()
	const callers, bursts, parts = 12, 30, 5
	var ran atomic.Int64
	var wg sync.WaitGroup
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range bursts {
				var done sync.WaitGroup
				done.Add(parts)
				for range parts {
					dispatch(func() { ran.Add(1); done.Done() })
				}
				done.Wait()
				if (b+c)%7 == 0 {
					time.Sleep(2 * helperWait) // the helpers give up their slots
				}
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(20 * time.Second):
		t.Fatalf("dispatchers still waiting: %d of %d parts ran", ran.Load(), callers*bursts*parts)
	}
	if got, want := ran.Load(), int64(callers*bursts*parts); got != want {
		t.Fatalf("%d parts ran, want %d", got, want)
	}
	// The helpers exit: every slot is given up and the goroutines are
	// gone. Both are waited for together: a goroutine of an earlier test
	// still on its way out (one that sent its result and is returning)
	// is in the count taken before, so the count alone can come back
	// while a helper still waits.
	for deadline := time.Now().Add(5 * time.Second); !helpersGone() || runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			for i := range helpers {
				if s := helpers[i].state.Load(); s != helperGone {
					t.Fatalf("helper slot %d left in state %d", i, s)
				}
			}
			t.Fatalf("%d goroutines left running (%d before)", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestParDoPanicWithHelpers: a panic in a part run by a helper (the
// caller's own parts wait until a helper has taken one) reaches the caller
// of parDo, and the next call still runs every part (the helper that
// recovered it waits for more).
func TestParDoPanicWithHelpers(t *testing.T) {
	ws := []*evaluator{{}, {}, {}}
	for round := range 20 {
		func() {
			defer func() {
				if r := recover(); r != "stop" {
					t.Fatalf("round %d: recovered %v, want the worker's panic", round, r)
				}
			}()
			var helped atomic.Bool
			parDo(64, ws, func(k int, _ *evaluator, i int) {
				if k > 0 {
					helped.Store(true)
					panic("stop")
				}
				for start := time.Now(); !helped.Load() && time.Since(start) < 10*time.Second; {
					time.Sleep(50 * time.Microsecond) // parked: a helper gets a core even at GOMAXPROCS=1
				}
			})
			t.Fatalf("round %d: parDo returned without the panic", round)
		}()
		var n atomic.Int64
		parDo(64, ws, func(int, *evaluator, int) { n.Add(1) })
		if n.Load() != 64 {
			t.Fatalf("round %d: %d parts of 64 ran after a panic", round, n.Load())
		}
	}
}

// helpersGone reports whether no goroutine holds a helper slot.
func helpersGone() bool {
	for i := range helpers {
		if helpers[i].state.Load() != helperGone {
			return false
		}
	}
	return true
}
