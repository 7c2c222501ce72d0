package wire

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
)

// ssh:// (and scp-like host:path) and git:// remotes speak git's stateful
// protocol over one connection: the advertisement first, then the
// client's request and the server's answer. streamGit carries that
// exchange under the smart-HTTP one the clients speak (localGit's does the
// same for a local repository): GET info/refs opens the connection and
// answers with its advertisement; POST sends the body down the same
// connection and answers with the rest of what the server says. A fetch
// that sends wants, haves and "done" in one request, as the smart-HTTP
// client does, is byte for byte what a stateful client sends.
//
// ssh is the system's ssh program, run as git runs it (GIT_SSH_COMMAND,
// else GIT_SSH, else ssh; `-p PORT`, then the host, then the remote
// command), so ~/.ssh/config, the agent and known_hosts work as they do
// for git; the protocol is not linked into the program (DL-0511).

// streamConn is one stateful connection to a remote's service.
type streamConn interface {
	io.Reader
	io.Writer
	// CloseWrite ends what the client sends.
	CloseWrite() error
	// Close ends the connection; its error says why the remote failed.
	Close() error
}

// streamGit adapts a stateful connection to the smart-HTTP exchange.
type streamGit struct {
	ctx  context.Context
	open func(ctx context.Context, service string) (streamConn, error)

	mu      sync.Mutex
	conn    streamConn // advertised, waiting for its request
	service string
	out     *bufio.Reader
}

func (s *streamGit) RoundTrip(req *http.Request) (*http.Response, error) {
	service, advertise, err := localRequest(req)
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	if advertise {
		return s.advertise(req, service)
	}
	return s.exchange(req, service)
}

// advertise opens a connection for service and answers with its
// advertisement, keeping the connection for the request that follows.
func (s *streamGit) advertise(req *http.Request, service string) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeLocked()
	c, err := s.open(s.ctx, service)
	if err != nil {
		return nil, err
	}
	out := bufio.NewReader(c)
	adv, err := readAdvertisement(out)
	if err != nil {
		cerr := c.Close()
		msg := err.Error()
		if cerr != nil {
			msg = cerr.Error()
		}
		return localResponse(req, http.StatusNotFound, "text/plain", io.NopCloser(strings.NewReader(msg))), nil
	}
	s.conn, s.service, s.out = c, service, out
	line := "# service=" + service + "\n"
	head := fmt.Sprintf("%04x%s0000", len(line)+4, line)
	body := io.NopCloser(strings.NewReader(head + string(adv)))
	return localResponse(req, http.StatusOK, "application/x-"+service+"-advertisement", body), nil
}

// readAdvertisement reads pkt-lines up to and including the flush that
// ends the advertisement; an ERR line is the remote's refusal.
func readAdvertisement(r *bufio.Reader) ([]byte, error) {
	var adv []byte
	for {
		var hdr [4]byte
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return nil, fmt.Errorf("wire: the remote ended before its advertisement: %w", err)
		}
		n, err := strconv.ParseUint(string(hdr[:]), 16, 16)
		if err != nil || (n > 0 && n < 4) {
			return nil, fmt.Errorf("wire: the remote's advertisement is not pkt-lines (%q)", hdr[:])
		}
		adv = append(adv, hdr[:]...)
		if n == 0 {
			return adv, nil
		}
		start := len(adv)
		adv = append(adv, make([]byte, n-4)...)
		if _, err := io.ReadFull(r, adv[start:]); err != nil {
			return nil, fmt.Errorf("wire: the remote's advertisement was cut short: %w", err)
		}
		if msg, ok := strings.CutPrefix(string(adv[start:]), "ERR "); ok {
			return nil, errors.New(strings.TrimSpace(msg))
		}
	}
}

// exchange sends the request's body down the advertised connection and
// answers with what the remote says until it closes.
func (s *streamGit) exchange(req *http.Request, service string) (*http.Response, error) {
	s.mu.Lock()
	c, out := s.conn, s.out
	if c == nil || s.service != service {
		s.mu.Unlock()
		req.Body.Close()
		return nil, fmt.Errorf("wire: a %s request with no %s advertisement before it", service, service)
	}
	s.conn, s.out = nil, nil
	s.mu.Unlock()
	sent := make(chan error, 1)
	go func() {
		_, err := io.Copy(c, req.Body)
		req.Body.Close()
		if err == nil {
			err = c.CloseWrite()
		}
		sent <- err
	}()
	body := &streamOutput{r: out, c: c, sent: sent}
	return localResponse(req, http.StatusOK, "application/x-"+service+"-result", body), nil
}

// Close ends a connection that was advertised but never asked: a flush
// tells the remote there is nothing to fetch or to update.
func (s *streamGit) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closeLocked()
}

func (s *streamGit) closeLocked() error {
	if s.conn == nil {
		return nil
	}
	c := s.conn
	s.conn, s.out = nil, nil
	c.Write([]byte("0000"))
	c.CloseWrite()
	return c.Close()
}

