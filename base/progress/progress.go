// Package progress carries a long call's progress reports on its context:
// a use case reports how far it has come between its long steps, and
// whatever adapter serves the call (the MCP adapter's progress
// notifications) listens. Without a listener a report costs nothing.
//
// What it is not: a progress bar. The command line draws its own bars
// from the counts the lorestore reports.
package progress

import "context"

// Func receives how far a long call has come: done of total steps (total
// 0 when unknown) and a short message saying what it is doing.
type Func func(done, total float64, message string)

type key struct{}

// With returns ctx carrying f for the calls it reaches.
func With(ctx context.Context, f Func) context.Context {
	return context.WithValue(ctx, key{}, f)
}

// Report tells the listener of ctx, if any, how far the call has come. It
// never fails the call.
func Report(ctx context.Context, done, total float64, message string) {
	if f, _ := ctx.Value(key{}).(Func); f != nil {
		f(done, total, message)
	}
}
