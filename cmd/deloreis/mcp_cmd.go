// The mcp command: the same registry serve answers, offered as MCP tools
// over stdio (mcpserve), the compact fiction profile unless --tools all.

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

func newMCPCmd(g *globals) *cobra.Command {
	var tools string
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the ops as MCP tools on stdio (the fiction profile; --tools all for every op)",
		Long: `Speaks the Model Context Protocol on standard input and output: one tool
per op of the compact fiction profile, or of every op with --tools all.
Tool names are the op names with "." as "_" (author_add_fact). A mutating
tool takes two reserved arguments, expected_digest and idempotency_key,
which go into the worker envelope as on stdio. The project is loaded as
serve loads it (the bundled demo project without --project). The exit
status is 0 when the client closes the session, 1 when the project cannot
be served.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var profile worker.Profile
			switch tools {
			case "fiction", "":
				profile = worker.ProfileFiction
			case "all":
				profile = worker.ProfileExtended
			default:
				return usageError{fmt.Sprintf("--tools %q: want fiction or all", tools)}
			}
			reg, cleanup, err := g.registry(cmd.Flag("project").Changed, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer cleanup()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			t := &mcp.IOTransport{Reader: io.NopCloser(cmd.InOrStdin()), Writer: nopWriteCloser{cmd.OutOrStdout()}}
			return mcpserve.New(reg, profile).Run(ctx, t)
		},
	}
	cmd.Flags().StringVar(&tools, "tools", "fiction", "the tools offered: fiction (the compact profile) or all")
	return cmd
}

// nopWriteCloser leaves standard output open when the session ends.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
