// What a client can hold of a server: every resource of the HTTP endpoint
// has a cap or a timeout (DL-0419), and a stdio line has a length cap.

package mcpserve

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits bound what clients may hold of a server. A zero field takes its
// default (DefaultLimits); the command line's flags set them.
type Limits struct {
	// MaxLine is the longest stdio line, in bytes.
	MaxLine int
	// SessionIdle closes an HTTP session that has had no request for this
	// long; its client must initialize again (the MCP spec's 404).
	SessionIdle time.Duration
	// MaxSessions caps the live HTTP sessions; a request that would open
	// one more is answered 503.
	MaxSessions int
	// HeaderTimeout bounds the reading of a request's headers, BodyTimeout
	// the reading of its body (from the end of its headers), IdleTimeout
	// how long a kept-alive connection may wait for its next request,
	// WriteTimeout each write of a response (a client that stops reading
	// loses its connection; a long call or a quiet stream writes nothing
	// and is not timed).
	HeaderTimeout, BodyTimeout, IdleTimeout, WriteTimeout time.Duration
	// MaxBody caps a request body, in bytes (413 past it).
	MaxBody int64
	// MaxConns caps the open connections, MaxConnsPerClient those from one
	// client address; a connection past either is answered 503 and closed.
	MaxConns, MaxConnsPerClient int
}

// DefaultLimits are the limits a server runs under unless told otherwise.
func DefaultLimits() Limits {
	return Limits{
		MaxLine:           DefaultMaxLine,
		SessionIdle:       30 * time.Minute,
		MaxSessions:       1000,
		HeaderTimeout:     10 * time.Second,
		BodyTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		WriteTimeout:      30 * time.Second,
		MaxBody:           mcp.DefaultMaxRequestBodyBytes,
		MaxConns:          256,
		MaxConnsPerClient: 64,
	}
}

// orDefaults fills l's zero fields from DefaultLimits.
func (l Limits) orDefaults() Limits {
	d := DefaultLimits()
	set := func(v *time.Duration, dv time.Duration) {
		if *v <= 0 {
			*v = dv
		}
	}
	set(&l.SessionIdle, d.SessionIdle)
	set(&l.HeaderTimeout, d.HeaderTimeout)
	set(&l.BodyTimeout, d.BodyTimeout)
	set(&l.IdleTimeout, d.IdleTimeout)
	set(&l.WriteTimeout, d.WriteTimeout)
	if l.MaxLine <= 0 {
		l.MaxLine = d.MaxLine
	}
	if l.MaxSessions <= 0 {
		l.MaxSessions = d.MaxSessions
	}
	if l.MaxBody <= 0 {
		l.MaxBody = d.MaxBody
	}
	if l.MaxConns <= 0 {
		l.MaxConns = d.MaxConns
	}
	if l.MaxConnsPerClient <= 0 {
		l.MaxConnsPerClient = d.MaxConnsPerClient
	}
	return l
}

// streamableOptions are go-sdk's handler options under l: idle sessions
// expire, bodies are capped. (Its PropagateRequestCancellation concerns
// the stateless protocol only, which a server with sessions does not
// speak; a closed request cancels its call through callContext.)
func (l Limits) streamableOptions() *mcp.StreamableHTTPOptions {
	return &mcp.StreamableHTTPOptions{SessionTimeout: l.SessionIdle, MaxRequestBodyBytes: l.MaxBody}
}

// withDeadlines wraps h: a request's body must arrive within l.BodyTimeout
// (from the end of its headers), and each write of its response must be
// taken within l.WriteTimeout. It is the outermost wrapper, so that a
// request refused before its body is read (401) cannot hold the connection
// while net/http drains the body either.
func withDeadlines(h http.Handler, l Limits) http.Handler {
	return withWriteDeadline(withBodyDeadline(h, l.BodyTimeout), l.WriteTimeout)
}

