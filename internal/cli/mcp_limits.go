// The limits flags of mcp and dke mcp: what one client may hold of the
// server (DL-0419).

package cli

import (
	"fmt"

	"github.com/deloreis/deloreis/mcpserve"
	"github.com/spf13/cobra"
)

// limitsFlags binds the limits flags of cmd to a Limits, their defaults
// mcpserve.DefaultLimits.
func limitsFlags(cmd *cobra.Command) *mcpserve.Limits {
	l := mcpserve.DefaultLimits()
	f := cmd.Flags()
	f.IntVar(&l.MaxLine, "max-line", l.MaxLine, "stdio: the longest request line in bytes (a longer one is answered with a JSON-RPC error)")
	f.DurationVar(&l.SessionIdle, "session-idle", l.SessionIdle, "HTTP: close a session after this long without a request (its client initializes again)")
	f.IntVar(&l.MaxSessions, "max-sessions", l.MaxSessions, "HTTP: the most live sessions; one more closes the session idle longest (503 when every one has a call in flight)")
	f.DurationVar(&l.HeaderTimeout, "header-timeout", l.HeaderTimeout, "HTTP: a request's headers must arrive within this")
	f.DurationVar(&l.BodyTimeout, "body-timeout", l.BodyTimeout, "HTTP: a request's body must arrive within this after its headers")
	f.DurationVar(&l.IdleTimeout, "idle-timeout", l.IdleTimeout, "HTTP: close a kept-alive connection idle this long")
	f.DurationVar(&l.WriteTimeout, "write-timeout", l.WriteTimeout, "HTTP: drop a client that does not take a write of its response within this")
	f.Int64Var(&l.MaxBody, "max-body", l.MaxBody, "HTTP: the largest request body in bytes (413 past it)")
	f.IntVar(&l.MaxConns, "max-conns", l.MaxConns, "HTTP: the most open connections; one more is answered 503 and closed")
	f.IntVar(&l.MaxConnsPerClient, "max-conns-per-client", l.MaxConnsPerClient, "HTTP: the most open connections from one client address; one more is answered 503")
	return &l
}

// checkLimits refuses a limit that is not positive (a usage error).
func checkLimits(l *mcpserve.Limits) error {
	for _, v := range []struct {
		name string
		ok   bool
	}{
		{"--max-line", l.MaxLine > 0},
		{"--session-idle", l.SessionIdle > 0},
		{"--max-sessions", l.MaxSessions > 0},
		{"--header-timeout", l.HeaderTimeout > 0},
		{"--body-timeout", l.BodyTimeout > 0},
		{"--idle-timeout", l.IdleTimeout > 0},
		{"--write-timeout", l.WriteTimeout > 0},
		{"--max-body", l.MaxBody > 0},
		{"--max-conns", l.MaxConns > 0},
		{"--max-conns-per-client", l.MaxConnsPerClient > 0},
	} {
		if !v.ok {
			return usageError{fmt.Sprintf("%s must be positive", v.name)}
		}
	}
	return nil
}

// limitsHelp is the part of a serving command's help that names the
// limits.
const limitsHelp = `
Over HTTP every resource a client can hold is bounded (the defaults in
the flags' help): sessions idle past --session-idle are closed, and past
--max-sessions a new session closes the one idle longest; headers and
bodies must arrive within --header-timeout and --body-timeout; a client
must take each write of a response within --write-timeout; a body is at
most --max-body bytes; at most --max-conns connections are open,
--max-conns-per-client from one client address, and one past a cap is
answered 503 and closed. A client that closes the HTTP request of a
call, or sends notifications/cancelled, cancels the call. On stdio a
line that is not a JSON-RPC message (or is longer than --max-line) is
answered with a JSON-RPC error (-32700 or -32600) and the session goes
on.`
