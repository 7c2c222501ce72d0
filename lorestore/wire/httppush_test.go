package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
)

// serveBackend serves the bare repositories under base with real git's
// git-http-backend (CGI, pushes allowed) on 127.0.0.1, the handler passed
// through wrap, and returns the URL prefix.
func serveBackend(t *testing.T, base string, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = &cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + base, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1"},
	}
	h = unchunk(h)
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// unchunk lets a chunked request through to CGI, which net/http/cgi
// refuses though web servers in front of git-http-backend take it (git
// itself sends a big push chunked): without CONTENT_LENGTH the backend
// reads the body to its end.
func unchunk(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.TransferEncoding) > 0 {
			r2 := *r
			r2.TransferEncoding = nil
			r = &r2
		}
		next.ServeHTTP(w, r)
	})
}

// history is a source repository with c1 ← c2 ← c3 and x, a child of c1
// that contains neither c2 nor c3, and a bare remote under base that holds
// c1 alone, as main, pushes allowed.
type history struct {
	src, base, remote string
	c1, c2, c3, x     lorestore.Hash
}

func newHistory(t *testing.T) *history {
	t.Helper()
	h := &history{base: t.TempDir()}
	h.src = filepath.Join(t.TempDir(), "src")
	git(t, "/", nil, "init", "-q", "-b", "main", h.src)
	commit := func(name string) lorestore.Hash {
		os.WriteFile(filepath.Join(h.src, name), []byte(name+"\n"), 0o644)
		git(t, h.src, nil, "add", name)
		git(t, h.src, nil, "commit", "-q", "-m", name)
		return lorestore.NewHash(strings.TrimSpace(git(t, h.src, nil, "rev-parse", "HEAD")))
	}
	h.c1 = commit("one")
	h.remote = filepath.Join(h.base, "r.git")
	git(t, "/", nil, "clone", "-q", "--bare", h.src, h.remote)
	git(t, h.remote, nil, "config", "http.receivepack", "true")
	h.c2, h.c3 = commit("two"), commit("three")
	git(t, h.src, nil, "checkout", "-q", "-b", "x", h.c1.String())
	h.x = commit("ex")
	return h
}

// pack is the objects of tip that have does not reach, from the source.
func (h *history) pack(t *testing.T, tip, have lorestore.Hash) io.Reader {
	t.Helper()
	revs := tip.String() + "\n^" + have.String() + "\n"
	return strings.NewReader(git(t, h.src, strings.NewReader(revs), "pack-objects", "--stdout", "--revs", "-q"))
}

func (h *history) ref(t *testing.T, name string) lorestore.Hash {
	t.Helper()
	out, _ := exec.Command("git", "--git-dir", h.remote, "rev-parse", "-q", "--verify", name).Output()
	return lorestore.NewHash(strings.TrimSpace(string(out)))
}

// push dials url for receive-pack and sends cmd with pack.
func push(url string, cmd lorestore.RefCommand, pack io.Reader) (*lorestore.PushReport, error) {
	sess, err := Dial(context.Background(), url, lorestore.ReceivePack)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	if _, err := sess.Advertised(context.Background()); err != nil {
		return nil, err
	}
	return sess.PushPack(context.Background(), []lorestore.RefCommand{cmd}, pack)
}

