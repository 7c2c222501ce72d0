package datalog

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/deloreis/deloreis/internal/testenv"
)

// crossProgram derives pair(X, Y) for every two of n values: n² derivations
// in one round, none of them recursive, the shape of a comparison lowered
// over every pair of values.
func crossProgram(t testing.TB, n int) *Program {
	t.Helper()
	p := NewProgram()
	for i := range n {
		must(t, p.AddFact("v", []string{strconv.Itoa(i)}, One()))
	}
	must(t, p.AddRule(parseRule("pair", "pair(X, Y) :- v(X), v(Y)", One())))
	return p
}

// cmpCrossProgram compares every number of v with every constant of w
// (the numbers again, or as strings): "X < Y" holds for half the pairs of
// numbers, "X == Y" for none of a number and a string, so that only the
// budget's clock stops that join (a match the comparison rejects is no
// derivation).
func cmpCrossProgram(t testing.TB, n int, wKind, cmp string) *Program {
	t.Helper()
	p := NewProgram()
	for i := range n {
		must(t, p.AddFact("v", []string{"n:" + strconv.Itoa(i)}, One()))
		must(t, p.AddFact("w", []string{wKind + strconv.Itoa(i)}, One()))
	}
	must(t, p.AddRule(parseRule("pair", "pair(X, Y) :- v(X), w(Y), "+cmp, One())))
	return p
}

// cmpIndexProgram joins n numbers with n strings through one shared key,
// by an index lookup (whose rows the budget does not tick), and compares
// them with X == Y, which no match passes.
func cmpIndexProgram(t testing.TB, n int) *Program {
	t.Helper()
	p := NewProgram()
	for i := range n {
		must(t, p.AddFact("v", []string{"k", "n:" + strconv.Itoa(i)}, One()))
		must(t, p.AddFact("w", []string{"k", "s:" + strconv.Itoa(i)}, One()))
	}
	must(t, p.AddRule(parseRule("pair", "pair(X, Y) :- v(K, X), w(K, Y), X == Y", One())))
	return p
}

// TestEvalContextStops: an evaluation past its budget stops with the typed
// error, promptly and in little memory, and leaves the program able to
// evaluate again. Fails when the joins do not look at the budget (the
// cases then run to their fixpoints: 36M pairs, a 3,000-node closure).
func TestEvalContextStops(t *testing.T) {
	cases := []struct {
		name  string
		prog  func(t testing.TB) *Program
		ctx   func() (context.Context, context.CancelFunc)
		lim   Limits
		code  string
		cause error
	}{
		{"derivations, one wide round", func(t testing.TB) *Program { return crossProgram(t, 6000) },
			func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			Limits{MaxDerivations: 100_000}, CodeBudgetDerivations, nil},
		{"derivations, recursive", func(t testing.TB) *Program { return tcProgram(t, chainEdges(3000), false) },
			func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			Limits{MaxDerivations: 100_000}, CodeBudgetDerivations, nil},
		{"derivations, with provenance", func(t testing.TB) *Program { return tcProgram(t, chainEdges(3000), true) },
			func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			Limits{MaxDerivations: 100_000}, CodeBudgetDerivations, nil},
		{"deadline", func(t testing.TB) *Program { return crossProgram(t, 6000) },
			func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 50*time.Millisecond)
			},
			Limits{}, CodeCanceled, context.DeadlineExceeded},
		{"derivations, compared", func(t testing.TB) *Program { return cmpCrossProgram(t, 6000, "n:", "X < Y") },
			func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			Limits{MaxDerivations: 100_000}, CodeBudgetDerivations, nil},
		{"deadline, every match compared away", func(t testing.TB) *Program { return cmpCrossProgram(t, 20000, "s:", "X == Y") },
			func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 50*time.Millisecond)
			},
			Limits{MaxDerivations: 100_000}, CodeCanceled, context.DeadlineExceeded},
		{"deadline, every indexed match compared away", func(t testing.TB) *Program { return cmpIndexProgram(t, 40000) },
			func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 50*time.Millisecond)
			},
			Limits{MaxDerivations: 100_000}, CodeCanceled, context.DeadlineExceeded},
		{"canceled", func(t testing.TB) *Program { return tcProgram(t, chainEdges(3000), true) },
			func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(50*time.Millisecond, cancel)
				return ctx, cancel
			},
			Limits{}, CodeCanceled, context.Canceled},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.prog(t)
			ctx, cancel := c.ctx()
			defer cancel()
			var before runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			t0 := time.Now()
			m, err := p.EvalContext(ctx, c.lim)
			took := time.Since(t0)
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if m != nil || err == nil {
				t.Fatalf("EvalContext returned a model (%d derivations); want it stopped", m.Derivations())
			}
			var de *Error
			if !errors.As(err, &de) || de.Code != c.code {
				t.Fatalf("err = %v, want code %s", err, c.code)
			}
			if code, ok := IsBudget(err); !ok || code != c.code {
				t.Fatalf("IsBudget(%v) = %q, %v", err, code, ok)
			}
			if c.cause != nil && !errors.Is(err, c.cause) {
				t.Fatalf("err = %v does not wrap %v", err, c.cause)
			}
			if took > testenv.Bound(2*time.Second) {
				t.Fatalf("stopped after %v, want well under 2s", took)
			}
			if grown := after.TotalAlloc - before.TotalAlloc; grown > 512<<20 {
				t.Fatalf("allocated %d MiB before stopping", grown>>20)
			}
			t.Logf("stopped after %v, %d KiB allocated: %v", took, (after.TotalAlloc-before.TotalAlloc)>>10, err)
		})
	}
}

// TestEvalContextWithinBudget: an evaluation within its budget returns the
// model Eval returns, and a stopped one leaves the program's previous model
// to evaluate incrementally from.
func TestEvalContextWithinBudget(t *testing.T) {
	p := tcProgram(t, chainEdges(200), true)
	m, err := p.EvalContext(context.Background(), Limits{MaxDerivations: 1_000_000})
	must(t, err)
	want := evalOK(t, tcProgram(t, chainEdges(200), true))
	if m.Len("path") != want.Len("path") || m.Len("path") != 199*200/2 {
		t.Fatalf("path: %d atoms, want %d", m.Len("path"), want.Len("path"))
	}
	if m.Derivations() < 199*200/2 {
		t.Fatalf("Derivations() = %d, want at least the %d atoms", m.Derivations(), 199*200/2)
	}
	// Close the chain into a cycle: the maintenance runs out of budget.
	must(t, p.AddFact("edge", []string{"199", "0"}, VarPoly("back")))
	if _, err := p.EvalContext(context.Background(), Limits{MaxDerivations: 5000}); err == nil {
		t.Fatal("the incremental evaluation did not stop")
	}
	if got := m.Len("path"); got != 199*200/2 {
		t.Fatalf("the previous model changed: %d path atoms", got)
	}
	m2, err := p.EvalContext(context.Background(), Limits{})
	must(t, err)
	if got := m2.Len("path"); got != 200*200 {
		t.Fatalf("after the stop, path has %d atoms, want %d", got, 200*200)
	}
}
