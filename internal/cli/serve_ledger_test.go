package cli

import (
	"testing"
)

// TestServeLedgerSession drives the standing ops (DLI section 3.10)
// through `deloreis serve` over the spec's setting and compares every
// response with the golden file: a batch with forward and cyclic
// citations and its keyed retry, a batch refused at record_index 2 that
// writes nothing, a materialize under a decision, set_standing refused
// when the decision misses a support path, defeat and defeat of the
// defeater, and an odd cycle.
func TestServeLedgerSession(t *testing.T) {
	got := runSession(t, "testdata/serve/ledger-session.jsonl", startServer(t, "--project", specProject(t)))
	golden(t, "serve/ledger-session", got)
}