// basicAuth lets through only requests with user and password.
func basicAuth(user, pass string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u, p, ok := r.BasicAuth(); !ok || u != user || p != pass {
				w.Header().Set("WWW-Authenticate", `Basic realm="t"`)
				http.Error(w, "who are you", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// TestHTTPPush: over real git-http-backend, a push creates a branch and
// fast-forwards it; a stale lease and a non-fast-forward (the remote denies
// them) are refused in the report with an error and the ref stays; the
// URL's credentials are sent; the remote is fsck-clean afterwards. The
// cases run in order on one remote.
func TestHTTPPush(t *testing.T) {
	h := newHistory(t)
	git(t, h.remote, nil, "config", "receive.denyNonFastForwards", "true")
	url := serveBackend(t, h.base, basicAuth("ann", "s3cr:t")) + "r.git"
	authed := strings.Replace(url, "http://", "http://ann:s3cr%3At@", 1)
	tests := []struct {
		name      string
		cmd       lorestore.RefCommand
		tip, have lorestore.Hash
		refused   string // the report's status for the ref; "" is ok
	}{
		{"create", lorestore.RefCommand{Ref: "refs/heads/topic", New: h.c2}, h.c2, h.c1, ""},
		{"stale lease", lorestore.RefCommand{Ref: "refs/heads/topic", Old: h.c1, New: h.c3}, h.c3, h.c1, "failed to update ref"},
		{"fast-forward", lorestore.RefCommand{Ref: "refs/heads/topic", Old: h.c2, New: h.c3}, h.c3, h.c2, ""},
		{"non-fast-forward", lorestore.RefCommand{Ref: "refs/heads/topic", Old: h.c3, New: h.x}, h.x, h.c1, "non-fast-forward"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := h.ref(t, tc.cmd.Ref)
			report, err := push(authed, tc.cmd, h.pack(t, tc.tip, tc.have))
			if report == nil || report.Unpack != "ok" || len(report.Refs) != 1 || report.Refs[0].Ref != tc.cmd.Ref {
				t.Fatalf("report %+v (%v)", report, err)
			}
			want, after := tc.cmd.New, h.ref(t, tc.cmd.Ref)
			if tc.refused == "" {
				if report.Refs[0].Status != "ok" || err != nil {
					t.Fatalf("status %q, error %v", report.Refs[0].Status, err)
				}
			} else {
				want = before
				if report.Refs[0].Status != tc.refused || err == nil || err.Error() != report.Err().Error() {
					t.Fatalf("status %q, error %v; want %q and its error", report.Refs[0].Status, err, tc.refused)
				}
			}
			if after != want {
				t.Fatalf("%s is %s, want %s", tc.cmd.Ref, after, want)
			}
		})
	}
	if _, err := push(url, tests[0].cmd, h.pack(t, h.c2, h.c1)); !errors.Is(err, transport.ErrAuthenticationRequired) {
		t.Errorf("a push without the URL's credentials: %v", err)
	}
	git(t, h.remote, nil, "fsck", "--strict", "--no-progress")
}

// gate is a pack that gives its first free bytes and then waits until the
// server has seen the request's first bytes, or a while has passed: a
// client that reads the whole pack before it sends anything fails on it.
type gate struct {
	seen <-chan struct{}
	r    io.Reader
	free int
}

var errNotStreamed = errors.New("the server saw nothing of the push while its pack was held back")

func (g *gate) Read(p []byte) (int, error) {
	if g.free > 0 {
		n, err := g.r.Read(p[:min(len(p), g.free)])
		g.free -= n
		return n, err
	}
	if g.seen != nil {
		select {
		case <-g.seen:
			g.seen = nil
		case <-time.After(10 * time.Second):
			return 0, errNotStreamed
		}
	}
	return g.r.Read(p)
}

// watched is a request body that records its first bytes and says when
// they came.
type watched struct {
	io.ReadCloser
	once  sync.Once
	seen  chan struct{}
	first []byte // set before seen is closed
}

func (w *watched) Read(p []byte) (int, error) {
	n, err := w.ReadCloser.Read(p)
	if n > 0 {
		w.once.Do(func() {
			w.first = append([]byte(nil), p[:min(n, 200)]...)
			close(w.seen)
		})
	}
	return n, err
}

// bigCommit commits, on a branch of c1, a file of random bytes bigger than
// postBuffer, so that its pack is too.
func (h *history) bigCommit(t *testing.T) lorestore.Hash {
	t.Helper()
	git(t, h.src, nil, "checkout", "-q", "-b", "big", h.c1.String())
	data := make([]byte, postBuffer+postBuffer/2)
	rand.New(rand.NewSource(1)).Read(data)
	os.WriteFile(filepath.Join(h.src, "big"), data, 0o644)
	git(t, h.src, nil, "add", "big")
	git(t, h.src, nil, "commit", "-q", "-m", "big")
	return lorestore.NewHash(strings.TrimSpace(git(t, h.src, nil, "rev-parse", "HEAD")))
}

// TestHTTPPushStreams: a push that fits in postBuffer goes with its length,
// as git sends it; a bigger one is chunked, and its commands reach the
// server while the rest of the pack is held back. Both carry git's content
// types, move the ref and leave the remote fsck-clean.
func TestHTTPPushStreams(t *testing.T) {
	h := newHistory(t)
	big := h.bigCommit(t)
	tests := []struct {
		name    string
		tip     lorestore.Hash
		chunked bool
	}{
		{"small", h.c3, false},
		{"big", big, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			seen := make(chan struct{})
			var (
				mu    sync.Mutex // the handler runs on the server's goroutine
				posts []*http.Request
				body  *watched
			)
			url := serveBackend(t, h.base, func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodPost {
						mu.Lock()
						body = &watched{ReadCloser: r.Body, seen: seen}
						r.Body = body
						posts = append(posts, r)
						mu.Unlock()
					}
					next.ServeHTTP(w, r)
				})
			}) + "r.git"
			ref := "refs/heads/" + tc.name
			pack := &gate{seen: seen, r: h.pack(t, tc.tip, h.c1), free: postBuffer}
			report, err := push(url, lorestore.RefCommand{Ref: ref, New: tc.tip}, pack)
			if err != nil || report == nil || report.Err() != nil {
				t.Fatalf("push: %+v, %v", report, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(posts) != 1 {
				t.Fatalf("%d POSTs, want 1", len(posts))
			}
			r := posts[0]
			if chunked := fmt.Sprint(r.TransferEncoding) == "[chunked]" && r.ContentLength == -1; chunked != tc.chunked || !chunked && r.ContentLength <= 0 {
				t.Errorf("Transfer-Encoding %v, Content-Length %d; want chunked %v", r.TransferEncoding, r.ContentLength, tc.chunked)
			}
			if ct, acc := r.Header.Get("Content-Type"), r.Header.Get("Accept"); ct != "application/x-git-receive-pack-request" || acc != "application/x-git-receive-pack-result" {
				t.Errorf("Content-Type %q, Accept %q", ct, acc)
			}
			want := lorestore.ZeroHash.String() + " " + tc.tip.String() + " " + ref + "\x00"
			if first := string(body.first); len(first) < 4 || !strings.HasPrefix(first[4:], want) {
				t.Errorf("the body began %q, want the command %q", first, want)
			}
			if got := h.ref(t, ref); got != tc.tip {
				t.Errorf("%s is %s, want %s", ref, got, tc.tip)
			}
			git(t, h.remote, nil, "fsck", "--strict", "--no-progress")
		})
	}
}

