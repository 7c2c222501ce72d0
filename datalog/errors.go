// This file holds the typed error of package datalog and its codes.

package datalog

import "fmt"

// Error codes. Each *Error carries one of them in Code.
const (
	// CodeUnboundVariable: a head variable, or a variable of a negated
	// literal, occurs in no positive body atom (range restriction).
	CodeUnboundVariable = "rule.unbound-variable"
	// CodeUnstratifiable: the rules recurse through negation.
	CodeUnstratifiable = "rule.unstratifiable"
	// CodeArityMismatch: one predicate is used with two different arities.
	CodeArityMismatch = "rule.arity-mismatch"
	// CodeInvalidTerm: a term sets both or neither of Var and Const, or a
	// predicate name is empty.
	CodeInvalidTerm = "rule.invalid-term"
	// CodeZeroSupport: a fact or rule was given the zero polynomial.
	CodeZeroSupport = "support.zero"
)

// Error is the one error type of the package. Code says which check failed;
// Rule, Pred, Var and Cycle locate it where they apply.
type Error struct {
	Code    string   // one of the Code* constants
	Rule    string   // the rule at fault, if any
	Pred    string   // the predicate at fault, if any
	Var     string   // the unbound variable (rule.unbound-variable)
	Cycle   []string // predicates along a cycle through negation, from the smallest
	Message string   // lowercase, says what to do

	cause error // the context's error, for eval.canceled
}

// Unwrap returns the context's error of an evaluation stopped by it
// (eval.canceled), so that errors.Is(err, context.DeadlineExceeded) holds.
func (e *Error) Unwrap() error { return e.cause }

// Error renders the code and message.
func (e *Error) Error() string {
	return fmt.Sprintf("datalog: %s: %s", e.Code, e.Message)
}

// ruleLabel names a rule in a message.
func ruleLabel(name string) string {
	if name == "" {
		return "an unnamed rule"
	}
	return fmt.Sprintf("rule %q", name)
}
