// The store against the Dialer interface alone: which service each remote
// operation asks for, what it sends, how it reads a refusing report, and
// that without a Dialer nothing is attempted.

package lorestore

import (
	"context"
	"errors"
	"io"
	"maps"
	"strings"
	"testing"
)

// fakeSession is a remote that advertises adv and answers a push with
// report; it records what it was asked.
type fakeSession struct {
	adv      *Advertisement
	report   *PushReport
	pushErr  error
	cmds     []RefCommand
	packSize int
	closed   bool
}

func (f *fakeSession) Advertised(context.Context) (*Advertisement, error) { return f.adv, nil }

func (f *fakeSession) FetchPack(context.Context, []Hash, []Hash, bool) (io.ReadCloser, error) {
	return nil, nil
}

func (f *fakeSession) PushPack(_ context.Context, cmds []RefCommand, pack io.Reader) (*PushReport, error) {
	f.cmds = cmds
	n, err := io.Copy(io.Discard, pack)
	f.packSize = int(n)
	if err != nil {
		return nil, err
	}
	return f.report, f.pushErr
}

func (f *fakeSession) Close() error { f.closed = true; return nil }

// useFake makes every dial answer with sess, recording the services asked
// for, until the test ends.
func useFake(t *testing.T, sess *fakeSession) *[]Service {
	var services []Service
	old := dialer
	dialer = func(_ context.Context, _ string, service Service) (RemoteSession, error) {
		services = append(services, service)
		return sess, nil
	}
	t.Cleanup(func() { dialer = old })
	return &services
}

// TestPushThroughSession: a push asks for receive-pack, sends one command
// from the remote's ref to the local head with a pack, and words a report
// that refuses it as an error; a report that takes it moves the
// remote-tracking ref.
func TestPushThroughSession(t *testing.T) {
	tests := []struct {
		name    string
		report  *PushReport
		pushErr error
		wantErr string
	}{
		{"taken", &PushReport{Unpack: "ok", Refs: []RefStatus{{Ref: "refs/heads/main", Status: "ok"}}}, nil, ""},
		{"no report", nil, nil, ""},
		{"refused", &PushReport{Unpack: "ok", Refs: []RefStatus{{Ref: "refs/heads/main", Status: "hook declined"}}},
			nil, "command error on refs/heads/main: hook declined"},
		{"connection lost", nil, io.ErrUnexpectedEOF, "push to /nowhere: unexpected EOF"},
		{"unpack failed", &PushReport{Unpack: "index-pack failed"}, nil, "unpack error: index-pack failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newStore(t)
			head := commitFacts(t, s, "camelot", 0, 3).Commit
			if err := s.AddRemote("origin", "/nowhere"); err != nil {
				t.Fatal(err)
			}
			sess := &fakeSession{adv: &Advertisement{Refs: map[string]Hash{}}, report: tc.report, pushErr: tc.pushErr}
			services := useFake(t, sess)
			_, err := s.Push(context.Background(), "origin", PushOptions{})
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("push: %v, want %q", err, tc.wantErr)
			}
			if len(*services) != 1 || (*services)[0] != ReceivePack || !sess.closed {
				t.Fatalf("services %v, closed %v", *services, sess.closed)
			}
			if len(sess.cmds) != 1 || sess.cmds[0] != (RefCommand{Ref: "refs/heads/main", New: head}) || sess.packSize < 32 {
				t.Fatalf("sent %+v and a pack of %d bytes", sess.cmds, sess.packSize)
			}
			tracked, rerr := s.refs.Read("refs/remotes/origin/main")
			if moved := rerr == nil && Hash(tracked) == head; moved != (tc.wantErr == "") {
				t.Fatalf("origin/main = %s (%v) after %v", tracked, rerr, err)
			}
		})
	}
}

// TestNoTransports: without a Dialer every remote operation is
// ErrNoTransports and leaves the store as it was.
func TestNoTransports(t *testing.T) {
	s, dir := newStore(t)
	commitFacts(t, s, "camelot", 0, 2)
	if err := s.AddRemote("origin", "/nowhere"); err != nil {
		t.Fatal(err)
	}
	old := dialer
	dialer = nil
	t.Cleanup(func() { dialer = old })
	before := dirState(t, dir)
	ops := map[string]func() error{
		"push":  func() error { _, err := s.Push(context.Background(), "origin", PushOptions{}); return err },
		"fetch": func() error { _, err := s.Fetch(context.Background(), "origin", FetchOptions{}); return err },
		"sync":  func() error { _, err := s.Sync(context.Background(), "origin", SyncOptions{}); return err },
		"head":  func() error { _, err := s.CheckRemoteHead(context.Background(), "origin"); return err },
		"clone": func() error { _, err := Clone(context.Background(), dir, t.TempDir()+"/c", CloneOptions{}); return err },
	}
	for name, op := range ops {
		if err := op(); !errors.Is(err, ErrNoTransports) {
			t.Errorf("%s without transports: %v", name, err)
		}
	}
	if after := dirState(t, dir); !maps.Equal(after, before) {
		t.Errorf("the store changed:\n%s\n%s", before, after)
	}
}