// TestHTTPPushErrorsAsGoGit: a remote that answers the advertisement or
// the POST with an error status gives the error go-git's own client gave,
// message and sentinel alike.
func TestHTTPPushErrorsAsGoGit(t *testing.T) {
	h := newHistory(t)
	fail := func(method string, code int) func(http.Handler) http.Handler {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == method {
					io.Copy(io.Discard, r.Body)
					http.Error(w, "no", code)
					return
				}
				next.ServeHTTP(w, r)
			})
		}
	}
	tests := []struct {
		name string
		wrap func(http.Handler) http.Handler
		repo string
		is   error
	}{
		{"missing repository", nil, "none.git", transport.ErrRepositoryNotFound},
		{"unauthorized advertisement", basicAuth("a", "b"), "r.git", transport.ErrAuthenticationRequired},
		{"forbidden POST", fail(http.MethodPost, http.StatusForbidden), "r.git", transport.ErrAuthorizationFailed},
		{"failed POST", fail(http.MethodPost, http.StatusInternalServerError), "r.git", nil},
	}
	cmd := &packp.Command{Name: "refs/heads/topic", New: plumbing.Hash(h.c2)}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url := serveBackend(t, h.base, tc.wrap) + tc.repo
			_, ours := push(url, lorestore.RefCommand{Ref: string(cmd.Name), New: lorestore.Hash(cmd.New)}, h.pack(t, h.c2, h.c1))
			theirs := goGitPush(t, url, cmd, h.pack(t, h.c2, h.c1))
			if ours == nil || theirs == nil || ours.Error() != theirs.Error() {
				t.Fatalf("error %v, go-git's %v", ours, theirs)
			}
			if tc.is != nil && !errors.Is(ours, tc.is) {
				t.Fatalf("error %v is not %v", ours, tc.is)
			}
		})
	}
}