// streamOutput is the rest of a connection's output as a response body.
type streamOutput struct {
	r    io.Reader
	c    streamConn
	sent chan error
	once sync.Once
	err  error
}

func (o *streamOutput) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	if errors.Is(err, io.EOF) {
		if cerr := o.close(); cerr != nil {
			return n, cerr
		}
	}
	return n, err
}

func (o *streamOutput) Close() error { return o.close() }

func (o *streamOutput) close() error {
	o.once.Do(func() {
		cerr := o.c.Close()
		serr := <-o.sent
		o.err = cmpErr(cerr, serr)
	})
	return o.err
}

// cmpErr is the connection's own failure if it has one (it carries the
// remote's message), else the failure to send.
func cmpErr(conn, send error) error {
	if conn != nil {
		return conn
	}
	return send
}

// sshQuote quotes s for the remote shell as git does: in single quotes,
// with a single quote and an exclamation mark taken outside them.
func sshQuote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\'', '!':
			b.WriteString(`'\` + string(r) + `'`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// sshCommand is the program and arguments that run service on the remote
// at ep, as git builds them.
func sshCommand(ep *transport.Endpoint, service string) ([]string, error) {
	host := ep.Host
	if strings.HasPrefix(host, "-") || strings.HasPrefix(ep.User, "-") {
		return nil, fmt.Errorf("wire: the ssh host %q begins with a dash", ep.User+"@"+host)
	}
	if ep.User != "" {
		host = ep.User + "@" + host
	}
	var args []string
	if ep.Port != 0 && ep.Port != 22 { // 22: ssh's own default, which go-git fills in for host:path
		args = append(args, "-p", strconv.Itoa(ep.Port))
	}
	path := ep.Path
	if strings.HasPrefix(path, "/~") {
		path = path[1:]
	}
	args = append(args, host, service+" "+sshQuote(path))
	if c := os.Getenv("GIT_SSH_COMMAND"); c != "" {
		return append([]string{"sh", "-c", c + ` "$@"`, c}, args...), nil
	}
	if p := os.Getenv("GIT_SSH"); p != "" {
		return append([]string{p}, args...), nil
	}
	return append([]string{"ssh"}, args...), nil
}

// openSSH starts ssh for service on the remote at ep.
func openSSH(ep *transport.Endpoint) func(context.Context, string) (streamConn, error) {
	return func(ctx context.Context, service string) (streamConn, error) {
		argv, err := sshCommand(ep, service)
		if err != nil {
			return nil, err
		}
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		return startCommand(cmd, service)
	}
}

// commandConn is a running command as a connection: its stdin and stdout.
type commandConn struct {
	io.Reader
	in      io.WriteCloser
	cmd     *exec.Cmd
	stderr  *limitedBuffer
	service string
	once    sync.Once
	err     error
}

func startCommand(cmd *exec.Cmd, service string) (*commandConn, error) {
	c := &commandConn{cmd: cmd, stderr: &limitedBuffer{max: 64 << 10}, service: service}
	cmd.Stderr = c.stderr
	var err error
	if c.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if c.Reader, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("wire: run %s: %w", cmd.Path, err)
	}
	return c, nil
}

func (c *commandConn) Write(p []byte) (int, error) { return c.in.Write(p) }
func (c *commandConn) CloseWrite() error           { return c.in.Close() }

func (c *commandConn) Close() error {
	c.once.Do(func() {
		c.in.Close()
		if err := c.cmd.Wait(); err != nil {
			msg := strings.TrimSpace(c.stderr.String())
			c.err = fmt.Errorf("wire: %s over ssh: %v: %s", c.service, err, msg)
		}
	})
	return c.err
}

// limitedBuffer keeps the first max bytes written to it: what a remote
// says on stderr, bounded.
type limitedBuffer struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.max - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b)
}

// openDaemon connects to a git daemon (git://) for service on the
// repository at ep: the request line names the service, the path and the
// host, as git sends it.
func openDaemon(ep *transport.Endpoint) func(context.Context, string) (streamConn, error) {
	return func(ctx context.Context, service string) (streamConn, error) {
		port := ep.Port
		if port == 0 {
			port = 9418
		}
		addr := net.JoinHostPort(ep.Host, strconv.Itoa(port))
		d := net.Dialer{Timeout: 30 * time.Second}
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		host := ep.Host
		if ep.Port != 0 {
			host = addr
		}
		line := service + " " + ep.Path + "\x00host=" + host + "\x00"
		if _, err := fmt.Fprintf(conn, "%04x%s", len(line)+4, line); err != nil {
			conn.Close()
			return nil, err
		}
		return tcpConn{conn.(*net.TCPConn)}, nil
	}
}

// tcpConn is a git daemon's connection.
type tcpConn struct{ *net.TCPConn }

func (t tcpConn) CloseWrite() error { return t.TCPConn.CloseWrite() }
