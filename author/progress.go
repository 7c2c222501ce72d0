package author

import (
	"context"

	"github.com/deloreis/deloreis/base/progress"
)

// steps counts the steps of a long op (materialize, merge) and reports
// each to whoever listens on the call's context (progress.Report).
// done only grows, as MCP requires of progress notifications; a retry
// after a moved branch reports nothing new.
type steps struct {
	ctx         context.Context
	done, total float64 // total 0: the op has nothing long to do
	sent        bool
}

// to reports that the op has reached done steps of total.
func (p *steps) to(done float64, msg string) {
	if p == nil || p.total == 0 || p.sent && done <= p.done {
		return
	}
	p.done, p.sent = done, true
	progress.Report(p.ctx, done, p.total, msg)
}

// every is how many objects an encoding loop handles between reports: a
// few dozen reports at most, whatever the size.
func every(n int) int {
	if n < 50 {
		return n + 1
	}
	return n / 25
}

// of sets how many steps the op has, once it knows.
func (p *steps) of(total int) {
	if p != nil {
		p.total = float64(total)
	}
}

// finish reports the last step.
func (p *steps) finish(msg string) {
	if p != nil {
		p.to(p.total, msg)
	}
}
