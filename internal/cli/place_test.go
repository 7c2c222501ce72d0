package cli

import (
	"strings"
	"testing"
)

// TestFindingPositions: every finding is reported at the declaration it
// concerns and, where it names one, at the token at fault — a rule's
// unbound variable, an unknown entity, an unrecorded decision or claim
// (issue 8 items 4 and 12). The message never repeats the code.
func TestFindingPositions(t *testing.T) {
	out, _, code := deloreis(t, "check", "--standalone", "testdata/check/positions.dli")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	golden(t, "check/positions", out)
	for _, want := range []string{
		"positions.dli:3:19: error rule.unbound-variable",
		"positions.dli:4:17: error entity.unknown",
		"positions.dli:5:1: error rule.unstratifiable",
		"positions.dli:7:28: error citation.unknown-decision",
		"positions.dli:8:8: error citation.unknown-decision",
		"positions.dli:8:21: error citation.unknown-decision",
		"positions.dli:8:29: error citation.unknown-claim",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.Contains(l, ":1:1:") || strings.Contains(l, "datalog:") {
			t.Errorf("unplaced or engine-worded finding: %s", l)
		}
	}
}
