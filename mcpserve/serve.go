// Running a server: over standard input and output, or over streamable
// HTTP until its context ends.

package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves s on in and out until the client closes the session;
// in and out stay open after it.
func ServeStdio(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer) error {
	return s.Run(ctx, &mcp.IOTransport{Reader: nopReadCloser{in}, Writer: nopWriteCloser{out}})
}

// nopReadCloser and nopWriteCloser leave standard input and output open
// when the session ends.
type nopReadCloser struct{ io.Reader }

func (nopReadCloser) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// ServeHTTP serves h (s behind its guards) on addr until ctx ends, and
// names the endpoint on stderr: "deloreis: <what> over streamable HTTP at
// <url><note>" (with the port chosen when addr asked for :0).
func ServeHTTP(ctx context.Context, s *mcp.Server, h http.Handler, addr string, stderr io.Writer, what, note string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "deloreis: %s over streamable HTTP at http://%s%s%s\n", what, ln.Addr(), Path, note)
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

// Serve serves reg's ops of profile as MCP tools until the client closes
// the session (stdio) or ctx ends (streamable HTTP at httpAddr, behind
// token when one is given).
func Serve(ctx context.Context, reg *worker.Registry, profile worker.Profile, httpAddr, token string, in io.Reader, out, errw io.Writer) error {
	server := New(reg, profile)
	if httpAddr != "" {
		return ServeHTTP(ctx, server, HTTPHandler(server, token), httpAddr, errw, "MCP", "")
	}
	return ServeStdio(ctx, server, in, out)
}
