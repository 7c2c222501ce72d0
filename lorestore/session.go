// The store's side of the git protocol: what it needs from a conversation
// with a remote, in its own types. The protocol itself (endpoints,
// pkt-lines, capabilities, side-band, report-status) lives in package
// lorestore/wire, which only the programs that talk to remotes link
// (DL-0350); everything the store decides — what to send, what to trust,
// which refs move — stays here.

package lorestore

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Service is the git service a session speaks.
type Service string

const (
	// UploadPack serves fetch and clone.
	UploadPack Service = "git-upload-pack"
	// ReceivePack serves push.
	ReceivePack Service = "git-receive-pack"
)

// Dialer opens a session for service with the remote at url (a URL or a
// path, as git takes it).
type Dialer func(ctx context.Context, url string, service Service) (RemoteSession, error)

// ErrEmptyRemote is an upload-pack session with a repository that has no
// refs at all.
var ErrEmptyRemote = errors.New("lorestore: the remote repository is empty")

// RemoteSession is one conversation with a remote. Advertised comes first;
// then at most one FetchPack (upload-pack) or PushPack (receive-pack);
// Close always.
type RemoteSession interface {
	// Advertised is the remote's advertisement, read once. An upload-pack
	// session with an empty repository is ErrEmptyRemote.
	Advertised(ctx context.Context) (*Advertisement, error)
	// FetchPack asks for wants, telling the remote the haves, and returns
	// the pack it sends with any side-band taken off; nil when the remote
	// says there is nothing to send. quiet asks it to send no progress.
	// The pack is read before Close.
	FetchPack(ctx context.Context, wants, haves []Hash, quiet bool) (io.ReadCloser, error)
	// PushPack sends the commands and then pack (read to its end), and
	// returns the remote's report: nil when the remote gives none. A
	// report that refuses something comes with an error too.
	PushPack(ctx context.Context, cmds []RefCommand, pack io.Reader) (*PushReport, error)
	Close() error
}

// Advertisement is what a remote says it has.
type Advertisement struct {
	Refs       map[string]Hash // every ref but HEAD, by full name
	Head       Hash            // HEAD; zero when it is not advertised
	HeadBranch string          // the branch HEAD names (symref), "" when unsaid
}

// RefCommand asks a remote to move Ref from Old to New.
type RefCommand struct {
	Ref      string
	Old, New Hash
}

// PushReport is a remote's report-status: how unpacking went and, for
// each command, "ok" or why it was refused.
type PushReport struct {
	Unpack string // "ok" or the remote's reason
	Refs   []RefStatus
}

// RefStatus is the remote's word on one command.
type RefStatus struct {
	Ref, Status string
}

// Err is the first thing the report refused, nil when it took everything,
// worded as go-git words it.
func (r *PushReport) Err() error {
	if r.Unpack != "ok" {
		return fmt.Errorf("unpack error: %s", r.Unpack)
	}
	for _, c := range r.Refs {
		if c.Status != "ok" {
			return fmt.Errorf("command error on %s: %s", c.Ref, c.Status)
		}
	}
	return nil
}
