// The mcp command: the same registry serve answers, offered as MCP tools
// over stdio, the compact fiction profile unless --tools all.

package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/deloreis/deloreis/internal/gcpolicy"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
	"github.com/spf13/cobra"
)

func newMCPCmd(g *globals) *cobra.Command {
	var tools, httpAddr, token, review string
	var demo bool
	var lim *mcpserve.Limits
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the project's ops as MCP tools on stdio (the fiction profile; --tools all for every op)",
		Long: `Speaks the Model Context Protocol on standard input and output: one tool
per op of the compact fiction profile, or of every op with --tools all.
Tool names are the op names with "." as "_" (author_add_fact). A mutating
tool takes two reserved arguments, expected_digest and idempotency_key,
which go into the worker envelope as on stdio. The project is found as
serve finds it (from the current folder up; --demo serves the bundled
demo project). The exit status is 0 when the client closes the session,
1 when the project cannot be served (outside any project, without --demo).
In a pinned project (pin in deloreis.toml) every workspace opens at the
pin: staging works, and the tools that would commit (author_materialize,
author_record_decision(s), author_set_standing, author_defeat,
author_merge) are refused as pinned-project, so no branch moves.

With --http ADDR it serves streamable HTTP at http://ADDR/mcp instead
(loopback only, unless a bearer token is given with --token or
DELOREIS_MCP_TOKEN; a foreign Host or Origin header is refused) until
interrupted. The bearer scheme is matched in any case ("bearer" too). A
non-loopback address needs a strong token: at least 32 visible ASCII
characters, no spaces, at least 8 of them different (openssl rand -hex 32
makes one); a token of spaces only is refused on any address.
` + reviewHelp + limitsHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			profile, err := mcpProfile(tools)
			if err != nil {
				return err
			}
			if token == "" {
				token = os.Getenv("DELOREIS_MCP_TOKEN")
			}
			if err := checkMCPAddrs(httpAddr, review, token); err != nil {
				return err
			}
			if err := checkLimits(lim); err != nil {
				return err
			}
			defer gcpolicy.StartServer(cmd.ErrOrStderr())() // DL-0295
			sv, err := g.served(demo, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer sv.cleanup()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if httpAddr != "" {
				return serveMCPHTTP(ctx, sv, profile, httpAddr, token, lim, cmd.ErrOrStderr())
			}
			server := mcpserve.New(sv.reg, profile)
			if review != "" {
				stopDesk, err := startReview(sv.svc, review, token, cmd.ErrOrStderr())
				if err != nil {
					return err
				}
				defer stopDesk()
			}
			return mcpserve.ServeStdioWith(ctx, server, cmd.InOrStdin(), cmd.OutOrStdout(), *lim)
		},
	}

	cmd.Flags().StringVar(&tools, "tools", "fiction", "the tools offered: fiction (the compact profile) or all")
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve streamable HTTP on this host:port instead of stdio (loopback unless --token)")
	cmd.Flags().StringVar(&token, "token", "", "the bearer token HTTP clients must present (default $DELOREIS_MCP_TOKEN; off loopback at least 32 characters)")
	cmd.Flags().StringVar(&review, "review", "", "serve the reviewer's desk on this host:port beside stdio (loopback unless --token)")
	cmd.Flags().BoolVar(&demo, "demo", false, "serve the bundled demo project, built in a temporary folder")
	lim = limitsFlags(cmd)
	return cmd
}

// mcpProfile is the worker profile --tools names: the tools offered are
// its ops.
func mcpProfile(tools string) (worker.Profile, error) {
	switch tools {
	case "fiction", "":
		return worker.ProfileFiction, nil
	case "all":
		return worker.ProfileExtended, nil
	default:
		return "", usageError{fmt.Sprintf("--tools %q: want fiction or all", tools)}
	}
}

// checkMCPAddrs refuses the --http and --review addresses the token
// cannot guard, and --review beside --http, before anything is opened.
func checkMCPAddrs(httpAddr, review, token string) error {
	if httpAddr != "" {
		if err := mcpserve.CheckBind(httpAddr, token); err != nil {
			return usageError{err.Error()}
		}
		if review != "" {
			return usageError{"--review serves the desk beside stdio; under --http it is at / already"}
		}
	}
	if review != "" {
		if err := mcpserve.CheckBind(review, token); err != nil {
			return usageError{"--review: " + err.Error()}
		}
	}
	return nil
}

// serveMCPHTTP serves sv's tools of profile as streamable HTTP at /mcp on
// httpAddr, with the desk over sv at /, until ctx ends.
func serveMCPHTTP(ctx context.Context, sv *served, profile worker.Profile, httpAddr, token string, lim *mcpserve.Limits, stderr io.Writer) error {
	server := mcpserve.New(sv.reg, profile)
	// The desk at / beside /mcp: the workspaces it shows are
	// the ones this process holds.
	d, open := deskFor(sv.svc, httpAddr, token, stderr)
	if open {
		fmt.Fprintf(stderr, "deloreis: review desk: one-time login link %s\n", d.LoginLink("http://"+httpAddr))
	}
	return mcpserve.ServeHTTPWithPage(ctx, server, mcpserve.HTTPHandlerWith(server, token, *lim), d.Handler(), httpAddr, stderr, "MCP", *lim)
}