// goGitPush pushes cmd with pack through go-git's HTTP client.
func goGitPush(t *testing.T, url string, cmd *packp.Command, pack io.Reader) error {
	t.Helper()
	ep, err := transport.NewEndpoint(url)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewClient(ep)
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.NewReceivePackSession(ep, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	adv, err := s.AdvertisedReferencesContext(context.Background())
	if err != nil {
		return err
	}
	req := packp.NewReferenceUpdateRequestFromCapabilities(adv.Capabilities)
	req.Commands = append(req.Commands, cmd)
	req.Packfile = io.NopCloser(pack)
	_, err = s.ReceivePack(context.Background(), req)
	return err
}

// TestHTTPPushFollowsRedirect: when the advertisement is redirected, the
// push goes where it was found.
func TestHTTPPushFollowsRedirect(t *testing.T) {
	h := newHistory(t)
	prefix := serveBackend(t, h.base, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/old.git/") {
				http.Redirect(w, r, "/r.git/"+strings.TrimPrefix(r.URL.RequestURI(), "/old.git/"), http.StatusMovedPermanently)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	cmd := lorestore.RefCommand{Ref: "refs/heads/topic", New: h.c2}
	if report, err := push(prefix+"old.git", cmd, h.pack(t, h.c2, h.c1)); err != nil || report == nil || report.Err() != nil {
		t.Fatalf("push: %+v, %v", report, err)
	}
	if got := h.ref(t, cmd.Ref); got != h.c2 {
		t.Fatalf("topic is %s, want %s", got, h.c2)
	}
}

// TestSameOrigin: credentials follow a redirect on the same host, scheme
// and port, or the upgrade to https on the default ports, and no other.
func TestSameOrigin(t *testing.T) {
	tests := []struct {
		from, to string
		want     bool
	}{
		{"http://h:8080/a", "http://h:8080/b", true},
		{"http://h/a", "http://H:80/b", true},
		{"http://h/a", "https://h/b", true},
		{"http://h:8080/a", "https://h:8443/b", false},
		{"https://h/a", "http://h/b", false},
		{"http://h/a", "http://g/b", false},
		{"http://h:1/a", "http://h:2/a", false},
	}
	for _, tc := range tests {
		from, _ := url.Parse(tc.from)
		to, _ := url.Parse(tc.to)
		if got := sameOrigin(from, to); got != tc.want {
			t.Errorf("%s → %s: %v, want %v", tc.from, tc.to, got, tc.want)
		}
	}
}

// TestHTTPPushAnsweredEarly: a remote that refuses the POST without
// reading it ends the push with an error, and the pack's producer, fed as
// lorestore feeds it (a pipe closed once PushPack returns), is let go.
func TestHTTPPushAnsweredEarly(t *testing.T) {
	h := newHistory(t)
	url := serveBackend(t, h.base, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				http.Error(w, "no", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
		})
	}) + "r.git"
	pr, pw := io.Pipe()
	produced := make(chan error, 1)
	go func() {
		data := make([]byte, 1<<16)
		var err error
		for i := 0; i < 16*postBuffer/len(data) && err == nil; i++ {
			_, err = pw.Write(data)
		}
		pw.CloseWithError(err)
		produced <- err
	}()
	pushed := make(chan error, 1)
	go func() {
		_, err := push(url, lorestore.RefCommand{Ref: "refs/heads/topic", New: h.c2}, pr)
		pr.Close()
		pushed <- err
	}()
	for _, c := range []chan error{pushed, produced} {
		select {
		case err := <-c:
			if c == pushed && err == nil {
				t.Fatal("a refused push gave no error")
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the push or its producer hung after an early answer")
		}
	}
}

// TestCheckRedirect: a redirect is followed for the advertisement's GET
// alone, never down from https to http nor past ten hops, and it carries
// the credentials only within the origin.
func TestCheckRedirect(t *testing.T) {
	req := func(method, u string) *http.Request {
		r, err := http.NewRequest(method, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.SetBasicAuth("ann", "pw")
		return r
	}
	first := []*http.Request{req("GET", "https://h/r.git/info/refs")}
	tests := []struct {
		name     string
		next     *http.Request
		via      []*http.Request
		ok, auth bool
	}{
		{"same origin", req("GET", "https://h/s.git/info/refs"), first, true, true},
		{"other host", req("GET", "https://g/r.git/info/refs"), first, true, false},
		{"downgrade", req("GET", "http://h/r.git/info/refs"), first, false, true},
		{"POST", req("POST", "https://h/s.git/git-receive-pack"), first, false, true},
		{"eleventh hop", req("GET", "https://h/s.git/info/refs"), slices.Repeat(first, 10), false, true},
	}
	for _, tc := range tests {
		err := checkRedirect(tc.next, tc.via)
		_, _, auth := tc.next.BasicAuth()
		if (err == nil) != tc.ok || err == nil && auth != tc.auth {
			t.Errorf("%s: error %v, credentials %v", tc.name, err, auth)
		}
	}
}
