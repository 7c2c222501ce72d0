package main

import (
	"os"
	"strings"
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
	dir := specProject(t)
	reqs, err := os.ReadFile("testdata/serve/ledger-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, "--project", dir)
	var got strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(reqs)), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		got.WriteString(s.call(line))
		got.WriteByte('\n')
	}
	golden(t, "serve/ledger-session", got.String())
}
