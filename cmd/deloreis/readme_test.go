// TestREADME keeps the README true to the command line: its first lines,
// the install line, what the tests need, demo --keep, the exit-code rule,
// and a row for every command of the tree.

package main

import (
	"os"
	"strings"
	"testing"
)

func TestREADME(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	lines := strings.Split(readme, "\n")
	if len(lines) < 4 || !strings.HasPrefix(strings.TrimSpace(lines[2]), "go run ./cmd/deloreis demo") ||
		!strings.HasPrefix(strings.TrimSpace(lines[3]), "make test") {
		t.Errorf("the README's first two command lines are not `go run ./cmd/deloreis demo` and `make test`")
	}
	for _, want := range []string{
		"go install ./cmd/deloreis", "../shared", "demo --keep DIR", "### Exit status",
		"| 0 | success", "| 1 | findings", "| 2 | usage error",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("the README does not say %q", want)
		}
	}
	for _, p := range commandPaths() {
		if !strings.Contains(readme, "| `"+p) && !strings.Contains(readme, ", `"+p) && !strings.Contains(readme, "`"+p+" ") {
			t.Errorf("the README's command table has no row for %q", p)
		}
	}
}
