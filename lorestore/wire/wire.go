// Package wire speaks git's protocol for the store: it parses a remote's
// URL, opens an upload-pack or receive-pack session over any transport
// git has (file:// and plain paths, git://, ssh, http and https), reads the
// advertised refs, asks for a pack and takes the side-band off it, and
// sends ref commands and a pack and reads the report-status back. A push
// over smart HTTP is our own (httppush.go): go-git's client holds the
// whole request, pack included, in memory before it posts it, so the
// push is streamed instead.
//
// It decides nothing: what to fetch or send, what to trust and which refs
// move are the store's (package lorestore), which reaches this package
// only through lorestore.UseTransports(wire.Dial), which package author
// calls (DL-0350).
package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// Dial opens a session for service with the remote at url: a
// lorestore.Dialer.
func Dial(ctx context.Context, url string, service lorestore.Service) (lorestore.RemoteSession, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ep, err := transport.NewEndpoint(url)
	if err != nil {
		return nil, err
	}
	if service != lorestore.UploadPack && service != lorestore.ReceivePack {
		return nil, fmt.Errorf("wire: no service %q", service)
	}
	switch ep.Protocol {
	case "file":
		return dialVia(localGit{dir: ep.Path}, service)
	case "ssh":
		return dialVia(&streamGit{ctx: ctx, open: openSSH(ep)}, service)
	case "git":
		return dialVia(&streamGit{ctx: ctx, open: openDaemon(ep)}, service)
	case "http", "https":
	default:
		return nil, fmt.Errorf("wire: unsupported scheme %q", ep.Protocol)
	}
	if service == lorestore.ReceivePack {
		s := newHTTPReceivePack(ep)
		return &session{rp: s, common: s}, nil
	}
	s, err := githttp.DefaultClient.NewUploadPackSession(ep, nil)
	if err != nil {
		return nil, err
	}
	return &session{up: s, common: s}, nil
}

// session is one upload-pack (up) or receive-pack (rp) session.
type session struct {
	up     transport.UploadPackSession
	rp     receivePack
	common interface {
		AdvertisedReferencesContext(context.Context) (*packp.AdvRefs, error)
		Close() error
	}
	adv *packp.AdvRefs
	// conn is the connection under a session over ssh or git:// (nil
	// otherwise), closed with the session.
	conn io.Closer
}

// receivePack is the part of go-git's receive-pack session a push uses;
// over smart HTTP our own httpReceivePack stands in for it, so that the
// pack is streamed rather than held in memory.
type receivePack interface {
	ReceivePack(context.Context, *packp.ReferenceUpdateRequest) (*packp.ReportStatus, error)
}

// errWrongService is a fetch on a push session or the other way round.
var errWrongService = errors.New("wire: the session does not speak that service")

// Advertised reads the refs and capabilities the remote sends first.
func (s *session) Advertised(ctx context.Context) (*lorestore.Advertisement, error) {
	adv, err := s.advRefs(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return nil, lorestore.ErrEmptyRemote
	}
	if err != nil {
		return nil, err
	}
	out := &lorestore.Advertisement{Refs: make(map[string]lorestore.Hash, len(adv.References))}
	for name, h := range adv.References {
		out.Refs[name] = lorestore.Hash(h)
	}
	if adv.Head != nil {
		out.Head = lorestore.Hash(*adv.Head)
	}
	for _, v := range adv.Capabilities.Get(capability.SymRef) {
		if from, to, ok := strings.Cut(v, ":"); ok && from == "HEAD" {
			out.HeadBranch = strings.TrimPrefix(to, "refs/heads/")
		}
	}
	return out, nil
}

func (s *session) advRefs(ctx context.Context) (*packp.AdvRefs, error) {
	if s.adv != nil {
		return s.adv, nil
	}
	adv, err := s.common.AdvertisedReferencesContext(ctx)
	if err != nil {
		return nil, err
	}
	s.adv = adv
	return adv, nil
}

// FetchPack asks for wants with haves and returns the pack without its
// side-band. It never asks for a thin pack: the store keeps the pack as it
// comes, and a thin one would lack the bases its deltas name.
func (s *session) FetchPack(ctx context.Context, wants, haves []lorestore.Hash, quiet bool) (io.ReadCloser, error) {
	if s.up == nil {
		return nil, errWrongService
	}
	adv, err := s.advRefs(ctx)
	if err != nil {
		return nil, err
	}
	req := packp.NewUploadPackRequestFromCapabilities(adv.Capabilities)
	req.Capabilities.Delete(capability.ThinPack)
	if quiet && adv.Capabilities.Supports(capability.NoProgress) {
		req.Capabilities.Set(capability.NoProgress)
	}
	for _, h := range wants {
		req.Wants = append(req.Wants, plumbing.Hash(h))
	}
	for _, h := range haves {
		req.Haves = append(req.Haves, plumbing.Hash(h))
	}
	resp, err := s.up.UploadPack(ctx, req)
	if errors.Is(err, transport.ErrEmptyUploadPackRequest) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &pack{Reader: demux(req.Capabilities, resp), Closer: resp}, nil
}

// pack reads a fetched pack and closes the response it came in.
type pack struct {
	io.Reader
	io.Closer
}

// demux takes the side-band off a response whose request asked for it;
// the remote's progress messages are dropped.
func demux(caps *capability.List, r io.Reader) io.Reader {
	var t sideband.Type
	switch {
	case caps.Supports(capability.Sideband64k):
		t = sideband.Sideband64k
	case caps.Supports(capability.Sideband):
		t = sideband.Sideband
	default:
		return r
	}
	return sideband.NewDemuxer(t, r)
}

// PushPack sends cmds and the pack and reads the remote's report-status,
// when it gives one.
func (s *session) PushPack(ctx context.Context, cmds []lorestore.RefCommand, pack io.Reader) (*lorestore.PushReport, error) {
	if s.rp == nil {
		return nil, errWrongService
	}
	adv, err := s.advRefs(ctx)
	if err != nil {
		return nil, err
	}
	req := packp.NewReferenceUpdateRequestFromCapabilities(adv.Capabilities)
	for _, c := range cmds {
		req.Commands = append(req.Commands, &packp.Command{Name: plumbing.ReferenceName(c.Ref), Old: plumbing.Hash(c.Old), New: plumbing.Hash(c.New)})
	}
	req.Packfile = io.NopCloser(pack)
	report, err := s.rp.ReceivePack(ctx, req)
	if report == nil {
		return nil, err
	}
	out := &lorestore.PushReport{Unpack: report.UnpackStatus}
	for _, c := range report.CommandStatuses {
		out.Refs = append(out.Refs, lorestore.RefStatus{Ref: string(c.ReferenceName), Status: c.Status})
	}
	return out, err
}

// Close ends the session.
func (s *session) Close() error {
	err := s.common.Close()
	if s.conn != nil {
		err = cmpErr(s.conn.Close(), err)
	}
	return err
}
