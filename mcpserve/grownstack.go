// Calls run on goroutines whose stacks have grown already.

package mcpserve

import (
	"runtime"
	"sync"
)

// callRunner runs tool calls on a few long-lived goroutines. go-sdk starts
// a goroutine for each request, with a small stack that then grows — is
// copied to a stack twice its size, again and again — as deep as decoding
// the arguments and answering go; the runner's goroutines keep the stacks
// they grew. It took about 15 µs off a 10,000-fact author.query over stdio
// (BenchmarkServerCall, DL-0440). A call that finds every goroutine busy
// runs where it is: nothing queues behind a long call.
type callRunner struct {
	start sync.Once
	jobs  chan func()
}

// calls is the process's runner, shared by every server: its goroutines
// start with the first call, so a command that serves nothing starts none.
var calls = &callRunner{jobs: make(chan func())}

// run runs f and returns when it has returned.
func (r *callRunner) run(f func()) {
	r.start.Do(func() {
		for range max(2, runtime.GOMAXPROCS(0)) {
			go func() {
				for job := range r.jobs {
					job()
				}
			}()
		}
	})
	done := make(chan struct{})
	select {
	case r.jobs <- func() { defer close(done); f() }:
		<-done
	default:
		f()
	}
}
