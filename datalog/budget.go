// This file holds the budget of one evaluation (DL-0423): a context whose
// cancellation or deadline stops it, and a bound on the derivations it may
// make. Both are checked at a stride inside the joins, so that a rule whose
// matches run into the billions stops within a few thousand of them, at the
// cost of one decrement per enumerated row.

package datalog

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
)

// Limits bound one evaluation (Program.EvalContext).
type Limits struct {
	// MaxDerivations is how many rule firings (complete matches of a rule
	// body) the evaluation may make; 0 is no bound. Every tuple the model
	// gains, and every monomial queued for one, comes from a derivation,
	// so this bounds the memory the evaluation takes as well as its work.
	MaxDerivations int
}

// Budget error codes, beside the rule codes of errors.go.
const (
	// CodeBudgetDerivations: the evaluation passed Limits.MaxDerivations.
	CodeBudgetDerivations = "eval.derivations-exceeded"
	// CodeCanceled: the evaluation's context was canceled or passed its
	// deadline; Error.Unwrap returns the context's error.
	CodeCanceled = "eval.canceled"
)

// stride is how many enumerated rows pass between two looks at the
// budget: small enough that a stop comes within microseconds, large
// enough that the look costs nothing measurable.
const stride = 1 << 12

// guard is the budget of one evaluation, shared by its evaluators.
type guard struct {
	ctx     context.Context
	done    <-chan struct{}
	max     int          // derivations allowed, 0 for no bound
	derived atomic.Int64 // derivations counted so far (parallel workers add to it)
}

// stopped is the panic value that unwinds an evaluation past its budget;
// EvalContext recovers it.
type stopped struct{ err *Error }

// tick charges one row a scan enumerates, or one run of a plan; every
// stride of them it looks at the budget, as emit does every stride
// derivations. The rows of an index lookup match their key and those of a
// delta were each derived before, so they are not charged: what they lead
// to is.
func (e *evaluator) tick() {
	e.ticks--
	if e.ticks < 0 {
		e.look()
	}
}

// look settles the derivations counted since the last look and stops the
// evaluation when the budget is spent.
func (e *evaluator) look() {
	e.ticks = stride
	g := e.g
	if g == nil {
		e.fired = 0
		return
	}
	derived := g.derived.Add(int64(e.fired))
	e.fired = 0
	if g.max > 0 && derived > int64(g.max) {
		panic(stopped{&Error{Code: CodeBudgetDerivations,
			Message: fmt.Sprintf("the evaluation made more than %d derivations, its limit", g.max)}})
	}
	if g.done != nil {
		select {
		case <-g.done:
			err := g.ctx.Err()
			panic(stopped{&Error{Code: CodeCanceled, Message: fmt.Sprintf("the evaluation was stopped: %v", err), cause: err}})
		default:
		}
	}
}

// EvalContext is Eval under a budget: it stops, returning an *Error with
// code eval.canceled or eval.derivations-exceeded and no model, when ctx
// is done or the evaluation passes lim. A stopped evaluation leaves the
// program as it was and its previous model valid; the program's next
// evaluation starts from that model.
func (p *Program) EvalContext(ctx context.Context, lim Limits) (m *Model, err error) {
	if err := ctx.Err(); err != nil {
		return nil, &Error{Code: CodeCanceled, Message: fmt.Sprintf("the evaluation was stopped: %v", err), cause: err}
	}
	p.guard = &guard{ctx: ctx, done: ctx.Done(), max: lim.MaxDerivations}
	defer func() {
		p.guard = nil
		if r := recover(); r != nil {
			s, ok := r.(stopped)
			if !ok {
				panic(r)
			}
			m, err = nil, s.err
		}
	}()
	return p.EvalFrom(p.last)
}

// Derivations reports how many derivations the evaluation of m made, when
// it ran under EvalContext (counted at the stride: exact to within a few
// thousand); 0 otherwise.
func (m *Model) Derivations() int { return m.derivations }

// IsBudget reports whether err is an evaluation stopped by its budget
// (EvalContext), and which code stopped it.
func IsBudget(err error) (code string, ok bool) {
	var e *Error
	if errors.As(err, &e) && (e.Code == CodeBudgetDerivations || e.Code == CodeCanceled) {
		return e.Code, true
	}
	return "", false
}
