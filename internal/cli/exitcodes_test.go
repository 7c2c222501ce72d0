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
