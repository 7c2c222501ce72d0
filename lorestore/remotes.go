// Managing named remotes in the repository's config, in git's format, so
// that `git remote -v` and deloreis agree on what is configured.

package lorestore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/deloreis/deloreis/lorestore/refs"
)

// ErrRemoteExists means a remote to add is configured already.
var ErrRemoteExists = errors.New("lorestore: remote already exists")

// ErrNoRemote means a named remote is not configured.
var ErrNoRemote = errors.New("lorestore: no such remote")

// Remote is a configured remote: its name and URLs.
type Remote struct {
	Name string
	URLs []string
}

// Remotes lists the configured remotes, sorted by name.
func (s *Store) Remotes() ([]Remote, error) {
	cf, err := s.readConfig()
	if err != nil {
		return nil, err
	}
	names := cf.subsections("remote")
	out := make([]Remote, 0, len(names))
	for _, name := range names {
		out = append(out, Remote{Name: name, URLs: remoteURLs(cf, name)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// CreateRemote adds a named remote as `git remote add` does, refusing a
// name already configured or not usable as a ref component.
func (s *Store) CreateRemote(name, url string) error {
	if s.ReadOnly() {
		return ErrReadOnly
	}
	if url == "" {
		return fmt.Errorf("lorestore: remote %q needs a URL", name)
	}
	return s.addRemote(name, url, false)
}

// RemoveRemote drops a named remote from the config, and the branches
// that track it, and deletes its remote-tracking refs, as `git remote
// remove` does. Local branches are never touched.
func (s *Store) RemoveRemote(name string) error {
	if s.ReadOnly() {
		return ErrReadOnly
	}
	if !validRemoteName(name) {
		return fmt.Errorf("lorestore: remote name %q is not usable", name)
	}
	err := s.editConfig(func(cf *confFile) (string, error) {
		if !slices.Contains(cf.subsections("remote"), name) {
			return "", fmt.Errorf("%w: %s", ErrNoRemote, name)
		}
		return cf.without(func(section, sub string) bool {
			return section == "remote" && sub == name ||
				section == "branch" && sub != "" && cf.get("branch", sub, "remote") == name
		}), nil
	})
	if err != nil {
		return err
	}
	tracking, err := s.refs.List("refs/remotes/" + name + "/")
	if err != nil {
		return err
	}
	for _, r := range tracking {
		if err := s.refs.Delete(r.Name, r.Hash); err != nil && !errors.Is(err, refs.ErrNotFound) {
			return err
		}
	}
	return nil
}

// RemoteHead tells whether a remote's HEAD names a branch it has.
type RemoteHead struct {
	URL      string
	Branches int  // how many branches the remote advertises
	Dangling bool // HEAD names no branch the remote has (git clone checks nothing out)
}

// CheckRemoteHead asks a remote what its HEAD is. A remote whose HEAD
// names a missing branch (a bare repository made by `git init --bare` on
// a system whose default branch is not main, then pushed main) does not
// advertise HEAD at all; that is what Dangling reports.
func (s *Store) CheckRemoteHead(ctx context.Context, remote string) (RemoteHead, error) {
	target, err := s.resolveRemote(remote)
	if err != nil {
		return RemoteHead{}, err
	}
	sess, err := dial(ctx, target.url, UploadPack)
	if err != nil {
		return RemoteHead{}, err
	}
	defer sess.Close()
	rh := RemoteHead{URL: target.url}
	adv, err := sess.Advertised(ctx)
	if errors.Is(err, ErrEmptyRemote) {
		return rh, nil
	}
	if err != nil {
		return RemoteHead{}, fmt.Errorf("lorestore: asking %s for its HEAD: %w", target.url, err)
	}
	for name := range adv.Refs {
		if strings.HasPrefix(name, "refs/heads/") {
			rh.Branches++
		}
	}
	rh.Dangling = rh.Branches > 0 && adv.Head.IsZero()
	return rh, nil
}
