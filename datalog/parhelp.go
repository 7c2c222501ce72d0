// This file keeps parDo's helper goroutines between calls (DL-0531). A
// large evaluation calls parDo thousands of times, a few hundred
// microseconds apart; a goroutine started for each call waited on average
// 115–140 µs before it ran (the TC grid at GOMAXPROCS=2: 0.40–0.49 s of a
// 5.5–6.9 s evaluation), while its core stood idle. A helper that has
// done its part stays, waiting for the next part (spinning, but yielding
// its core to any other runnable goroutine) for up to helperWait, then
// exits: no helper outlives the last parallel step by more than that.

package datalog

import (
	"runtime"
	"sync/atomic"
	"time"
)

// helperWait is how long a helper waits for its next part.
const helperWait = time.Millisecond

// A helper's states.
const (
	helperGone    int32 = iota // no goroutine holds the slot
	helperWaiting              // its goroutine waits for a part
	helperHanded               // a part was handed to it (job set, or about to be)
)

// helper is a slot for one waiting goroutine.
type helper struct {
	state atomic.Int32
	job   atomic.Pointer[func()]
	_     [48]byte // slots are written from different cores
}

// parSpawn is a benchmark's hook: when set, parDo works as before
// helpers: a new goroutine for every part, and the caller waits parked.
var parSpawn atomic.Bool

// helpers are the slots: more parts at once than these start goroutines
// as before.
var helpers [8]helper

// dispatch runs f on another goroutine: a waiting helper when there is
// one, else a new goroutine that waits as a helper afterwards.
func dispatch(f func()) {
	if parSpawn.Load() {
		go f()
		return
	}
	for i := range helpers {
		h := &helpers[i]
		if h.state.Load() == helperWaiting && h.state.CompareAndSwap(helperWaiting, helperHanded) {
			h.job.Store(&f)
			return
		}
	}
	go helpAfter(f)
}

// helpAfter runs f, then waits as a helper if a slot is free.
func helpAfter(f func()) {
	f()
	for i := range helpers {
		h := &helpers[i]
		if h.state.Load() == helperGone && h.state.CompareAndSwap(helperGone, helperWaiting) {
			h.wait()
			return
		}
	}
}

// wait runs the parts handed to h until none comes for helperWait.
func (h *helper) wait() {
	deadline := time.Now().Add(helperWait)
	for n := 0; ; n++ {
		switch h.state.Load() {
		case helperHanded:
			j := h.job.Swap(nil)
			for j == nil { // handed, not yet stored
				runtime.Gosched()
				j = h.job.Swap(nil)
			}
			(*j)()
			h.state.Store(helperWaiting)
			deadline = time.Now().Add(helperWait)
		case helperWaiting:
			if n%64 == 0 && time.Now().After(deadline) && h.state.CompareAndSwap(helperWaiting, helperGone) {
				return
			}
			runtime.Gosched()
		}
	}
}
