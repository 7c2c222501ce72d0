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
			if format.json() {
				return format.emit(cmd.OutOrStdout(), versionReport{Version: version, StoreFormat: author.StoreFormat,
					Contract: author.StoreContract, Go: goVersion()})
			}
			_, err := fmt.Fprintln(cmd.OutOrStdout(), versionLine())
			return err
		},
	}
	format = addFormat[versionReport](cmd)
	return cmd
}

// versionLine is what `deloreis version` and `deloreis --version` print.
func versionLine() string {
	return fmt.Sprintf("deloreis %s (store format %d, contract %s, %s)",
		version, author.StoreFormat, author.StoreContract, goVersion())
}

// goVersion is the Go release this program was built with.
func goVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.GoVersion
	}
	return "unknown"
}

// setVersionFlag gives the root --version, printing versionLine. It is
// the root's own flag rather than cobra's Version: cobra prints a custom
// version line through text/template, and a program that links
// text/template's method lookup keeps every exported method of every type
// (3.7 MB more text).
func setVersionFlag(root *cobra.Command) {
	show := root.Flags().Bool("version", false, "print the version, store format and contract (as deloreis version) and exit")
	help := root.RunE
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if *show {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), versionLine())
			return err
		}
		if help != nil {
			return help(cmd, args)
		}
		return cmd.Help()
	}
}
