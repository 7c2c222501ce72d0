// The error codes each author op names in its Spec, beyond the protocol's
// own, for the generated op reference (docs/ops.md). They are read off the
// use cases in package author; its errors tests check each is a known code
// and provoke a sample of them.

package worker

import (
	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/objects"
)

// errs joins code lists.
func errs(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

var (
	// lawErrors are what mutate answers with for any mutating op: a
	// workspace not open, a fence that no longer holds, a key reused for
	// another call.
	lawErrors = []string{author.CodeUnknownDoc, author.CodeStaleFence, author.CodeKeyConflict, author.CodePinnedProject}
	// readErrors are what read answers with for any workspace read.
	readErrors = []string{author.CodeUnknownDoc}
	// provenanceErrors are checkProvenance's refusals of a hypothesis
	// provenance outside a fork or not minted there.
	provenanceErrors = []string{author.CodeHypothesisInScope, author.CodeUnknownHypothesis}
	// ledgerErrors are commitLedger's: ledger writes are not fork-local,
	// and the branch may move under every retry.
	ledgerErrors = []string{author.CodeForkLocal, author.CodeBranchMoved}
)

// claimErrors are the codes of an op staging one T through ClaimParams
// and stageClaim: the mutation law, an invalid object, the provenance
// rules when T carries a provenance, and the one-hypothesis-per-fork rule
// when T is a hypothesis.
func claimErrors[T objects.Object]() []string {
	var zero T
	out := errs(lawErrors, []string{author.CodeInvalidObject, author.CodeBudget})
	for _, f := range objects.Fields(zero.Type()) {
		if f.Name == "provenance" {
			out = append(out, provenanceErrors...)
		}
	}
	if zero.Type() == objects.TypeHypothesis {
		out = append(out, author.CodeNotAFork, author.CodeHypothesisLimit)
	}
	return out
}
