// EvalStats: how the world's datalog model was built, so callers (and
// tests) can tell a change maintained incrementally from one that
// re-evaluated strata from scratch.

package world

import "github.com/deloreis/deloreis/datalog"

// EvalStats returns the figures of the evaluation that built the world's
// model: its strata, how many were reused or maintained in place, and so
// how many were evaluated from scratch.
func (w *World) EvalStats() datalog.Stats { return w.model.Stats() }

// The phases of a compile, as base/phases records them when a process
// asks (DL-0503). The entry checks run beside lowering and evaluation.
const (
	PhaseIndex       = "world: index"
	PhaseLower       = "world: lower"
	PhaseEvaluate    = "world: evaluate"
	PhaseEntryChecks = "world: entry checks"
	PhaseChecks      = "world: valuation and checks"
)
