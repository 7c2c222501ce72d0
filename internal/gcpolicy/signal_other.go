//go:build !unix

package gcpolicy

// onSignal does nothing where there is no SIGUSR1.
func onSignal(func()) (stop func()) { return func() {} }
