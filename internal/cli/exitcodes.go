// The one table of exit codes (issue 33): every command exits 0 when it
// did what was asked, 1 when it was refused or failed, reported findings
// or met a conflict, 2 on a usage error; a command with a code of its own
// names it here. Every command's --help prints its rows ("Exit status:",
// as git's manual pages have), and so do the manual pages.

package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// The exit codes every command shares.
const (
	exitOK     = 0
	exitFailed = 1 // refused, failed, findings reported, or conflicting
	exitUsage  = 2
)

// exitRow is one exit code and what it means.
type exitRow struct {
	code    int
	meaning string
}

// sharedExits are the codes of every command.
var sharedExits = []exitRow{
	{exitOK, "success"},
	{exitFailed, "refused or failed, findings reported, or a conflict met"},
	{exitUsage, "usage error: an unknown command or flag, a bad flag value, a wrong number of arguments"},
}

// ownExits are a command's meanings of a shared code, said more exactly,
// and its codes of its own, by command path.
var ownExits = map[string][]exitRow{
	"merge":     {{exitFailed, "refused or failed, or held back by a conflict or a new error finding (nothing written)"}},
	"pull":      {{exitFailed, "refused or failed, or the merge it wrote brought world conflicts (reported on stdout)"}},
	"check":     {{exitFailed, "findings reported, or the check failed"}},
	"fsck":      {{exitFailed, "the store has faults (reported), or it could not be read"}},
	"fmt":       {{exitFailed, "a file does not parse or cannot be read or written"}},
	"dke check": {{exitFailed, "diagnostics reported, or the check failed"}},
	"sync":      {{exitConflicts, "synced, but a merge it wrote or brought in has world conflicts (reported): a person must rule (DL-0250's 3, distinct from a failure)"}},
}

// exitRows are the exit codes of the command at path ("" the root, "dke
// check"), in order: the shared ones, as the command means them, then its
// own.
func exitRows(path string) []exitRow {
	rows := append([]exitRow(nil), sharedExits...)
	for _, own := range ownExits[path] {
		replaced := false
		for i := range rows {
			if rows[i].code == own.code {
				rows[i], replaced = own, true
			}
		}
		if !replaced {
			rows = append(rows, own)
		}
	}
	return rows
}

// commandPath is cmd's path below the root, as exitRows takes it.
func commandPath(cmd *cobra.Command) string {
	p := cmd.CommandPath()
	if i := strings.IndexByte(p, ' '); i >= 0 {
		return p[i+1:]
	}
	return ""
}

// writeExitStatus prints the "Exit status:" section of cmd's help.
func writeExitStatus(w io.Writer, cmd *cobra.Command) {
	fmt.Fprintln(w, "\nExit status:")
	for _, r := range exitRows(commandPath(cmd)) {
		fmt.Fprintf(w, "  %d  %s\n", r.code, r.meaning)
	}
}

// addExitStatusHelp makes root's help, and so every command's, end with
// the command's exit codes.
func addExitStatusHelp(root *cobra.Command) {
	help := root.HelpFunc()
	root.SetHelpFunc(func(cmd *cobra.Command, args []string) {
		help(cmd, args)
		writeExitStatus(cmd.OutOrStdout(), cmd)
	})
}
