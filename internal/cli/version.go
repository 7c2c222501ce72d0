// The version command: what this binary is and what it was built from.

package cli

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/deloreis/deloreis/author"
	"github.com/spf13/cobra"
)

// version is set at link time (-ldflags "-X main.version=…") for releases.
var version = "0.1.0-dev"

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, store format and contract",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), versionLine())
			return err
		},
	}
}

// versionLine is what `deloreis version` and `deloreis --version` print.
func versionLine() string {
	goVersion := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
	}
	return fmt.Sprintf("deloreis %s (store format %d, contract %s, %s)",
		version, author.StoreFormat, author.StoreContract, goVersion)
}

// setVersionFlag gives the root cobra's --version, printing versionLine.
// The template is the whole line: cobra's own prefixes the name.
func setVersionFlag(root *cobra.Command) {
	root.Version = version
	root.SetVersionTemplate(strings.ReplaceAll(versionLine(), "{", "{{\"{\"}}") + "\n")
}
