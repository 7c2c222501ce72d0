package cli

import (
	"fmt"
	"strings"
	"testing"
)

// TestHelpListsExitCodes: every command's --help ends with an "Exit
// status:" section that lists 0, 1 and 2 and every code of the command's
// own in the table, as git's manual pages do.
func TestHelpListsExitCodes(t *testing.T) {
	for _, p := range append([]string{""}, commandPaths()...) {
		args := append(strings.Fields(p), "--help")
		out, errs, code := deloreis(t, args...)
		if code != 0 {
			t.Fatalf("deloreis %s: exit %d: %s", strings.Join(args, " "), code, errs)
		}
		_, section, ok := strings.Cut(out, "\nExit status:\n")
		if !ok {
			t.Errorf("deloreis %s: no \"Exit status:\" section:\n%s", strings.Join(args, " "), out)
			continue
		}
		for _, r := range exitRows(p) {
			if !strings.Contains(section, fmt.Sprintf("  %d  %s\n", r.code, r.meaning)) {
				t.Errorf("deloreis %s: the exit status section lacks %d:\n%s", strings.Join(args, " "), r.code, section)
			}
		}
	}
	if rows := exitRows("sync"); len(rows) != 4 || rows[3].code != exitConflicts {
		t.Errorf("sync's exit codes: %+v, want 0, 1, 2 and %d", rows, exitConflicts)
	}
}

// TestServersHelpSaysPinnedRefuses: serve's and mcp's --help say what a
// pinned project does to the ops that would commit (DL-0443).
func TestServersHelpSaysPinnedRefuses(t *testing.T) {
	for _, cmd := range []string{"serve", "mcp"} {
		out, errs, code := deloreis(t, cmd, "--help")
		flat := strings.Join(strings.Fields(out), " ")
		if code != 0 || !strings.Contains(flat, "In a pinned project") || !strings.Contains(flat, "are refused as pinned-project") {
			t.Errorf("deloreis %s --help (exit %d, %s) does not say a pinned project refuses commits:\n%s", cmd, code, errs, out)
		}
	}
}
