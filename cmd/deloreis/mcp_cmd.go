// The mcp command: the same registry serve answers, offered as MCP tools
// over stdio (mcpserve), the compact fiction profile unless --tools all.

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/deloreis/deloreis/internal/gcpolicy"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

func newMCPCmd(g *globals) *cobra.Command {
	var tools, httpAddr, token string
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
be served.

With --http ADDR it serves streamable HTTP at http://ADDR/mcp instead
(loopback only, unless a bearer token is given with --token or
DELOREIS_MCP_TOKEN; a foreign Host or Origin header is refused) until
interrupted.`,
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
			if token == "" {
				token = os.Getenv("DELOREIS_MCP_TOKEN")
			}
			if httpAddr != "" {
				if err := mcpserve.CheckBind(httpAddr, token); err != nil {
					return usageError{err.Error()}
				}
			}
			defer gcpolicy.StartServer(cmd.ErrOrStderr())() // DL-0295
			reg, cleanup, err := g.registry(cmd.Flag("project").Changed, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer cleanup()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			server := mcpserve.New(reg, profile)
			if httpAddr != "" {
				return serveMCPHTTP(ctx, server, httpAddr, token, cmd.ErrOrStderr())
			}
			t := &mcp.IOTransport{Reader: io.NopCloser(cmd.InOrStdin()), Writer: nopWriteCloser{cmd.OutOrStdout()}}
			return server.Run(ctx, t)
		},
	}
	cmd.Flags().StringVar(&tools, "tools", "fiction", "the tools offered: fiction (the compact profile) or all")
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve streamable HTTP on this host:port instead of stdio (loopback unless --token)")
	cmd.Flags().StringVar(&token, "token", "", "the bearer token HTTP clients must present (default $DELOREIS_MCP_TOKEN)")
	return cmd
}

// nopWriteCloser leaves standard output open when the session ends.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// serveMCPHTTP serves the MCP server over streamable HTTP until ctx ends;
// it prints the endpoint (with the port chosen when ADDR asked for :0).
func serveMCPHTTP(ctx context.Context, s *mcp.Server, addr, token string, stderr io.Writer) error {
	return serveHTTP(ctx, s, mcpserve.HTTPHandler(s, token), addr, stderr, "MCP", "")
}

// serveHTTP serves h (s behind its guards) on addr until ctx ends, and
// names the endpoint on stderr: "deloreis: <what> over streamable HTTP at
// <url><note>".
func serveHTTP(ctx context.Context, s *mcp.Server, h http.Handler, addr string, stderr io.Writer, what, note string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "deloreis: %s over streamable HTTP at http://%s%s%s\n", what, ln.Addr(), mcpserve.Path, note)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return stopMCPHTTP(s, srv)
	}
}

// stopMCPHTTP ends a signal-stopped server cleanly. A client's standing
// GET stream keeps its connection busy, so http.Server.Shutdown alone would
// wait on it: the MCP sessions are closed first, which ends their streams,
// and connections still busy after a short grace are closed outright. A
// stop asked for by a signal is a clean exit either way.
func stopMCPHTTP(s *mcp.Server, srv *http.Server) error {
	for ss := range s.Sessions() {
		ss.Close()
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := srv.Shutdown(shut)
	if errors.Is(err, context.DeadlineExceeded) {
		err = srv.Close()
	}
	return ignoreClosed(err)
}

// ignoreClosed drops http.ErrServerClosed, the error a stopped server's
// Serve and Close report by design.
func ignoreClosed(err error) error {
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
