// Commands over .dli text: fmt (gofmt-style canonical formatting), check
// (the world's check battery on a file's own world) and import (a file's
// declarations staged over a scope, and optionally committed).

package main

import (
	"github.com/deloreis/deloreis/dli"
	"github.com/spf13/cobra"
)

func newFmtCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "fmt [-w] [-d] [FILE|DIR…]",
		Short: "Print .dli files in canonical form (-w: rewrite them; -d: show the diff)",
		// dli.FmtMain parses its own flags, gofmt-style.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := dli.FmtMain(args, cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				return exitCode(code)
			}
			return nil
		},
	}
}

func newCheckCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "check FILE…",
		Short:              "Check .dli files against the world's check battery, compiler-style",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := dli.CheckMain(args, cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				return exitCode(code)
			}
			return nil
		},
	}
}

func newImportCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "import [FILE] --project P --scope S [--branch B] [--materialize]",
		Short: "Stage a .dli file over a scope's head: findings, consequence diff, and optionally one commit",
		// dli.ImportMain parses its own flags, --project included.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := dli.ImportMain(args, cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				return exitCode(code)
			}
			return nil
		},
	}
}
