// Remotes: push, fetch and clone over any transport the linked Dialer
// speaks (package wire: file://, git://, ssh, https). What a push sends is
// found by diffing each new commit's tree against its parents' trees,
// never by walking all history, and the pack is streamed from the object
// database.

package lorestore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/deloreis/deloreis/lorestore/fsys"
	"github.com/deloreis/deloreis/lorestore/refs"
	"github.com/go-git/go-git/v5/plumbing"
)

// Progress hears how far a long transfer is. total is 0 when unknown.
type Progress func(stage string, done, total int)

func (p Progress) report(stage string, done, total int) {
	if p != nil {
		p(stage, done, total)
	}
}

// RefUpdate is one ref a push or fetch moved (or found already in place).
type RefUpdate struct {
	Ref      string
	Old, New Hash
}

// UpToDate reports whether the ref did not move.
func (u RefUpdate) UpToDate() bool { return u.Old == u.New }

// remoteTarget is a resolved remote: its URL and, for a named remote, where
// its branches are tracked locally.
type remoteTarget struct {
	name string // "" for a bare URL
	url  string
}

// tracking is the ref a remote's branch is tracked under, or "" when it has
// none. Only a usable remote name gets one: a name from a hand-edited
// config must never steer a fetch outside refs/remotes/<name>/ (onto a
// lore branch, say).
func (t remoteTarget) tracking(branch string) string {
	if t.name == "" || !validRemoteName(t.name) {
		return ""
	}
	return "refs/remotes/" + t.name + "/" + branch
}

// resolveRemote accepts the name of a configured remote or a URL / path.
func (s *Store) resolveRemote(remote string) (remoteTarget, error) {
	if remote == "" {
		remote = "origin"
	}
	cf, err := s.readConfig()
	if err != nil {
		return remoteTarget{}, err
	}
	if urls := remoteURLs(cf, remote); len(urls) > 0 {
		return remoteTarget{name: remote, url: urls[0]}, nil
	}
	if strings.Contains(remote, "://") || strings.HasPrefix(remote, "/") || strings.HasPrefix(remote, ".") {
		return remoteTarget{url: remote}, nil
	}
	return remoteTarget{}, fmt.Errorf("lorestore: no remote named %q and it is not a URL or path", remote)
}

// remoteURLs is remote.<name>.url, every value, each rewritten by the
// longest url.<base>.insteadOf prefix it matches, as git rewrites it.
func remoteURLs(cf *confFile, name string) []string {
	urls := cf.all("remote", name, "url")
	for i, u := range urls {
		best, base := "", ""
		for _, b := range cf.subsections("url") {
			for _, prefix := range cf.all("url", b, "insteadof") {
				if strings.HasPrefix(u, prefix) && len(prefix) > len(best) {
					best, base = prefix, b
				}
			}
		}
		if best != "" {
			urls[i] = base + u[len(best):]
		}
	}
	return urls
}