// withWriteDeadline gives each write and flush of a response d to be
// taken, and what net/http writes after the handler too.
func withWriteDeadline(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if rc.SetWriteDeadline(time.Now().Add(d)) != nil {
			h.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(&deadlineWriter{ResponseWriter: w, rc: rc, d: d}, r)
		_ = rc.SetWriteDeadline(time.Now().Add(d))
	})
}

// deadlineWriter moves the write deadline before each write and flush.
type deadlineWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.d))
	return w.ResponseWriter.Write(p)
}

func (w *deadlineWriter) Flush() {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.d))
	_ = w.rc.Flush()
}

func (w *deadlineWriter) FlushError() error {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.d))
	return w.rc.Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func withBodyDeadline(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			// net/http lifts the deadline itself once the body has been
			// read to its end (when it starts watching for the client
			// going away); a body cut short keeps it, so that draining
			// what is left of it after the handler is bounded too.
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
		}
		h.ServeHTTP(w, r)
	})
}

// httpServer is the http.Server of h under l.
func (l Limits) httpServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: l.HeaderTimeout, IdleTimeout: l.IdleTimeout}
}

// capListener caps the connections it hands out, in total and per client
// address; one past a cap is answered 503 and closed.
type capListener struct {
	net.Listener
	max, perClient int

	mu     sync.Mutex
	total  int
	byHost map[string]int

	refusing atomic.Int32 // connections being answered 503
}

// maxRefusing bounds the connections answered 503 at once; past it a
// connection over a cap is closed without an answer.
const maxRefusing = 64

func newCapListener(ln net.Listener, l Limits) *capListener {
	return &capListener{Listener: ln, max: l.MaxConns, perClient: l.MaxConnsPerClient, byHost: map[string]int{}}
}

func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		host := remoteHost(c)
		l.mu.Lock()
		var over string
		switch {
		case l.total >= l.max:
			over = fmt.Sprintf("the server holds its maximum of %d connections", l.max)
		case l.byHost[host] >= l.perClient:
			over = fmt.Sprintf("this client address holds its maximum of %d connections", l.perClient)
		default:
			l.total++
			l.byHost[host]++
		}
		l.mu.Unlock()
		if over == "" {
			return &capConn{Conn: c, l: l, host: host}, nil
		}
		if l.refusing.Add(1) > maxRefusing {
			l.refusing.Add(-1)
			c.Close()
			continue
		}
		go func() {
			defer l.refusing.Add(-1)
			refuse(c, over)
		}()
	}
}

// release gives back a connection's place.
func (l *capListener) release(host string) {
	l.mu.Lock()
	l.total--
	if l.byHost[host]--; l.byHost[host] <= 0 {
		delete(l.byHost, host)
	}
	l.mu.Unlock()
}

// remoteHost is a connection's client address without its port.
func remoteHost(c net.Conn) string {
	a := c.RemoteAddr().String()
	if h, _, err := net.SplitHostPort(a); err == nil {
		return h
	}
	return a
}

// refuse answers a connection over a cap with 503 and closes it, giving
// the client a second to send its request head (an answer before the
// request is one clients drop as unsolicited) and read the answer.
func refuse(c net.Conn, why string) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	var head []byte
	buf := make([]byte, 4096)
	for len(head) < 16<<10 && !bytes.Contains(head, []byte("\r\n\r\n")) {
		n, err := c.Read(buf)
		head = append(head, buf[:n]...)
		if err != nil {
			break
		}
	}
	body := "Service Unavailable: " + why + "; retry later\n"
	_, err := io.WriteString(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: "+
		strconv.Itoa(len(body))+"\r\n\r\n"+body)
	if err != nil {
		return
	}
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		_ = tc.CloseWrite()
	}
	// Read what else the client sends until it closes (or the second
	// ends), so that closing does not reset the connection before the
	// client read the 503.
	_, _ = io.Copy(io.Discard, io.LimitReader(c, 1<<16))
}

// capConn gives its place back once, when closed.
type capConn struct {
	net.Conn
	l    *capListener
	host string
	once sync.Once
}

func (c *capConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.release(c.host) })
	return err
}
