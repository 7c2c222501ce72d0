// The dke command group: DKE Python tools on files (for now, check).

package main

import (
	"github.com/deloreis/deloreis/dke"
	"github.com/spf13/cobra"
)

func newDKECmd() *cobra.Command {
	group := &cobra.Command{
		Use:   "dke",
		Short: "DKE Python tools",
	}
	group.AddCommand(&cobra.Command{
		Use:   "check FILE… [--language eng|nob] [--json]",
		Short: "Check DKE modules without storing anything; exit 1 on any diagnostic",
		// dke.CheckMain parses its own flags, before or after the files.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := dke.CheckMain(args, cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				return exitCode(code)
			}
			return nil
		},
	})
	return group
}
