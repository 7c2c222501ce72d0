package cli

import (
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
	got := runSession(t, "testdata/serve/dli-session.jsonl", startServer(t, "--project", dir))
	for _, resp := range strings.Split(got, "\n") {
		if strings.Contains(resp, dir) {
			t.Errorf("a response names the project folder: %s", resp)
		}
	}
	golden(t, "serve/dli-session", got)
}
