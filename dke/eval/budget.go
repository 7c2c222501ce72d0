// The memory and time budget of a run or a reasoning (DL-0424): a meter
// of the bytes it builds — strings, printed and bound output, written
// values, and the tuples of rule evaluation (the cells read into the rule
// model and the derivations) at a fixed estimate each — and
// the context whose deadline or cancellation stops it. Past either, the
// run stops with a *BudgetError, which no handler catches and which the
// service answers as a refusal that writes nothing.

package eval

import (
	"context"
	"errors"
	"fmt"

	"github.com/deloreis/deloreis/datalog"
)

// DefaultMemory is the memory budget of a run or a reasoning when its
// Options.Memory is 0: 64 MiB.
const DefaultMemory = 64 << 20

// TupleBytes is what one tuple of rule evaluation is charged: one
// derivation of the engine. It is a round estimate of a row, its index
// entries and its support.
const TupleBytes = 64

// BudgetError is a run, or the reasoning of a checkup, stopped by its
// budget: of memory, or of time (its context's deadline), or canceled.
type BudgetError struct {
	// Budget is "memory" or "time"; "" for a canceled context.
	Budget string
	// Limit is the memory budget in bytes, for Budget "memory".
	Limit int64
	// Err is the context's error, for "time" and a cancellation.
	Err error
}

func (e *BudgetError) Error() string {
	switch e.Budget {
	case "memory":
		return fmt.Sprintf("memory budget exceeded: the request built more than %d bytes", e.Limit)
	case "time":
		return "time budget exceeded: the request passed its deadline"
	}
	return "the request was canceled"
}

// Unwrap returns the context's error.
func (e *BudgetError) Unwrap() error { return e.Err }

// meter counts what a run or a reasoning builds against its budget.
type meter struct {
	ctx  context.Context
	done <-chan struct{}
	used int64
	max  int64
	look int // steps until the next look at ctx
}

func newMeter(ctx context.Context, max int64) *meter {
	if ctx == nil {
		ctx = context.Background()
	}
	if max <= 0 {
		max = DefaultMemory
	}
	return &meter{ctx: ctx, done: ctx.Done(), max: max}
}

// charge counts n bytes built.
func (m *meter) charge(n int64) error {
	m.used += n
	if m.used > m.max {
		return &BudgetError{Budget: "memory", Limit: m.max}
	}
	return nil
}

// alive reports the context's end as a *BudgetError.
func (m *meter) alive() error {
	if m.done == nil {
		return nil
	}
	select {
	case <-m.done:
		return ctxError(m.ctx.Err())
	default:
		return nil
	}
}

// tick is alive at a stride of steps: every 1024 it looks.
func (m *meter) tick(n int) error {
	m.look -= n
	if m.look > 0 {
		return nil
	}
	m.look = 1024
	return m.alive()
}

func ctxError(err error) *BudgetError {
	if errors.Is(err, context.DeadlineExceeded) {
		return &BudgetError{Budget: "time", Err: err}
	}
	return &BudgetError{Err: err}
}

// limits is the engine's share of the budget: what is left of the memory,
// in derivations.
func (m *meter) limits() datalog.Limits {
	left := (m.max - m.used) / TupleBytes
	return datalog.Limits{MaxDerivations: int(max(left, 1))}
}

// evalError turns an engine stopped by its budget into a *BudgetError,
// charging what it derived.
func (m *meter) evalError(err error) error {
	code, ok := datalog.IsBudget(err)
	if !ok {
		return err
	}
	if code == datalog.CodeCanceled {
		return ctxError(errors.Unwrap(err))
	}
	m.used = m.max + 1
	return &BudgetError{Budget: "memory", Limit: m.max}
}

// IsBudget reports whether err is a budget's stop, and returns it.
func IsBudget(err error) (*BudgetError, bool) {
	var be *BudgetError
	ok := errors.As(err, &be)
	return be, ok
}
