// The version command: what this binary is and what it was built from.

package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/deloreis/deloreis/author"
	"github.com/spf13/cobra"
)

// version is set at link time (-ldflags "-X main.version=…") for releases.
var version = "0.1.0-dev"

func newVersionCmd() *cobra.Command {
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, store format and contract",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			goVersion := "unknown"
			if bi, ok := debug.ReadBuildInfo(); ok {
				goVersion = bi.GoVersion
			}
			if format.json() {
				return format.emit(cmd.OutOrStdout(), versionReport{Version: version, StoreFormat: author.StoreFormat,
					Contract: author.StoreContract, Go: goVersion})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "deloreis %s (store format %d, contract %s, %s)\n",
				version, author.StoreFormat, author.StoreContract, goVersion)
			return nil
		},
	}
	format = addFormat[versionReport](cmd)
	return cmd
}
