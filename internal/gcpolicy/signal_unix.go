//go:build unix

package gcpolicy

import (
	"os"
	"os/signal"
	"syscall"
)

// onSignal calls f on each SIGUSR1 until the returned stop is called.
func onSignal(f func()) (stop func()) {
	ch := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(ch, syscall.SIGUSR1)
	go func() {
		defer close(done)
		for range ch {
			f()
		}
	}()
	return func() {
		signal.Stop(ch)
		close(ch)
		<-done
	}
}
