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
// in and out stay open after it. A line that is not a JSON-RPC message is
// answered with a JSON-RPC error and the session goes on (LineTransport).
func ServeStdio(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer) error {
	return ServeStdioWith(ctx, s, in, out, DefaultLimits())
}

// ServeStdioWith is ServeStdio with lines capped at lim.MaxLine bytes.
func ServeStdioWith(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer, lim Limits) error {
	return s.Run(ctx, &LineTransport{In: in, Out: out, MaxLine: lim.orDefaults().MaxLine})
}

// ServeHTTP serves h (s behind its guards) on addr until ctx ends, and
// names the endpoint on stderr: "deloreis: <what> over streamable HTTP at
// <url><note>" (with the port chosen when addr asked for :0). The
// connections are capped and timed as lim says (h sets the rest of lim).
func ServeHTTP(ctx context.Context, s *mcp.Server, h http.Handler, addr string, stderr io.Writer, what, note string, lim Limits) error {
	return serveHTTP(ctx, s, h, addr, stderr, what, note, lim, nil)
}

// ServeHTTPWithPage is ServeHTTP with page served at / beside Path (the
// reviewer's desk), named on a line of its own: "deloreis: review desk at
// http://<addr>/".
func ServeHTTPWithPage(ctx context.Context, s *mcp.Server, h, page http.Handler, addr string, stderr io.Writer, what string, lim Limits) error {
	mux := http.NewServeMux()
	mux.Handle(Path, h)
	mux.Handle("/", page)
	return serveHTTP(ctx, s, mux, addr, stderr, what, "", lim, func(a net.Addr) {
		fmt.Fprintf(stderr, "deloreis: review desk at http://%s/\n", a)
	})
}

func serveHTTP(ctx context.Context, s *mcp.Server, h http.Handler, addr string, stderr io.Writer, what, note string, lim Limits, announce func(net.Addr)) error {
	lim = lim.orDefaults()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	ln := newCapListener(l, lim)
	srv := lim.httpServer(h)
	fmt.Fprintf(stderr, "deloreis: %s over streamable HTTP at http://%s%s%s\n", what, ln.Addr(), Path, note)
	if announce != nil {
		announce(ln.Addr())
	}
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
// token when one is given), under lim.
func Serve(ctx context.Context, reg *worker.Registry, profile worker.Profile, httpAddr, token string, lim Limits, in io.Reader, out, errw io.Writer) error {
	server := New(reg, profile)
	if httpAddr != "" {
		return ServeHTTP(ctx, server, HTTPHandlerWith(server, token, lim), httpAddr, errw, "MCP", "", lim)
	}
	return ServeStdioWith(ctx, server, in, out, lim)
}
