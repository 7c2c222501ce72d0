package cli

import (
	"strings"

	"github.com/spf13/cobra"
)

// cmdKind says how a top-level command runs.
type cmdKind int

const (
	writesCmd    cmdKind = iota // may write a commit: its author is resolved in full
	readsOnlyCmd                // never writes a commit (DL-0332)
)

// command is one top-level command: its name (the first word of its Use),
// its kind, and how it is made.
type command struct {
	name string
	kind cmdKind
	make func(*globals) *cobra.Command
}

// commands are the top-level commands, in no particular order (cobra
// sorts them for help).
func commands() []command {
	noGlobals := func(f func() *cobra.Command) func(*globals) *cobra.Command {
		return func(*globals) *cobra.Command { return f() }
	}
	return []command{
		{"init", writesCmd, newInitCmd},
		{"scope", writesCmd, newScopeCmd},
		{"branch", writesCmd, newBranchCmd},
		{"merge", writesCmd, newMergeCmd},
		{"demo", writesCmd, noGlobals(newDemoCmd)},
		{"check", writesCmd, newCheckCmd},
		{"import", writesCmd, newImportCmd},
		{"dke", writesCmd, newDKECmd},
		{"remote", writesCmd, newRemoteCmd},
		{"log", readsOnlyCmd, newLogCmd},
		{"show", readsOnlyCmd, newShowCmd},
		{"version", readsOnlyCmd, noGlobals(newVersionCmd)},
		{"fmt", readsOnlyCmd, noGlobals(newFmtCmd)},
		{"graph", readsOnlyCmd, newGraphCmd},
		{"fsck", readsOnlyCmd, newFsckCmd},
		{"gc", writesCmd, newGCCmd},
		{"push", writesCmd, newPushCmd},
		{"fetch", writesCmd, newFetchCmd},
		{"pull", writesCmd, newPullCmd},
		{"clone", writesCmd, newCloneCmd},
		{"sync", writesCmd, newSyncCmd},
		{"serve", writesCmd, newServeCmd},
		{"mcp", writesCmd, newMCPCmd},
		{"casebook", writesCmd, newCasebookCmd},
	}
}

// globalValueFlags are the root's flags that take the next argument as
// their value (TestGlobalValueFlags holds it to the root's flags).
var globalValueFlags = map[string]bool{"--project": true, "--store": true, "--author": true,
	"--budget-time": true, "--budget-memory": true}

// commandNamed is the top-level command args run — their first argument
// that is neither a flag nor a global flag's value — when the table has
// it; else "".
func commandNamed(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return ""
		}
		if strings.HasPrefix(a, "-") {
			if globalValueFlags[a] {
				i++
			}
			continue
		}
		for _, c := range commands() {
			if c.name == a {
				return a
			}
		}
		return ""
	}
	return ""
}
