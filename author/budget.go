// The time budget of a DLI request (DL-0427): staging and import evaluate
// their worlds under the request's context, bounded by Config.Budget.Time,
// and a request stopped by it (or canceled) is refused with
// budget-exceeded, having staged and written nothing.

package author

import (
	"context"
	"errors"
	"time"

	"github.com/deloreis/deloreis/fault"
)

// DefaultBudgetTime is the time budget the servers (serve, mcp) give a
// request unless told otherwise (--budget-time).
const DefaultBudgetTime = 30 * time.Second

// Budget bounds the work of one request.
type Budget struct {
	// Time is the longest a staging op or an import evaluates; 0 is no
	// bound (a one-shot command), as a negative value is.
	Time time.Duration
}

// CodeBudget is the refusal of a request its budget stopped, or that was
// canceled.
const CodeBudget = "budget-exceeded"

func init() { ErrorCodes[CodeBudget] = fault.Refused }

// SetBudget sets the budget of the requests the service answers from now
// on. Call it before serving.
func (s *Service) SetBudget(b Budget) { s.cfg.Budget = b }

// budgeted returns ctx under the time budget, and its cancel.
func (s *Service) budgeted(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	if s.cfg.Budget.Time <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, s.cfg.Budget.Time)
}

// under runs the rest of a workspace op under the request's budget: its
// stages evaluate under ctx. The caller holds ws.mu; the returned func
// ends it.
func (s *Service) under(ws *Workspace, ctx context.Context) func() {
	ctx, cancel := s.budgeted(ctx)
	ws.ctx, ws.limit = ctx, s.cfg.Budget.Time
	return func() { ws.ctx = nil; cancel() }
}

// budgetErr turns an evaluation stopped by its context into the refusal,
// naming the budget, its value and how to raise it; other errors pass.
func budgetErr(op string, limit time.Duration, err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fault.Errorf(fault.Refused, CodeBudget,
			"%s stopped: it passed its time budget of %s; nothing was staged or written. The server's --budget-time raises it.", op, limit).
			With("budget", "time").With("limit", limit.String())
	case errors.Is(err, context.Canceled):
		return fault.Errorf(fault.Refused, CodeBudget, "%s stopped: the request was canceled; nothing was staged or written.", op).
			With("budget", "canceled")
	}
	return err
}