func (s *Store) readConfig() (*confFile, error) {
	data, err := os.ReadFile(filepath.Join(s.gitDir, "config"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	cf, err := parseConfig(string(data))
	if err != nil {
		return nil, fmt.Errorf("lorestore: reading config: %w", err)
	}
	return cf, nil
}

// editConfig changes the config file the way git does: take config.lock,
// read the config under it, write the edited text to the lock and rename
// it over config. edit returns the new text.
func (s *Store) editConfig(edit func(cf *confFile) (string, error)) error {
	lock := filepath.Join(s.gitDir, "config.lock")
	fs := fsys.Or(s.opts.FS)
	f, err := fs.OpenFile(lock, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("lorestore: config is locked by another process: %w", err)
	}
	cf, err := s.readConfig()
	var text string
	if err == nil {
		text, err = edit(cf)
	}
	if err == nil {
		_, err = fs.WriteAt(f, []byte(text), 0)
	}
	if err == nil && !s.opts.NoFsync {
		err = fs.Sync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fs.Rename(lock, filepath.Join(s.gitDir, "config"))
	}
	if err != nil {
		fs.Remove(lock)
		return err
	}
	if !s.opts.NoFsync {
		err = fs.SyncDir(s.gitDir)
	}
	return err
}

// AddRemote records a named remote and the refspec git uses for it,
// replacing a remote of that name.
func (s *Store) AddRemote(name, url string) error { return s.addRemote(name, url, true) }

// addRemote writes [remote "name"]; unless replace, a remote of that name
// already configured is ErrRemoteExists (checked under the config's lock).
func (s *Store) addRemote(name, url string, replace bool) error {
	if !validRemoteName(name) {
		return fmt.Errorf("lorestore: remote name %q is not usable", name)
	}
	return s.editConfig(func(cf *confFile) (string, error) {
		if !replace && slices.Contains(cf.subsections("remote"), name) {
			return "", fmt.Errorf("%w: %s", ErrRemoteExists, name)
		}
		text := cf.without(func(section, sub string) bool { return section == "remote" && sub == name })
		return appendSection(text, "remote", name,
			[2]string{"url", url},
			[2]string{"fetch", "+refs/heads/*:refs/remotes/" + name + "/*"}), nil
	})
}

func validRemoteName(name string) bool {
	return name != "" && !strings.Contains(name, "/") && refs.CheckName("refs/remotes/"+name+"/x") == nil
}

// ErrNoTransports is a remote operation before any transport was given
// (UseTransports): package author gives package wire's when its first
// service or clone is made.
var ErrNoTransports = errors.New("lorestore: no git transports were given to this program (lorestore.UseTransports)")

// dialer opens sessions with remotes; nil until a program links one with
// UseTransports.
var dialer Dialer

// UseTransports gives the store the client of every remote it pushes to,
// fetches from or clones: package lorestore/wire's Dial, which package
// author gives it. The store itself holds no transport and no git
// protocol code: the protocol is wire's, behind the store's own types
// (DL-0350). Call it before any remote operation.
func UseTransports(dial Dialer) {
	dialer = dial
}

// dial opens a session with the remote at url for service.
func dial(ctx context.Context, url string, service Service) (RemoteSession, error) {
	if dialer == nil {
		return nil, ErrNoTransports
	}
	sess, err := dialer(ctx, url, service)
	if err != nil {
		return nil, fmt.Errorf("lorestore: remote %q: %w", url, err)
	}
	return sess, nil
}

// PushOptions say what a push sends.
type PushOptions struct {
	Branches []string // default: the default branch
	Force    bool     // allow a non-fast-forward update
	Progress Progress
}

// Push sends branches to a remote and moves the remote's refs. A
// non-fast-forward update is refused (ErrNonFastForward) unless forced.
func (s *Store) Push(ctx context.Context, remote string, o PushOptions) ([]RefUpdate, error) {
	target, err := s.resolveRemote(remote)
	if err != nil {
		return nil, err
	}
	sess, err := dial(ctx, target.url, ReceivePack)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	adv, err := sess.Advertised(ctx)
	if err != nil {
		return nil, fmt.Errorf("lorestore: push to %s: %w", target.url, err)
	}
	cmds, updates, err := s.pushCommands(adv, o)
	if err != nil {
		return nil, err
	}
	if len(cmds) == 0 {
		return updates, nil
	}
	report, err := s.sendPack(ctx, sess, adv, cmds, o.Progress)
	if err == nil && report != nil {
		err = report.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("lorestore: push to %s: %w", target.url, err)
	}
	s.recordPushed(target, cmds)
	return updates, nil
}

// sendPack sends cmds and the objects the remote lacks for them, the pack
// streamed from the object database while the remote reads it.
func (s *Store) sendPack(ctx context.Context, sess RemoteSession, adv *Advertisement, cmds []RefCommand, p Progress) (*PushReport, error) {
	tips := make([]Hash, 0, len(cmds))
	for _, c := range cmds {
		tips = append(tips, c.New)
	}
	objs, err := s.objectsToPush(tips, remoteKnown(adv))
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := s.db.WritePack(pw, gitHashes(objs), func(n, total int) { p.report("writing objects", n, total) })
		pw.CloseWithError(err)
		done <- err
	}()
	report, err := sess.PushPack(ctx, cmds, pr)
	pr.Close()
	if werr := <-done; err == nil && werr != nil {
		err = werr
	}
	return report, err
}

// pushCommands decides which remote refs move, refusing non-fast-forwards.
func (s *Store) pushCommands(adv *Advertisement, o PushOptions) ([]RefCommand, []RefUpdate, error) {
	branches := o.Branches
	if len(branches) == 0 {
		branches = []string{DefaultBranch}
	}
	var cmds []RefCommand
	var updates []RefUpdate
	for _, b := range branches {
		name, err := refs.BranchRef(b)
		if err != nil {
			return nil, nil, err
		}
		local, err := s.Head(b)
		if err != nil {
			return nil, nil, err
		}
		old := adv.Refs[name]
		updates = append(updates, RefUpdate{Ref: name, Old: old, New: local})
		if old == local {
			continue
		}
		if !old.IsZero() && !o.Force {
			ok, err := s.hasCommit(old)
			if err == nil && ok {
				ok, err = s.IsAncestor(old, local)
			}
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				return nil, nil, fmt.Errorf("%w: remote %s is at %s, which %s does not contain; fetch and merge first",
					ErrNonFastForward, name, short(old), b)
			}
		}
		cmds = append(cmds, RefCommand{Ref: name, Old: old, New: local})
	}
	return cmds, updates, nil
}

func (s *Store) hasCommit(h Hash) (bool, error) {
	ok, err := s.objs.Has(plumbing.Hash(h))
	if err != nil || !ok {
		return false, err
	}
	_, err = s.readCommit(h)
	return err == nil, nil
}

// remoteKnown lists the advertised hashes: the remote has these commits and
// everything they reach.
func remoteKnown(adv *Advertisement) []Hash {
	var hs []Hash
	for _, h := range adv.Refs {
		hs = append(hs, h)
	}
	return hs
}

// recordPushed moves the remote-tracking refs of a named remote to what was
// pushed, as git does. A failure here loses nothing: the next fetch fixes it.
func (s *Store) recordPushed(t remoteTarget, cmds []RefCommand) {
	for _, c := range cmds {
		branch := strings.TrimPrefix(c.Ref, "refs/heads/")
		if tr := t.tracking(branch); tr != "" {
			s.forceRef(tr, c.New)
		}
	}
}

// forceRef moves a ref to h whatever it points at now (a tracking ref
// follows the remote, not a local history).
func (s *Store) forceRef(name string, h Hash) error {
	for range 8 {
		old, err := s.refs.Read(name)
		if err != nil && !errors.Is(err, refs.ErrNotFound) {
			return err
		}
		if Hash(old) == h {
			return nil
		}
		err = s.refs.Update(name, plumbing.Hash(h), old)
		if !errors.Is(err, refs.ErrStale) {
			return err
		}
	}
	return fmt.Errorf("lorestore: ref %s keeps moving", name)
}
