// The budget of a call (DL-0425): how long a compile, a run or a checkup
// may take and how many bytes it may build, past which it is refused with
// budget-exceeded and writes nothing.

package service

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/deloreis/deloreis/dke/eval"
	"github.com/deloreis/deloreis/fault"
)

// Defaults of Budget.
const (
	// DefaultBudgetTime is how long one call may run: 30 seconds.
	DefaultBudgetTime = 30 * time.Second
	// DefaultBudgetMemory is how many bytes one call may build: 64 MiB.
	DefaultBudgetMemory = eval.DefaultMemory
)

// Budget bounds the work of one call. The zero value is the defaults.
type Budget struct {
	// Time is the longest a call may run (deloreis --budget-time); a
	// negative value is no limit.
	Time time.Duration
	// Memory is the bytes a call may build (deloreis --budget-memory):
	// strings, printed and written values, the tuples of rule evaluation
	// (the cells read into the rule model and the derivations) at
	// eval.TupleBytes each.
	Memory int64
}

func (b Budget) withDefaults() Budget {
	if b.Time == 0 {
		b.Time = DefaultBudgetTime
	}
	if b.Memory <= 0 {
		b.Memory = DefaultBudgetMemory
	}
	return b
}

// CodeBudget is the refusal of a call that passed its budget, or was
// canceled.
const CodeBudget = "budget-exceeded"

// budgeted returns ctx under the service's time budget.
func (s *Service) budgeted(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	if s.cfg.Budget.Time < 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, s.cfg.Budget.Time)
}

// budgetError is the refusal of a call its budget stopped: which budget,
// its value and how to raise it. Nothing of the call was written.
func (s *Service) budgetError(tool string, be *eval.BudgetError) error {
	b := s.cfg.Budget
	var e *fault.Error
	switch be.Budget {
	case "memory":
		e = fault.Errorf(fault.Refused, CodeBudget, "%s stopped: it passed its memory budget of %d bytes (strings, output, writes and rule tuples it builds); nothing was written. The server's --budget-memory raises it", tool, b.Memory)
	case "time":
		e = fault.Errorf(fault.Refused, CodeBudget, "%s stopped: it passed its time budget of %s; nothing was written. The server's --budget-time raises it", tool, b.Time)
	default:
		e = fault.Errorf(fault.Refused, CodeBudget, "%s stopped: the call was canceled; nothing was written", tool)
	}
	return e.With("budget", budgetName(be)).With("limit", budgetLimit(be, b))
}

func budgetName(be *eval.BudgetError) string {
	if be.Budget == "" {
		return "canceled"
	}
	return be.Budget
}

func budgetLimit(be *eval.BudgetError, b Budget) string {
	switch be.Budget {
	case "memory":
		return formatBytes(b.Memory)
	case "time":
		return b.Time.String()
	}
	return ""
}

func formatBytes(n int64) string {
	switch {
	case n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "GiB"
	case n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	case n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KiB"
	}
	return strconv.FormatInt(n, 10) + "B"
}

// ParseBytes reads a byte count as the --budget-memory flag takes it: a
// whole number with an optional unit B, KiB, MiB or GiB ("64MiB").
func ParseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		shift  uint
	}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}
	num, shift := s, uint(0)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			num, shift = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("%q is not a byte count: a whole number with an optional unit B, KiB, MiB or GiB", s)
	}
	return n << shift, nil
}
