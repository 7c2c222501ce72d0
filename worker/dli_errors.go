// The error codes each author op names in its worker.Spec, beyond the
// protocol's own, for the generated op reference (docs/ops.md). They are
// read off the handlers; errors_test.go checks each is a known code and
// provokes a sample of them.

package author

import "github.com/deloreis/deloreis/objects"

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
	lawErrors = []string{CodeUnknownDoc, CodeStaleFence, CodeKeyConflict, CodePinnedProject}
	// readErrors are what read answers with for any workspace read.
	readErrors = []string{CodeUnknownDoc}
	// provenanceErrors are checkProvenance's refusals of a hypothesis
	// provenance outside a fork or not minted there.
	provenanceErrors = []string{CodeHypothesisInScope, CodeUnknownHypothesis}
	// ledgerErrors are commitLedger's: ledger writes are not fork-local,
	// and the branch may move under every retry.
	ledgerErrors = []string{CodeForkLocal, CodeBranchMoved}
)

// claimErrors are the codes of an op staging one T through ClaimParams
// and stageClaim: the mutation law, an invalid object, the provenance
// rules when T carries a provenance, and the one-hypothesis-per-fork rule
// when T is a hypothesis.
func claimErrors[T objects.Object]() []string {
	var zero T
	out := errs(lawErrors, []string{CodeInvalidObject})
	for _, f := range objects.Fields(zero.Type()) {
		if f.Name == "provenance" {
			out = append(out, provenanceErrors...)
		}
	}
	if zero.Type() == objects.TypeHypothesis {
		out = append(out, CodeNotAFork, CodeHypothesisLimit)
	}
	return out
}
