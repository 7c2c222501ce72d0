package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// A repository on this machine (a file:// URL or a plain path) is reached
// as git reaches it, through git's own upload-pack and receive-pack, run in
// their stateless form: the form git http-backend runs behind a web
// server. The smart-HTTP client (go-git's for fetching, ours for pushing)
// speaks to them through localGit, an http.RoundTripper that runs the
// command for each request instead of sending it over a network. go-git's
// file transport would do the same work over one long-lived process, but
// its package links go-git's in-process server, and with it the object
// model and an OpenPGP library whose initialisers cost every start of
// every deloreis command (DL-0511).

// localHost names the repository in the URLs the smart-HTTP clients build;
// localGit answers them without a network, and .invalid never resolves.
const localHost = "local.invalid"

// viaEndpoint is the smart-HTTP endpoint the clients are given for a
// remote that localGit or streamGit answers.
var viaEndpoint = &transport.Endpoint{Protocol: "http", Host: localHost, Path: "/repository"}

// dialVia opens a session for service whose smart-HTTP requests rt
// answers; closing the session closes rt when it holds a connection.
func dialVia(rt http.RoundTripper, service lorestore.Service) (lorestore.RemoteSession, error) {
	client := &http.Client{Transport: rt}
	closer, _ := rt.(io.Closer)
	switch service {
	case lorestore.UploadPack:
		s, err := githttp.NewClient(client).NewUploadPackSession(viaEndpoint, nil)
		if err != nil {
			return nil, err
		}
		return &session{up: s, common: s, conn: closer}, nil
	case lorestore.ReceivePack:
		s := newHTTPReceivePack(viaEndpoint)
		s.client = client
		return &session{rp: s, common: s, conn: closer}, nil
	}
	return nil, fmt.Errorf("wire: no service %q", service)
}

// localGit runs git upload-pack or receive-pack on dir for each smart-HTTP
// request: GET info/refs is the advertisement, POST git-<service> one
// exchange, its body the command's input and its answer the output.
type localGit struct{ dir string }

func (l localGit) RoundTrip(req *http.Request) (*http.Response, error) {
	service, advertise, err := localRequest(req)
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	args := []string{strings.TrimPrefix(service, "git-"), "--stateless-rpc"}
	if advertise {
		args = append(args, "--advertise-refs")
	}
	// "--" keeps a path that starts with a dash a path.
	cmd := exec.CommandContext(req.Context(), "git", append(args, "--", l.dir)...)
	if advertise {
		return l.advertisement(req, cmd, service)
	}
	return l.exchange(req, cmd, service)
}

// localRequest reads which service a request is for and whether it asks
// for the advertisement; anything else is not a request the clients make.
func localRequest(req *http.Request) (service string, advertise bool, err error) {
	switch {
	case req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, infoRefs):
		service = req.URL.Query().Get("service")
		advertise = true
	case req.Method == http.MethodPost:
		service = req.URL.Path[strings.LastIndexByte(req.URL.Path, '/')+1:]
	}
	if service != transport.UploadPackServiceName && service != transport.ReceivePackServiceName {
		return "", false, fmt.Errorf("wire: no local service for %s %s", req.Method, req.URL.Path)
	}
	return service, advertise, nil
}

// advertisement runs the command to its end (an advertisement is the
// refs, bounded by the repository) and answers as a smart-HTTP server: the
// service line, a flush, then what git printed. A directory that is not a
// repository answers 404, which the clients read as "repository not
// found", as they read a server's.
func (l localGit) advertisement(req *http.Request, cmd *exec.Cmd, service string) (*http.Response, error) {
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			return nil, fmt.Errorf("wire: run git %s: %w", service, err)
		}
		msg := strings.TrimSpace(stderr.String())
		return localResponse(req, http.StatusNotFound, "text/plain", io.NopCloser(strings.NewReader(msg))), nil
	}
	line := "# service=" + service + "\n"
	head := fmt.Sprintf("%04x%s0000", len(line)+4, line)
	body := io.NopCloser(io.MultiReader(strings.NewReader(head), &out))
	return localResponse(req, http.StatusOK, "application/x-"+service+"-advertisement", body), nil
}

// exchange starts the command with the request's body as its input and
// answers with its output as it comes: a fetched pack is streamed, not
// held. A command that fails says so, with what git wrote on stderr, at the
// end of the body.
func (l localGit) exchange(req *http.Request, cmd *exec.Cmd, service string) (*http.Response, error) {
	cmd.Stdin = req.Body
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		req.Body.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		req.Body.Close()
		return nil, fmt.Errorf("wire: run git %s: %w", service, err)
	}
	body := &commandOutput{out: out, in: req.Body, cmd: cmd, stderr: stderr, service: service}
	return localResponse(req, http.StatusOK, "application/x-"+service+"-result", body), nil
}

func localResponse(req *http.Request, status int, contentType string, body io.ReadCloser) *http.Response {
	return &http.Response{
		Status:     fmt.Sprintf("%d %s", status, http.StatusText(status)),
		StatusCode: status,
		Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": []string{contentType}},
		Body:          body,
		ContentLength: -1,
		Request:       req,
	}
}

// commandOutput is a running command's output as a response body: the
// command is waited for at its end or at Close, and a failure is the
// reader's error.
type commandOutput struct {
	out     io.ReadCloser
	in      io.Closer // the request's body, closed once the command is done with it
	cmd     *exec.Cmd
	stderr  *bytes.Buffer
	service string
	once    sync.Once
	err     error
}

func (c *commandOutput) Read(p []byte) (int, error) {
	n, err := c.out.Read(p)
	if errors.Is(err, io.EOF) {
		if werr := c.wait(); werr != nil {
			return n, werr
		}
	}
	return n, err
}

// Close ends the exchange; a command whose output was not read to its end
// is stopped first.
func (c *commandOutput) Close() error {
	c.out.Close()
	return c.wait()
}

func (c *commandOutput) wait() error {
	c.once.Do(func() {
		err := c.cmd.Wait()
		c.in.Close()
		if err != nil {
			msg := strings.TrimSpace(c.stderr.String())
			c.err = fmt.Errorf("wire: git %s: %v: %s", c.service, err, msg)
		}
	})
	return c.err
}
