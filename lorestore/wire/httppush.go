package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/utils/ioutil"
)

const (
	infoRefs           = "/info/refs"
	receivePackService = transport.ReceivePackServiceName
)

// httpReceivePack is a receive-pack session over smart HTTP whose POST
// streams: the commands, a flush and then the pack as it is produced, in a
// body of unknown length (chunked). go-git's client encodes the whole
// request into a buffer first, so a big first push held its pack in memory.
//
// It speaks as go-git's client did otherwise: the same headers, basic auth
// from the URL's user and password, redirects followed for the
// advertisement alone (credentials kept only on the same origin), and the
// same errors for a non-2xx answer (githttp.NewErr).
type httpReceivePack struct {
	client *http.Client
	base   string // the repository's URL without credentials, after any redirect
	user   *url.Userinfo
	adv    *packp.AdvRefs
}

func newHTTPReceivePack(ep *transport.Endpoint) *httpReceivePack {
	bare := *ep
	bare.User, bare.Password = "", ""
	h := &httpReceivePack{base: bare.String()}
	if ep.User != "" {
		h.user = url.UserPassword(ep.User, ep.Password)
	}
	h.client = &http.Client{Transport: http.DefaultTransport, CheckRedirect: checkRedirect}
	return h
}

// checkRedirect follows the advertisement's redirects as go-git's default
// policy does ("initial"): never a POST's, never from https to http, at
// most ten, and the credentials stay behind when a hop leaves the origin.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		return fmt.Errorf("http redirect: redirect on non-initial request to %s", redacted(req.URL))
	}
	prev := via[len(via)-1].URL
	if prev.Scheme == "https" && req.URL.Scheme == "http" {
		return fmt.Errorf("http redirect: changes scheme from %q to %q: %s", prev.Scheme, req.URL.Scheme, redacted(req.URL))
	}
	if len(via) >= 10 {
		return errors.New("http redirect: too many redirects")
	}
	if !sameOrigin(via[0].URL, req.URL) {
		req.Header.Del("Authorization")
	}
	return nil
}

// sameOrigin says whether credentials meant for from may go to to: the same
// host and scheme and port, or the upgrade from http to https on the
// default ports.
func sameOrigin(from, to *url.URL) bool {
	if !strings.EqualFold(from.Hostname(), to.Hostname()) {
		return false
	}
	if from.Scheme == to.Scheme {
		return effectivePort(from) == effectivePort(to)
	}
	return from.Scheme == "http" && to.Scheme == "https" && effectivePort(from) == "80" && effectivePort(to) == "443"
}

func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// redacted is u for an error message, any password masked.
func redacted(u *url.URL) string {
	if u == nil {
		return ""
	}
	return u.Redacted()
}

// request is a request to the repository with go-git's headers and the
// session's credentials; a nil body is the advertisement's GET.
func (h *httpReceivePack) request(ctx context.Context, method, url string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return nil, plumbing.NewPermanentError(err)
	}
	req.Header.Set("User-Agent", capability.DefaultAgent())
	if body == nil {
		req.Header.Set("Accept", "*/*")
	} else {
		req.Header.Set("Accept", "application/x-"+receivePackService+"-result")
		req.Header.Set("Content-Type", "application/x-"+receivePackService+"-request")
	}
	if h.user != nil {
		pass, _ := h.user.Password()
		req.SetBasicAuth(h.user.Username(), pass)
	}
	return req, nil
}

// AdvertisedReferencesContext reads the advertisement once
// (GET info/refs?service=git-receive-pack) and follows its redirect.
func (h *httpReceivePack) AdvertisedReferencesContext(ctx context.Context) (adv *packp.AdvRefs, err error) {
	if h.adv != nil {
		return h.adv, nil
	}
	req, err := h.request(ctx, http.MethodGet, h.base+infoRefs+"?service="+receivePackService, nil)
	if err != nil {
		return nil, err
	}
	res, err := h.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer ioutil.CheckClose(res.Body, &err)
	if err := githttp.NewErr(res); err != nil {
		return nil, err
	}
	if err := h.followed(req.URL, res.Request.URL); err != nil {
		return nil, err
	}
	ar := packp.NewAdvRefs()
	if err := ar.Decode(res.Body); err != nil {
		if errors.Is(err, packp.ErrEmptyAdvRefs) {
			err = transport.ErrEmptyRemoteRepository
		}
		return nil, err
	}
	transport.FilterUnsupportedCapabilities(ar.Capabilities)
	h.adv = ar
	return ar, nil
}

