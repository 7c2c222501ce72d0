package worker

import "context"

// Progress receives how far a long call has come: done of total steps
// (total 0 when unknown) and a short message saying what it is doing.
// The MCP adapter turns it into progress notifications when the client
// asked for them; over stdio nothing listens, and the calls cost nothing.
type Progress func(done, total float64, message string)

type progressKey struct{}

// WithProgress returns ctx carrying p for the ops it reaches.
func WithProgress(ctx context.Context, p Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// ReportProgress tells the listener of ctx, if any, how far the call has
// come. Ops call it between their long steps; it never fails the call.
func ReportProgress(ctx context.Context, done, total float64, message string) {
	if p, _ := ctx.Value(progressKey{}).(Progress); p != nil {
		p(done, total, message)
	}
}
