// Package netparts is the network half of the command line: the MCP
// servers (the author and dli tools, the DKE tools behind their keys),
// the casebook replay that drives them, and go-git's transports for
// remotes. Only deloreis-net links it (DL-0330): the MCP SDK, net/http,
// TLS, ssh and OpenPGP cost the deloreis command a few milliseconds of
// start-up on every run, more than a whole `log -n 2` over a big store.
//
// It depends on no package of the command line itself; internal/cli reaches
// it through cli.Net, which cmd/deloreis-net fills in.
package netparts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/deloreis/deloreis/internal/gcpolicy"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/lorestore/wire"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Parts is the network half, as cli.Net asks for it: cmd/deloreis-net
// and the command line's tests hand Parts{} to the command line.
type Parts struct{}

// Transports opens a session with a remote: package wire's, over every
// transport go-git speaks (file://, git://, ssh, http and https).
func (Parts) Transports(ctx context.Context, url string, service lorestore.Service) (lorestore.RemoteSession, error) {
	return wire.Dial(ctx, url, service)
}

// StartServer sets a server's GC policy (DL-0295); the returned function
// ends it (internal/gcpolicy.StartServer). The runtime metrics it reads
// cost every program that links them a little start-up.
func (Parts) StartServer(stderr io.Writer) (stop func()) { return gcpolicy.StartServer(stderr) }

// CheckBind refuses an HTTP address a server must not listen on: anything
// but loopback without a bearer token.
func (Parts) CheckBind(addr, token string) error { return mcpserve.CheckBind(addr, token) }

// ServeMCP serves reg's ops of profile as MCP tools until the client
// closes the session (stdio) or ctx ends (streamable HTTP at httpAddr,
// behind token when one is given).
func (Parts) ServeMCP(ctx context.Context, reg *worker.Registry, profile worker.Profile, httpAddr, token string, in io.Reader, out, errw io.Writer) error {
	server := mcpserve.New(reg, profile)
	if httpAddr != "" {
		return serveHTTP(ctx, server, mcpserve.HTTPHandler(server, token), httpAddr, errw, "MCP", "")
	}
	return runStdio(ctx, server, in, out)
}

// runStdio serves s on standard input and output.
func runStdio(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer) error {
	return s.Run(ctx, &mcp.IOTransport{Reader: nopReadCloser{in}, Writer: nopWriteCloser{out}})
}

// nopReadCloser and nopWriteCloser leave standard input and output open
// when the session ends.
type nopReadCloser struct{ io.Reader }

func (nopReadCloser) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// serveHTTP serves h (s behind its guards) on addr until ctx ends, and
// names the endpoint on stderr: "deloreis: <what> over streamable HTTP at
// <url><note>" (with the port chosen when ADDR asked for :0).
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
		return stopHTTP(s, srv)
	}
}

// stopHTTP ends a signal-stopped server cleanly. A client's standing GET
// stream keeps its connection busy, so http.Server.Shutdown alone would
// wait on it: the MCP sessions are closed first, which ends their streams,
// and connections still busy after a short grace are closed outright. A
// stop asked for by a signal is a clean exit either way.
func stopHTTP(s *mcp.Server, srv *http.Server) error {
	for ss := range s.Sessions() {
		ss.Close()
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := srv.Shutdown(shut)
	if errors.Is(err, context.DeadlineExceeded) {
		err = srv.Close()
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil // what a stopped server's Serve and Close report by design
	}
	return err
}