// followed moves the session to where the advertisement was found when a
// redirect took it elsewhere, dropping the credentials off the origin.
func (h *httpReceivePack) followed(asked, got *url.URL) error {
	if got == nil || got.String() == asked.String() {
		return nil
	}
	if !strings.HasSuffix(got.Path, infoRefs) {
		return fmt.Errorf("http redirect: target %q does not end with %s", got.Path, infoRefs)
	}
	if !sameOrigin(asked, got) {
		h.user = nil
	}
	moved := url.URL{Scheme: got.Scheme, Host: got.Host, Path: strings.TrimSuffix(got.Path, infoRefs)}
	h.base = moved.String()
	return nil
}

// ReceivePack posts req with its pack streamed and reads the report-status,
// demultiplexed from the side-band when req asked for it: nil when the
// remote sends none. A report that refuses something comes with its error.
func (h *httpReceivePack) ReceivePack(ctx context.Context, req *packp.ReferenceUpdateRequest) (*packp.ReportStatus, error) {
	pr, pw := io.Pipe()
	encoded := make(chan error, 1)
	go func() {
		err := req.Encode(pw) // commands, flush, then the pack copied as it comes
		pw.CloseWithError(err)
		encoded <- err
	}()
	// An answer that comes before the encoder has finished stops it at its
	// next write; it reads the pack only as long as the caller feeds it, so
	// waiting for it leaves no goroutine behind.
	defer func() {
		select {
		case <-encoded:
		default:
			pr.CloseWithError(errAnsweredEarly)
			<-encoded
		}
	}()
	body, size, err := postBody(pr)
	if err != nil {
		return nil, err
	}
	hreq, err := h.request(ctx, http.MethodPost, h.base+"/"+receivePackService, body)
	if err != nil {
		return nil, err
	}
	hreq.ContentLength = size
	res, err := h.client.Do(hreq)
	if err != nil {
		return nil, plumbing.NewUnexpectedError(err)
	}
	defer res.Body.Close()
	if err := githttp.NewErr(res); err != nil {
		return nil, err
	}
	r, err := ioutil.NonEmptyReader(res.Body)
	if errors.Is(err, ioutil.ErrEmptyReader) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var d *sideband.Demuxer
	switch {
	case req.Capabilities.Supports(capability.Sideband64k):
		d = sideband.NewDemuxer(sideband.Sideband64k, r)
	case req.Capabilities.Supports(capability.Sideband):
		d = sideband.NewDemuxer(sideband.Sideband, r)
	}
	if d != nil {
		d.Progress = req.Progress
		r = d
	}
	report := packp.NewReportStatus()
	if err := report.Decode(r); err != nil {
		return nil, err
	}
	return report, report.Error()
}

// postBuffer is how much of a request is held to send it with its length,
// as git's http.postBuffer (1 MiB): a bigger one is sent chunked.
var postBuffer = 1 << 20

// postBody is the body of the POST from the encoded request r and its
// length: when r ends within postBuffer, what it holds and that length, as
// git sends a small push and as servers that take no chunked body need;
// otherwise what was read followed by the rest of r and -1 (unknown, so
// chunked), the pack streamed as it is produced.
func postBody(r io.Reader) (io.Reader, int64, error) {
	buf := make([]byte, postBuffer+1)
	n, err := io.ReadFull(r, buf)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return bytes.NewReader(buf[:n]), int64(n), nil
	case err != nil:
		return nil, 0, err
	}
	return io.MultiReader(bytes.NewReader(buf[:n]), r), -1, nil
}

// errAnsweredEarly stops sending a push whose answer came before its end.
var errAnsweredEarly = errors.New("wire: the remote answered before the push was sent")

// Close ends the session; HTTP keeps no connection of its own open.
func (h *httpReceivePack) Close() error { return nil }
