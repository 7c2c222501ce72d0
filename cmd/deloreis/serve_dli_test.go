package main

import (
	"os"
	"strings"
	"testing"
)

// TestServeDLISession drives `deloreis serve` through the dli.* ops over
// the spec's project and compares every response, commit ids included,
// with the golden file: the text tools, an import committed once (a
// blocked one, a retry and a reformatted retry commit nothing), the commit
// read back through show, object, diff, export and graph, and refusals of
// path-shaped revisions and scopes, a fenced dli op and a scope mismatch.
func TestServeDLISession(t *testing.T) {
	dir := specProject(t)
	reqs, err := os.ReadFile("testdata/serve/dli-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, "--project", dir)
	var got strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(reqs)), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		resp := s.call(line)
		if strings.Contains(resp, dir) {
			t.Errorf("a response names the project folder: %s", resp)
		}
		got.WriteString(resp)
		got.WriteByte('\n')
	}
	golden(t, "serve/dli-session", got.String())
}
