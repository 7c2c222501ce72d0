// The reviewer's desk beside a server: at / under mcp --http, or on its
// own address (--review ADDR) while mcp or serve talk over stdio.

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/desk"
	"github.com/deloreis/deloreis/mcpserve"
)

const reviewHelp = `
With --review ADDR the reviewer's desk, web pages where a person reads what
agents staged and decides, is served at http://ADDR/ while the server
talks over stdio (under --http it is served at / beside /mcp). ADDR is
loopback unless a bearer token guards it (--token or DELOREIS_MCP_TOKEN);
beyond loopback a browser logs in through a one-time link printed on
standard error. A decision made on the desk goes through the same op and
digest fence as an agent's: a page rendered before the workspace changed
is refused with a reload, never applied.
`

// deskFor is the desk over svc for a listener on addr, and whether it is
// open beyond loopback (then a token or a login link is needed).
func deskFor(svc *author.Service, addr, token string, stderr io.Writer) (*desk.Desk, bool) {
	host, _, _ := net.SplitHostPort(addr)
	ip := net.ParseIP(host)
	open := !(host == "localhost" || (ip != nil && ip.IsLoopback()))
	return desk.New(svc, desk.Options{Token: token, Open: open, Log: stderr}), open
}

// announceDesk names the desk on stderr, with a one-time login link when
// it is open beyond loopback.
func announceDesk(d *desk.Desk, addr string, open bool, stderr io.Writer) {
	fmt.Fprintf(stderr, "deloreis: review desk at http://%s/\n", addr)
	if open {
		fmt.Fprintf(stderr, "deloreis: review desk: one-time login link %s\n", d.LoginLink("http://"+addr))
	}
}

// startReview serves the desk on addr until the returned stop is called.
func startReview(svc *author.Service, addr, token string, stderr io.Writer) (stop func(), err error) {
	if err := mcpserve.CheckBind(addr, token); err != nil {
		return nil, usageError{"--review: " + err.Error()}
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--review: %w", err)
	}
	d, open := deskFor(svc, l.Addr().String(), token, stderr)
	srv := &http.Server{Handler: d.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	announceDesk(d, l.Addr().String(), open, stderr)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "deloreis: review desk: %v\n", err)
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			srv.Close()
		}
		<-done
	}, nil
}
